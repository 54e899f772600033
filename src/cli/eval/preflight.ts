/**
 * Checks before the first rollout (skipped with --no-preflight), so that a run that cannot work stops in
 * seconds with one actionable line (exit 2) instead of erroring every rollout: the dataset gave examples, the
 * agent serves this environment, and the model endpoint answers. (The backend is checked as it is chosen:
 * backend-choice.ts refuses a docker daemon that is down or an image that is not built.)
 */
import { CorralError } from '../../core/errors.js';
import type { Agent } from '../../runner/agents/agent.js';
import type { Environment, Example } from '../../runner/contract/environment.js';

export interface PreflightInput {
  environment: Environment;
  agent: Agent;
  /** The agents that would fit, for the refusal message. */
  fittingAgents: readonly string[];
  examples: readonly Example[];
  /** For the openai agent: where requests go and with which key. */
  endpoint?: { baseURL: string; apiKey: string; model: string };
  log: (line: string) => void;
}

const SKIP = 'or skip this check with --no-preflight';

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
  if (input.endpoint) await probeModelEndpoint(input.endpoint, input.log);
}

/**
 * One cheap request: GET <base>/models. Any HTTP answer but 401/403/5xx means the endpoint is there (some
 * servers have no /models); a model list that lacks the model means every request would 404.
 */
export async function probeModelEndpoint(endpoint: { baseURL: string; apiKey: string; model: string }, log: (line: string) => void): Promise<void> {
  const url = `${endpoint.baseURL.replace(/\/+$/, '')}/models`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${endpoint.apiKey}` }, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new CorralError(
      'MODEL_ERR_CONNECTION',
      `preflight: the model endpoint ${endpoint.baseURL} does not answer (GET /models: ${reason}); check --base-url and that the server is up, ${SKIP}`,
      { details: { url } },
    );
  }
  const body = await response.text().catch(() => '');
  if (response.status === 401 || response.status === 403) {
    throw new CorralError(
      'MODEL_ERR_HTTP',
      `preflight: the model endpoint ${endpoint.baseURL} refused the API key (HTTP ${response.status} on GET /models); pass --api-key or set OPENAI_API_KEY, ${SKIP}`,
      { details: { status: response.status } },
    );
  }
  if (response.status >= 500) {
    throw new CorralError(
      'MODEL_ERR_SERVER',
      `preflight: the model endpoint ${endpoint.baseURL} answers HTTP ${response.status} on GET /models; is the server healthy? ${SKIP}`,
      { details: { status: response.status } },
    );
  }
  const served = response.ok ? servedModels(body) : undefined;
  if (served && served.length > 0 && !served.includes(endpoint.model)) {
    throw new CorralError(
      'CFG_ERR_INVALID',
      `preflight: ${endpoint.baseURL} serves ${served.slice(0, 10).join(', ')}, not '${endpoint.model}': fix --model, ${SKIP}`,
    );
  }
  log(`preflight: model endpoint ${endpoint.baseURL} answers (GET /models: HTTP ${response.status})`);
}

function servedModels(body: string): string[] | undefined {
  try {
    const data = (JSON.parse(body) as { data?: { id?: unknown }[] }).data;
    return Array.isArray(data) ? data.map((entry) => entry?.id).filter((id): id is string => typeof id === 'string') : undefined;
  } catch {
    return undefined;
  }
}
