/**
 * Picks the agent for `corral eval`: --agent by name (an agent the environment module exports wins over a
 * built-in of the same name), else openai when --model is given, else the environment's built-in. The openai agent
 * is built here only (createOpenAIAgent), for `corral eval`, /v1/rollouts and queue workers alike.
 */
import { CorralError } from '../../core/errors.js';
import type { Agent } from '../../runner/agents/agent.js';
import { builtInAgentNotes, builtInAgents } from '../../runner/agents/baseline/baseline-agents.js';
import type { AgentRunInput } from '../../runner/agents/agent.js';
import type { ModelHttpClient } from '../../runner/agents/openai/model-http-client.js';
import { OpenAIAgent } from '../../runner/agents/openai/openai-agent.js';
import { withheldUpstreamErrors } from '../runtime/withheld-upstream-errors.js';
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
    return createOpenAIAgent({
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

export interface OpenAIAgentChoice {
  model: string;
  baseURL: string;
  /** Absent: OPENAI_API_KEY for the operator's endpoint; always 'EMPTY' or the client's own key for a client's endpoint. */
  apiKey?: string;
  samplingArgs: Record<string, unknown>;
  returnTokens?: boolean;
  tokenIn?: boolean;
  requestTimeoutMs?: number;
  maxRetries?: number;
  /**
   * An endpoint a remote client chose (corral serve, and its jobs on queue workers): connections go through this
   * policy-guarded client, no key of this machine is sent there, and what the endpoint answers in an error goes to
   * `onWithheld` (the server's or worker's log), the record getting the status and code only.
   */
  clientEndpoint?: { httpClient: ModelHttpClient; onWithheld: (error: CorralError, input: AgentRunInput) => void };
}

/** The one construction of the openai agent. Throws CFG_ERR_INVALID for sampling args it sets itself. */
export function createOpenAIAgent(choice: OpenAIAgentChoice): Agent {
  const client = choice.clientEndpoint;
  const agent = new OpenAIAgent({
    model: choice.model,
    baseURL: choice.baseURL,
    // Never this machine's OPENAI_API_KEY for a client's endpoint: it would be sent wherever the client chose.
    ...(choice.apiKey ? { apiKey: choice.apiKey } : client ? { apiKey: 'EMPTY' } : {}),
    samplingArgs: choice.samplingArgs,
    ...(choice.returnTokens ? { returnTokens: true } : {}),
    ...(choice.tokenIn ? { tokenIn: true } : {}),
    ...(choice.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: choice.requestTimeoutMs }),
    ...(choice.maxRetries === undefined ? {} : { maxRetries: choice.maxRetries }),
    ...(client ? { httpClient: client.httpClient } : {}),
  });
  return client ? withheldUpstreamErrors(agent, client.onWithheld) : agent;
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
