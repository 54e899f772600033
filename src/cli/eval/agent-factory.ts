/** Picks the agent for `corral eval`: --agent by name, else openai when --model is given, else the env's built-in. */
import { CorralError } from '../../core/errors.js';
import type { Agent } from '../../runner/agents/agent.js';
import { builtInAgentNotes, builtInAgents } from '../../runner/agents/baseline-agents.js';
import { OpenAIAgent } from '../../runner/agents/openai-agent.js';
import type { EvalOptions } from './eval-options.js';
import { parseSamplingArgs } from './eval-options.js';

export function createAgent(options: EvalOptions, environmentName: string): Agent {
  const name = options.agent ?? (options.model ? 'openai' : defaultBuiltIn(environmentName));
  if (name === 'openai') {
    if (!options.model) throw new CorralError('CFG_ERR_INVALID', '--agent openai needs --model (and usually --base-url; the key comes from --api-key or OPENAI_API_KEY)');
    return new OpenAIAgent({
      model: options.model,
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      samplingArgs: parseSamplingArgs(options.sampling),
    });
  }
  const factory = builtInAgents[name];
  if (!factory) throw new CorralError('CFG_ERR_INVALID', `unknown --agent '${name}'; choose openai or one of: ${Object.keys(builtInAgents).join(', ')}`);
  return factory();
}

function defaultBuiltIn(environmentName: string): string {
  const match = Object.entries(builtInAgentNotes).find(([, note]) => note.environments.includes(environmentName));
  if (!match) throw new CorralError('CFG_ERR_INVALID', `environment '${environmentName}' has no built-in agent: pass --agent openai --model M --base-url U`);
  return match[0];
}
