/**
 * Picks the agent for `corral eval`: --agent by name (an agent the environment module exports wins over a
 * built-in of the same name), else openai when --model is given, else the environment's built-in.
 */
import { CorralError } from '../../core/errors.js';
import type { Agent } from '../../runner/agents/agent.js';
import { builtInAgentNotes, builtInAgents } from '../../runner/agents/baseline-agents.js';
import { OpenAIAgent } from '../../runner/agents/openai-agent.js';
import type { EvalOptions } from './eval-options.js';
import type { AgentFactories } from './module-agents.js';
import { parseSamplingArgs } from './eval-options.js';

export function createAgent(options: EvalOptions, environmentName: string, moduleAgents: AgentFactories = {}): Agent {
  const name = options.agent ?? (options.model ? 'openai' : defaultBuiltIn(environmentName, moduleAgents));
  if (name === 'openai') {
    if (!options.model) throw new CorralError('CFG_ERR_INVALID', '--agent openai needs --model (and usually --base-url; the key comes from --api-key or OPENAI_API_KEY)');
    return new OpenAIAgent({
      model: options.model,
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      samplingArgs: parseSamplingArgs(options.sampling),
    });
  }
  const factory = (Object.hasOwn(moduleAgents, name) ? moduleAgents[name] : undefined) ?? builtInAgents[name];
  if (!factory) throw new CorralError('CFG_ERR_INVALID', `unknown --agent '${name}'; choose openai or one of: ${[...Object.keys(moduleAgents), ...Object.keys(builtInAgents)].join(', ')}`);
  const agent = factory();
  if (typeof agent?.run !== 'function') throw new CorralError('ENV_ERR_INVALID_MODULE', `agents.${name}() did not return an agent (an object with run())`);
  return agent;
}

function defaultBuiltIn(environmentName: string, moduleAgents: AgentFactories): string {
  const match = Object.entries(builtInAgentNotes).find(([, note]) => note.environments.includes(environmentName));
  const offered = Object.keys(moduleAgents);
  if (!match && offered.length > 0) throw new CorralError('CFG_ERR_INVALID', `pick an agent: --agent ${offered.join(' | --agent ')} (from the environment module), or --agent openai --model M --base-url U`);
  if (!match) throw new CorralError('CFG_ERR_INVALID', `environment '${environmentName}' has no built-in agent: pass --agent openai --model M --base-url U`);
  return match[0];
}
