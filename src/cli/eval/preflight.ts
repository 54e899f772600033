/**
 * Checks before the first rollout (skipped with --no-preflight), so that a run that cannot work stops in
 * seconds with one actionable line (exit 2) instead of erroring every rollout: the dataset gave examples, the
 * agent serves this environment, and the model endpoint answers and serves the model. Every way of running calls
 * it: a local run, a queued run (--queue: checked from here too), a CLI coding agent, and terminal trials
 * (terminal-run.ts calls probeModelEndpoint). (The backend is checked as it is chosen: backend-choice.ts refuses a
 * docker daemon that is down or an image that is not built.)
 */
import { abortableDelay, backoffDelayMs } from '../../core/backoff.js';
import { CorralError } from '../../core/errors.js';
import type { Agent } from '../../runner/agents/agent.js';
import { type ModelAttemptFailure, classifyHttpFailure, classifyModelError } from '../../runner/agents/openai/model-error.js';
import { MODEL_BACKOFF, OpenAIAgent } from '../../runner/agents/openai/openai-agent.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import { CliCodingAgent } from './cli-coding-agent.js';

export interface ModelEndpoint {
  baseURL: string;
  apiKey: string;
  model: string;
}

export interface PreflightInput {
  environment: Environment;
  agent: Agent;
  /** The agents that would fit, for the refusal message. */
  fittingAgents: readonly string[];
  examples: readonly Example[];
  /** Where the agent's model requests go (modelEndpointOf), when it has a model. */
  endpoint?: ModelEndpoint;
  /** Retries of GET /models after the first attempt: --model-retries, as for model calls. */
  retries: number;
  log: (line: string) => void;
}

const SKIP = 'or skip this check with --no-preflight';
const PROBE_TIMEOUT_MS = 10_000;

export async function runPreflight(input: PreflightInput): Promise<void> {
  if (input.examples.length === 0)
    throw new CorralError(
      'ENV_ERR_DATASET_INVALID',
      `preflight: the ${input.environment.name} dataset gave no examples (check --dataset / --questions / --num-examples)`,
    );
  const served = input.agent.environments;
  if (served && !served.includes(input.environment.name)) {
    throw new CorralError(
      'RUNNER_ERR_AGENT_MISMATCH',
      `preflight: --agent ${input.agent.name} serves ${served.join(', ')}, not ${input.environment.name} (it would score 0 on every example); for ${input.environment.name} use --agent ${input.fittingAgents.join(' | ')}, ${SKIP}`,
    );
  }
  if (input.endpoint) await probeModelEndpoint(input.endpoint, { retries: input.retries, log: input.log });
}

/** The endpoint an agent sends its model requests to (the openai agent, a CLI coding agent through the proxy); none for model-free agents. */
export function modelEndpointOf(agent: Agent, apiKey: string | undefined): ModelEndpoint | undefined {
  const key = apiKey || process.env['OPENAI_API_KEY'] || 'EMPTY';
  if (agent instanceof OpenAIAgent) return { baseURL: agent.baseURL, apiKey: key, model: agent.model };
  if (agent instanceof CliCodingAgent) return { baseURL: agent.baseUrl, apiKey: key, model: agent.model };
  return undefined;
}

/**
 * One cheap request, GET <base>/models, retried as model calls are (429, 408, 5xx, timeouts, connection errors;
 * the same backoff), so one transient failure does not refuse a run. A 404 or another 4xx but 401/403 means the
 * endpoint is there without /models; a model list that lacks the model means every request would 404.
 */
export async function probeModelEndpoint(endpoint: ModelEndpoint, options: { retries: number; log: (line: string) => void }): Promise<void> {
  const url = `${endpoint.baseURL.replace(/\/+$/, '')}/models`;
  for (let attempt = 0; ; attempt++) {
    const outcome = await getModels(url, endpoint.apiKey);
    if ('failure' in outcome) {
      if (outcome.failure.retryable && attempt < options.retries) {
        const delayMs = Math.max(outcome.failure.retryAfterMs ?? 0, backoffDelayMs(attempt, MODEL_BACKOFF));
        options.log(`preflight: GET ${url} failed (${outcome.failure.message}); retry ${attempt + 1} of ${options.retries} in ${Math.round(delayMs)} ms`);
        await abortableDelay(Math.min(delayMs, MODEL_BACKOFF.maxMs * 4), undefined);
        continue;
      }
      throw refusal(endpoint, outcome.failure, attempt + 1);
    }
    const served = outcome.status < 300 ? servedModels(outcome.body) : undefined;
    if (served && served.length > 0 && !served.includes(endpoint.model)) {
      throw new CorralError(
        'CFG_ERR_INVALID',
        `preflight: the model endpoint ${endpoint.baseURL} serves ${served.slice(0, 10).join(', ')}, not '${endpoint.model}': fix --model, ${SKIP}`,
      );
    }
    options.log(
      `preflight: model endpoint ${endpoint.baseURL} answers (GET /models: HTTP ${outcome.status}${attempt > 0 ? `, after ${attempt} retries` : ''})`,
    );
    return;
  }
}

async function getModels(url: string, apiKey: string): Promise<{ status: number; body: string } | { failure: ModelAttemptFailure }> {
  const timer = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` }, signal: timer });
    const body = await response.text();
    // 401/403 refuse the key; 404 and other 4xx mean an endpoint without /models (some servers have none).
    if (response.status === 401 || response.status === 403 || response.status === 408 || response.status === 429 || response.status >= 500)
      return { failure: classifyHttpFailure(response.status, response.headers, body) };
    return { status: response.status, body };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return { failure: classifyModelError(cause && typeof cause === 'object' && 'code' in cause ? cause : error, timer.aborted) };
  }
}

function refusal(endpoint: ModelEndpoint, failure: ModelAttemptFailure, attempts: number): CorralError {
  const tried = attempts > 1 ? ` (${attempts} attempts)` : '';
  const details = { details: { url: `${endpoint.baseURL}/models`, ...(failure.status ? { status: failure.status } : {}) } };
  if (failure.status === 401 || failure.status === 403)
    return new CorralError(
      'MODEL_ERR_HTTP',
      `preflight: the model endpoint ${endpoint.baseURL} refused the API key (HTTP ${failure.status} on GET /models); pass --api-key or set OPENAI_API_KEY, ${SKIP}`,
      details,
    );
  if (failure.status !== undefined)
    return new CorralError(
      failure.code,
      `preflight: the model endpoint ${endpoint.baseURL} answers HTTP ${failure.status} on GET /models${tried}; is the server healthy? ${SKIP}`,
      details,
    );
  return new CorralError(
    failure.code === 'MODEL_ERR_TIMEOUT' ? 'MODEL_ERR_TIMEOUT' : 'MODEL_ERR_CONNECTION',
    `preflight: the model endpoint ${endpoint.baseURL} does not answer (GET /models: ${failure.message})${tried}; check --base-url and that the server is up, ${SKIP}`,
    details,
  );
}

function servedModels(body: string): string[] | undefined {
  try {
    const data = (JSON.parse(body) as { data?: { id?: unknown }[] }).data;
    return Array.isArray(data) ? data.map((entry) => entry?.id).filter((id): id is string => typeof id === 'string') : undefined;
  } catch {
    return undefined;
  }
}
