/**
 * The runner side of POST /v1/rollouts, built by `corral serve` and handed to buildServer: the same composition
 * as `corral eval` (a built-in environment, in-process MCP tool sessions over the server's pool, the run driver
 * with the local or the queued executor, the OpenAI agent), except that the examples and the model come from the request and the records go to the
 * HTTP stream instead of results.jsonl.
 */
import { CorralError } from '../../core/errors.js';
import { stableStringify } from '../../core/stable-hash.js';
import type { PreparedRollouts, RolloutLog, RolloutRequest, RolloutService } from '../../http/rollouts-contract.js';
import { ModelEndpointPolicy } from '../../runner/agents/openai/model-endpoint-policy.js';
import { ModelHttpClient } from '../../runner/agents/openai/model-http-client.js';
import type { Agent } from '../../runner/agents/agent.js';
import { createOpenAIAgent } from '../eval/agent-factory.js';
import { setUpCanaries } from '../eval/canary-setup.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import { bindEnvironmentArgs } from '../../runner/contract/environment-args.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import { harnessTestsFromInfo } from '../../runner/rubrics/python-test-harness.js';
import { collectExamples } from '../../runner/scheduler/dataset-stream.js';
import type { RolloutExecutor } from '../../runner/run/rollout-executor.js';
import { localExecutor } from '../../runner/run/local-executor.js';
import { runDriver } from '../../runner/run/run-driver.js';
import { AdmissionController } from '../../runner/run/admission/admission-controller.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import { buildSamples } from '../../runner/samples/build-samples.js';
import { addToTally, emptySampleTally } from '../../runner/samples/sample-tally.js';
import { tokenDataWarning } from '../../runner/samples/token-data-warning.js';
import { toolsForToolsets } from '../../mcp/toolsets.js';
import { environmentRolloutFactory } from './environment-rollouts.js';
import { ExpiringRollouts } from './expiring-rollouts.js';
import { exampleSandboxSource } from './example-sandbox-source.js';
import { rolloutRunStats } from './rollout-run-stats.js';
import type { ToolRuntime } from './tool-runtime.js';

export interface RolloutServiceOptions {
  runtime: Pick<ToolRuntime, 'pool' | 'specs' | 'sandboxSource' | 'wiki'>;
  /** Where environments read their default datasets (config.data.dataDir; else CORRAL_DATA_DIR). */
  dataDir: string | undefined;
  /**
   * Environments a client may name. Default: the built-ins. Never module paths: importing a file named by a
   * remote client would let it run code on the server.
   */
  environments?: Readonly<Record<string, () => Environment>>;
  /**
   * The served environment `name` bound to a request's env_args (ServedEnvironments.bind: ENV_ERR_NOT_SERVED,
   * ENV_ERR_INVALID_ARGS). Absent: `environments` are bound here, and they refuse arguments unless they declare an argsSchema.
   */
  bind?: (name: string, envArgs: Record<string, unknown> | undefined) => Promise<Environment>;
  /**
   * Ceiling on a request's max_concurrency, and of the admission controller that requests without one share
   * (default 256); the pool's max bounds sandboxes across requests anyway.
   */
  maxConcurrency?: number;
  /**
   * Where the server listens and which model endpoints it may call (config.server). Bound to loopback, the
   * caller is local and internal addresses are allowed; bound beyond it (or omitted), they are refused.
   */
  server?: { host: string; modelEndpointAllowlist?: readonly string[] };
  /**
   * `corral serve --queue`: the executor that runs the checked request's rollouts on queue workers instead of here
   * (serve-queued-rollouts.ts). Absent: the local executor in this process. The driver, groups and samples are the same.
   */
  queuedExecutor?: (input: QueuedRolloutsInput) => Promise<RolloutExecutor>;
}

export interface QueuedRolloutsInput {
  environment: Environment;
  request: RolloutRequest;
  /** Rollouts the request asks for (examples x rollouts per example). */
  plannedRollouts: number;
}

const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** The rollout service, with the admission controller its requests share (for /metrics). */
export interface AdmittingRolloutService extends RolloutService {
  admission: AdmissionController;
}

export function createRolloutService(options: RolloutServiceOptions): AdmittingRolloutService {
  // One controller across concurrent requests (those without max_concurrency): they share one endpoint and one pool.
  const admission = new AdmissionController({ mode: 'auto', maxConcurrency: options.maxConcurrency ?? 256 });
  options.runtime.pool.onAcquireWait((event) => {
    if (event.atCapacity) admission.observe({ kind: 'sandbox-wait', startedAtMs: event.startedAtMs, waitMs: event.waitMs });
  });
  const environments = options.environments ?? builtInEnvironments;
  const endpointPolicy = new ModelEndpointPolicy({
    allow: options.server?.modelEndpointAllowlist ?? [],
    refuseInternal: options.server === undefined || !isLoopbackHost(options.server.host),
  });
  // One guarded connection pool for every agent: each connection's own DNS lookup applies the policy (DNS rebinding).
  const guardedHttp = new ModelHttpClient(endpointPolicy);
  // Datasets are read once per environment (SQuAD dev is 10,570 questions); a failed read is not kept.
  // Keyed by environment and arguments: the arguments may change the dataset.
  const datasets = new Map<string, Promise<Example[]>>();
  const datasetOf = (environment: Environment): Promise<Example[]> => {
    const key = `${environment.name}\u0000${stableStringify(environment.envArgs ?? {})}`;
    let loading = datasets.get(key);
    if (!loading) {
      loading = Promise.resolve()
        .then(() => environment.dataset({ args: {}, dataDir: options.dataDir, envArgs: environment.envArgs ?? {} }))
        .then((source) => collectExamples(source));
      datasets.set(key, loading);
      loading.catch(() => datasets.delete(key));
    }
    return loading;
  };
  const boundEnvironment = async (request: RolloutRequest): Promise<Environment> => {
    if (options.bind) return options.bind(request.env, request.env_args);
    const factory = Object.hasOwn(environments, request.env) ? environments[request.env] : undefined;
    if (!factory) {
      throw new CorralError(
        'ENV_ERR_NOT_SERVED',
        `env: this server does not serve an environment named '${request.env}' (it serves ${Object.keys(environments).join(', ')}); the operator chooses them with corral serve --env, clients name one`,
        { details: { field: 'env', available: Object.keys(environments) } },
      );
    }
    const environment = factory();
    return request.env_args === undefined ? environment : bindEnvironmentArgs(environment, request.env_args);
  };

  return {
    admission,
    async prepare(request, { log }): Promise<PreparedRollouts> {
      const loaded = await boundEnvironment(request);
      const environment: Environment = request.max_turns ? Object.freeze({ ...loaded, maxTurns: request.max_turns }) : loaded;
      if (environment.toolsets.includes('wiki') && !options.runtime.wiki) {
        throw invalidField(
          'env',
          `${environment.name} needs the wiki tools, and this server loaded no wiki corpus (start corral serve with --corpus PATH or CORRAL_DATA_DIR)`,
        );
      }
      const tools = toolsForToolsets(environment.toolsets, { wiki: options.runtime.wiki });
      if (request.examples) checkInlineExamples(environment, request.examples);
      const examples = request.examples ?? selectExamples(await datasetOf(environment).catch(explainMissingDataset), request);
      // Refused before anything runs; the guarded pool refuses again at connect time.
      await endpointPolicy.assertAllowed(new URL(request.model.base_url));
      const agent = createAgent(request, guardedHttp, log);
      const rolloutsPerExample = request.rollouts_per_example;
      // max_concurrency: that many of this request's rollouts at once, as before; without it, the shared controller's level.
      const concurrency = request.max_concurrency === undefined ? admission : Math.min(request.max_concurrency, options.maxConcurrency ?? 256);
      // Inline examples are the client's: their sandbox choices (image, network) are ignored, as the episode API does.
      const rollouts = environmentRolloutFactory({
        environment,
        toolsetTools: tools,
        sandboxSourceFor: (example) => exampleSandboxSource(options.runtime, environment, example, { trustExample: request.examples === undefined }),
      });
      return {
        env: environment.name,
        model: agent.model,
        numExamples: examples.length,
        rolloutsPerExample,
        async run({ abortSignal, onGroup, onQuarantine, expiry, onCancelled }) {
          // deadline / max_staleness: past the cutoff nothing starts, what runs is aborted, and nothing more is streamed.
          const expiring = expiry ? new ExpiringRollouts(expiry, examples, rolloutsPerExample) : undefined;
          const records: ResultRecord[] = [];
          const tally = emptySampleTally();
          const warnOnce = tokenDataWarning((message) => log?.warn({ code: 'SAMPLES_TOKENS_MISSING' }, message));
          // Samples are built here, after either way of running (local or queued), by the one builder.
          const collect = (group: ResultRecord[]) => {
            if (expiring && !expiring.streamGroup(group)) return;
            records.push(...group);
            if (!request.samples) return onGroup(group);
            onGroup(
              group.map((record) => {
                const built = buildSamples(record);
                addToTally(tally, built);
                warnOnce(built);
                return { ...record, samples: built.samples };
              }),
            );
          };
          // The one decision: which executor runs the rollouts. The driver and the HTTP sink are the same for each.
          const chosen = options.queuedExecutor
            ? await options.queuedExecutor({ environment, request, plannedRollouts: examples.length * rolloutsPerExample })
            : localExecutor({ environment, agent, rollouts, ...(request.seed === undefined ? {} : { seed: request.seed }) });
          const executor = expiring ? expiring.wrap(chosen) : chosen;
          // Canaries run here, with the oracle and floor agents, whichever executor runs the request's own rollouts.
          const canaries =
            request.canaries === undefined
              ? undefined
              : setUpCanaries({ environment, rollouts, moduleAgents: {}, rate: request.canaries, log: () => undefined });
          const canaried = { examples: 0, quarantined: [] as string[] };
          await runDriver({
            task: environment.name,
            examples,
            rolloutsPerExample,
            concurrency,
            executor,
            // The HTTP sink: each whole group goes to the NDJSON stream; a request never resumes, so nothing exists before.
            sink: {
              existing: [],
              writeGroup: collect,
              writeCanary: (outcome) => {
                canaried.examples += 1;
                if (!outcome.quarantine) return;
                canaried.quarantined.push(outcome.example_id);
                onQuarantine?.({ ...outcome.quarantine });
              },
            },
            abortSignal: expiring ? expiring.signal(abortSignal) : abortSignal,
            ...(canaries ? { canaries: canaries.runner } : {}),
            log: (line) => log?.warn({}, line),
          });
          // A caller that went away hears nothing more; an expired request hears about each rollout it will not get.
          if (expiring && !abortSignal.aborted) onCancelled?.(expiring.cancelled());
          return {
            ...rolloutRunStats(records),
            ...(request.samples ? { samples: { ...tally } } : {}),
            ...(canaries ? { canaries: { canaried_examples: canaried.examples, quarantined: canaried.quarantined } } : {}),
          };
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
      throw invalidField(
        'example_ids',
        `${missing.length} id(s) not in the ${request.env} dataset: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`,
        { missing: missing.slice(0, 50) },
      );
    }
    return request.example_ids.map((id) => byId.get(id)!);
  }
  return dataset.slice(0, request.n);
}

/** The dataset errors name CLI flags; a remote client can only send examples inline or ask the operator. */
function explainMissingDataset(error: unknown): never {
  if (CorralError.hasCode(error, 'ENV_ERR_DATASET_NOT_FOUND') || CorralError.hasCode(error, 'ENV_ERR_DATASET_INVALID')) {
    throw invalidField(
      'env',
      `this server cannot read the environment's dataset (${error.message}); send the examples inline, or start corral serve with CORRAL_DATA_DIR set`,
    );
  }
  throw error;
}

function createAgent(request: RolloutRequest, httpClient: ModelHttpClient, log: RolloutLog | undefined): Agent {
  try {
    return createOpenAIAgent({
      model: request.model.model,
      baseURL: request.model.base_url,
      ...(request.model.api_key === undefined ? {} : { apiKey: request.model.api_key }),
      samplingArgs: request.sampling_args ?? {},
      ...(request.return_tokens ? { returnTokens: true } : {}),
      ...(request.token_in ? { tokenIn: true } : {}),
      ...(request.model.timeout_ms === undefined ? {} : { requestTimeoutMs: request.model.timeout_ms }),
      ...(request.model.max_retries === undefined ? {} : { maxRetries: request.model.max_retries }),
      clientEndpoint: {
        httpClient,
        onWithheld: (error, input) =>
          log?.warn(
            { err: error, code: error.code, exampleId: input.example.id, rolloutIndex: input.rolloutIndex },
            'model endpoint failed (detail withheld from the rollout caller)',
          ),
      },
    });
  } catch (error) {
    // The agent refuses sampling args it sets itself (model, messages, tools, stream, n).
    if (CorralError.hasCode(error, 'CFG_ERR_INVALID')) throw invalidField('sampling_args', error.message);
    throw error;
  }
}

/** Inline examples for an environment scored by tests_pass must carry tests, or every rollout would run only to error at scoring. */
function checkInlineExamples(environment: Environment, examples: readonly Example[]): void {
  if (!environment.rubric.some((item) => item.name === 'tests_pass')) return;
  const index = examples.findIndex((example) => harnessTestsFromInfo(example.info) === null);
  if (index < 0) return;
  throw invalidField(
    `examples.${index}.info`,
    `example '${examples[index]!.id}' has no tests: ${environment.name} scores by running them, so info needs format ('humaneval', 'mbpp' or 'mbpp-sanitized'), tests and, for humaneval, entry_point`,
  );
}

const invalidField = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new CorralError('CFG_ERR_INVALID', `${field}: ${message}`, { details: { field, ...details } });
