/**
 * The runner side of POST /v1/rollouts, built by `corral serve` and handed to buildServer: the same composition
 * as `corral eval` (a built-in environment, in-process MCP tool sessions over the server's pool, runEvaluation,
 * the OpenAI agent), except that the examples and the model come from the request and the records go to the
 * HTTP stream instead of results.jsonl.
 */
import { CorralError } from '../../core/errors.js';
import type { PreparedRollouts, RolloutRequest, RolloutService } from '../../http/rollouts-contract.js';
import { poolSandboxSource, type SandboxSource } from '../../mcp/sandbox-source.js';
import { OpenAIAgent } from '../../runner/agents/openai-agent.js';
import type { Environment, Example } from '../../runner/env/environment.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import { runEvaluation } from '../../runner/scheduler/run-evaluation.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import type { ToolRuntime } from '../commands/tool-runtime.js';
import { inProcessToolSessions, toolsForToolsets } from './in-process-tools.js';
import { summarise } from './run-summary.js';

export interface RolloutServiceOptions {
  runtime: Pick<ToolRuntime, 'pool' | 'specs' | 'sandboxSource' | 'wiki'>;
  /** Where environments read their default datasets (config.data.dataDir; else CORRAL_DATA_DIR). */
  dataDir: string | undefined;
  /**
   * Environments a client may name. Default: the built-ins. Never module paths: importing a file named by a
   * remote client would let it run code on the server.
   */
  environments?: Readonly<Record<string, () => Environment>>;
  /** Ceiling on a request's max_concurrency (default 256); the pool's max bounds sandboxes across requests anyway. */
  maxConcurrency?: number;
}

const DEFAULT_CONCURRENCY = 32;

export function createRolloutService(options: RolloutServiceOptions): RolloutService {
  const environments = options.environments ?? builtInEnvironments;
  // Datasets are read once per environment (SQuAD dev is 10,570 questions); a failed read is not kept.
  const datasets = new Map<string, Promise<Example[]>>();
  const datasetOf = (environment: Environment): Promise<Example[]> => {
    let loading = datasets.get(environment.name);
    if (!loading) {
      loading = Promise.resolve().then(() => environment.dataset({ args: {}, dataDir: options.dataDir }));
      datasets.set(environment.name, loading);
      loading.catch(() => datasets.delete(environment.name));
    }
    return loading;
  };

  return {
    async prepare(request): Promise<PreparedRollouts> {
      const factory = Object.hasOwn(environments, request.env) ? environments[request.env] : undefined;
      if (!factory) throw invalidField('env', `no environment named '${request.env}'`, { available: Object.keys(environments) });
      const loaded = factory();
      const environment: Environment = request.max_turns ? Object.freeze({ ...loaded, maxTurns: request.max_turns }) : loaded;
      if (environment.toolsets.includes('wiki') && !options.runtime.wiki) {
        throw invalidField('env', `${environment.name} needs the wiki tools, and this server loaded no wiki corpus (start corral serve with --corpus PATH or CORRAL_DATA_DIR)`);
      }
      const tools = toolsForToolsets(environment.toolsets, options.runtime.wiki);
      const examples = request.examples ?? selectExamples(await datasetOf(environment).catch(explainMissingDataset), request);
      const agent = createAgent(request);
      const rolloutsPerExample = request.rollouts_per_example;
      const concurrency = Math.min(request.max_concurrency ?? DEFAULT_CONCURRENCY, options.maxConcurrency ?? 256);
      const sandboxSource = sandboxSourceFor(environment, options.runtime);
      return {
        env: environment.name,
        model: agent.model,
        numExamples: examples.length,
        rolloutsPerExample,
        async run({ abortSignal, onGroup }) {
          const records: ResultRecord[] = [];
          await runEvaluation({
            environment,
            agent,
            tools: inProcessToolSessions(tools, sandboxSource),
            examples,
            rolloutsPerExample,
            concurrency,
            abortSignal,
            ...(request.seed === undefined ? {} : { seed: request.seed }),
            onGroup: (group) => {
              records.push(...group);
              onGroup(group);
            },
          });
          const summary = summarise(records);
          return { rollouts: summary.rollouts, errored: summary.errored, avg_reward: summary.avg_reward, metric_averages: summary.metrics, errors_by_code: summary.errorsByCode };
        },
      };
    },
  };
}

function selectExamples(dataset: readonly Example[], request: RolloutRequest): Example[] {
  if (request.example_ids) {
    const byId = new Map(dataset.map((example) => [example.id, example]));
    const missing = request.example_ids.filter((id) => !byId.has(id));
    if (missing.length > 0) {
      throw invalidField('example_ids', `${missing.length} id(s) not in the ${request.env} dataset: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`, { missing: missing.slice(0, 50) });
    }
    return request.example_ids.map((id) => byId.get(id)!);
  }
  return dataset.slice(0, request.n);
}

/** The dataset errors name CLI flags; a remote client can only send examples inline or ask the operator. */
function explainMissingDataset(error: unknown): never {
  if (CorralError.hasCode(error, 'ENV_ERR_DATASET_NOT_FOUND') || CorralError.hasCode(error, 'ENV_ERR_DATASET_INVALID')) {
    throw invalidField('env', `this server cannot read the environment's dataset (${error.message}); send the examples inline, or start corral serve with CORRAL_DATA_DIR set`);
  }
  throw error;
}

function createAgent(request: RolloutRequest): OpenAIAgent {
  try {
    return new OpenAIAgent({
      model: request.model.model,
      baseURL: request.model.base_url,
      // Never the server's OPENAI_API_KEY: it would be sent to whatever base_url the client chose.
      apiKey: request.model.api_key ?? 'EMPTY',
      samplingArgs: request.sampling_args ?? {},
      ...(request.model.timeout_ms === undefined ? {} : { requestTimeoutMs: request.model.timeout_ms }),
      ...(request.model.max_retries === undefined ? {} : { maxRetries: request.model.max_retries }),
    });
  } catch (error) {
    // The agent refuses sampling args it sets itself (model, messages, tools, stream, n).
    if (CorralError.hasCode(error, 'CFG_ERR_INVALID')) throw invalidField('sampling_args', error.message);
    throw error;
  }
}

/** The environment's sandbox overrides (python-code: reuse 'reset') make their own pool bucket, as in `corral eval`. */
function sandboxSourceFor(environment: Environment, runtime: RolloutServiceOptions['runtime']): SandboxSource {
  if (Object.keys(environment.sandbox).length === 0) return runtime.sandboxSource;
  return poolSandboxSource(runtime.pool, { ...runtime.specs, general: { ...runtime.specs.general, ...environment.sandbox } });
}

const invalidField = (field: string, message: string, details: Record<string, unknown> = {}) => new CorralError('CFG_ERR_INVALID', `${field}: ${message}`, { details: { field, ...details } });
