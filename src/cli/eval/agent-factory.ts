/**
 * Picks the agent for `corral eval`: --agent by name (an agent the environment module exports wins over a
 * built-in of the same name), else openai when --model is given, else the environment's built-in.
 */
import { CorralError } from '../../core/errors.js';
import type { Agent } from '../../runner/agents/agent.js';
import { builtInAgentNotes, builtInAgents } from '../../runner/agents/baseline/baseline-agents.js';
import { OpenAIAgent } from '../../runner/agents/openai/openai-agent.js';
import { CLI_AGENT_NAMES, cliAgent } from '../../cli-agents/cli-agent-registry.js';
import { CliCodingAgent } from './cli-coding-agent.js';
import type { AgentFactories } from './module-agents.js';

export interface AgentChoice {
  agent: string;
  model: string | null;
  baseUrl: string | null;
  apiKey?: string;
  samplingArgs: Record<string, unknown>;
  /** --token-in: the openai agent renders new messages with /tokenize and samples from /v1/completions. */
  tokenIn?: boolean;
  modelTimeoutS: number;
  modelRetries: number;
}

/** The agent's name: --agent, else openai with --model, else the environment's built-in. */
export function chooseAgentName(agent: string | undefined, model: string | undefined, environmentName: string, moduleAgents: AgentFactories): string {
  return agent ?? (model ? 'openai' : defaultBuiltIn(environmentName, moduleAgents));
}

export function createAgent(choice: AgentChoice, moduleAgents: AgentFactories = {}, log: (line: string) => void = () => undefined): Agent {
  const name = choice.agent;
  if (choice.tokenIn && name !== 'openai')
    throw new CorralError(
      'CFG_ERR_INVALID',
      `--token-in works with --agent openai only (it talks to vLLM's /tokenize and /v1/completions itself); ${name} sends messages`,
    );
  if (name === 'openai') {
    if (!choice.model) throw new CorralError('CFG_ERR_INVALID', '--agent openai needs --model and --base-url (the key comes from --api-key or OPENAI_API_KEY)');
    const baseURL = choice.baseUrl ?? endpointFromEnvironment(choice.model);
    const keySource = choice.apiKey ? '--api-key' : process.env['OPENAI_API_KEY'] ? 'OPENAI_API_KEY' : 'none (sent as EMPTY)';
    log(`model ${choice.model} at ${baseURL} (key: ${keySource}; ${choice.modelTimeoutS} s per attempt, ${choice.modelRetries} retries)`);
    return new OpenAIAgent({
      model: choice.model,
      baseURL,
      ...(choice.apiKey ? { apiKey: choice.apiKey } : {}),
      samplingArgs: choice.samplingArgs,
      ...(choice.tokenIn ? { tokenIn: true } : {}),
      requestTimeoutMs: choice.modelTimeoutS * 1000,
      maxRetries: choice.modelRetries,
    });
  }
  if (CLI_AGENT_NAMES.includes(name) && !Object.hasOwn(moduleAgents, name)) {
    if (!choice.model)
      throw new CorralError('CFG_ERR_INVALID', `--agent ${name} needs --model and --base-url (the CLI's calls go to them through corral's proxy)`);
    const baseUrl = choice.baseUrl ?? endpointFromEnvironment(choice.model);
    log(`CLI agent ${name} inside each rollout's Docker sandbox; model ${choice.model} at ${baseUrl} through corral's recording proxy`);
    return new CliCodingAgent({
      definition: cliAgent(name),
      model: choice.model,
      baseUrl,
      ...(choice.apiKey ? { apiKey: choice.apiKey } : {}),
      samplingArgs: choice.samplingArgs,
      ...(process.env['CORRAL_CACHE_DIR'] ? { cacheDirectory: process.env['CORRAL_CACHE_DIR'] } : {}),
      requestTimeoutMs: choice.modelTimeoutS * 1000,
    });
  }
  const factory = (Object.hasOwn(moduleAgents, name) ? moduleAgents[name] : undefined) ?? builtInAgents[name];
  if (!factory)
    throw new CorralError(
      'CFG_ERR_INVALID',
      `unknown --agent '${name}'; choose openai, a CLI agent (${CLI_AGENT_NAMES.join(', ')}) or one of: ${[...Object.keys(moduleAgents), ...Object.keys(builtInAgents)].join(', ')}`,
    );
  const agent = factory();
  if (typeof agent?.run !== 'function') throw new CorralError('ENV_ERR_INVALID_MODULE', `agents.${name}() did not return an agent (an object with run())`);
  return agent;
}

/** Agents fit for an environment, for the message that refuses a mismatched one. */
export function agentsFor(environmentName: string, moduleAgents: AgentFactories): string[] {
  return [
    ...Object.keys(moduleAgents),
    ...Object.entries(builtInAgentNotes)
      .filter(([, note]) => note.environments.includes(environmentName))
      .map(([name]) => name),
    'openai',
  ];
}

/** Never a vendor API by accident: without --base-url only an explicit OPENAI_BASE_URL names the endpoint. */
function endpointFromEnvironment(model: string): string {
  const fromEnvironment = process.env['OPENAI_BASE_URL'];
  if (fromEnvironment) return fromEnvironment;
  throw new CorralError(
    'CFG_ERR_INVALID',
    `--model ${model} needs --base-url: corral does not guess an endpoint. E.g. --base-url http://localhost:8000/v1 (vLLM, SGLang) or --base-url https://api.openai.com/v1 (OpenAI; key from --api-key or OPENAI_API_KEY)`,
  );
}

function defaultBuiltIn(environmentName: string, moduleAgents: AgentFactories): string {
  const match = Object.entries(builtInAgentNotes).find(([, note]) => note.environments.includes(environmentName));
  const offered = Object.keys(moduleAgents);
  if (!match && offered.length > 0)
    throw new CorralError(
      'CFG_ERR_INVALID',
      `pick an agent: --agent ${offered.join(' | --agent ')} (from the environment module), or --agent openai --model M --base-url U`,
    );
  if (!match) throw new CorralError('CFG_ERR_INVALID', `environment '${environmentName}' has no built-in agent: pass --agent openai --model M --base-url U`);
  return match[0];
}
