/**
 * What a `corral worker` runs for each queued job: the environment it holds under the job's name, bound to the
 * job's env args (cached per argument set), its tools and sandbox pool (opened once per bound environment, as
 * `corral eval` opens them once per run), the job's agent (cached per agent config; the API key is the worker's
 * own OPENAI_API_KEY, never sent through Redis), and the local executor: the same record a local run writes.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { CorralConfig } from '../../config/load-config.js';
import { CorralError } from '../../core/errors.js';
import { stableStringify } from '../../core/stable-hash.js';
import type { JobRunner } from '../../queue/rollout-worker.js';
import type { RolloutJob } from '../../queue/rollout-job.js';
import type { Agent } from '../../runner/agents/agent.js';
import type { Environment } from '../../runner/contract/environment.js';
import { ModelEndpointPolicy } from '../../runner/agents/openai/model-endpoint-policy.js';
import { ModelHttpClient } from '../../runner/agents/openai/model-http-client.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import type { LoadObserver } from '../../runner/run/admission/load-signals.js';
import { localExecutor } from '../../runner/run/local-executor.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import type { BucketStats } from '../../sandbox/pool/spec-bucket.js';
import { createAgent, createOpenAIAgent } from '../eval/agent-factory.js';
import { type EnvironmentTools, openEnvironmentTools } from '../eval/environment-tools.js';
import { loadModuleAgents } from '../eval/module-agents.js';
import type { ServedEnvironment, ServedEnvironments } from '../runtime/served-environments.js';
import { assertJobWithinWorkerPolicy } from './worker-sandbox-policy.js';

export interface WorkerRollouts extends JobRunner {
  poolStats(): BucketStats[];
  close(): Promise<void>;
}

export function createWorkerRollouts(options: {
  served: ServedEnvironments;
  config: CorralConfig;
  log: (line: string) => void;
  /** The worker's admission controller: hears each pool's acquire waits at its max (more rollouts would only wait too). */
  loadObserver?: LoadObserver;
}): WorkerRollouts {
  const tools = new Map<string, Promise<{ environment: Environment; tools: EnvironmentTools }>>();
  const agents = new Map<string, Promise<Agent>>();
  const runtimes: EnvironmentTools['runtime'][] = [];

  const prepared = (job: RolloutJob) => {
    const corpus = job.environment.corpus?.filter((path) => existsSync(path));
    const key = stableStringify([job.environment.name, job.environment.args, job.environment.max_turns, corpus ?? null]);
    let entry = tools.get(key);
    if (!entry) {
      entry = (async () => {
        const bound = await options.served.bind(job.environment.name, job.environment.args);
        const environment = job.environment.max_turns ? Object.freeze({ ...bound, maxTurns: job.environment.max_turns }) : bound;
        const opened = await openEnvironmentTools(environment, options.config, { ...(corpus && corpus.length > 0 ? { corpus } : {}), log: options.log });
        runtimes.push(opened.runtime);
        const observer = options.loadObserver;
        if (observer)
          opened.runtime.pool.onAcquireWait((event) => {
            if (event.atCapacity) observer.observe({ kind: 'sandbox-wait', startedAtMs: event.startedAtMs, waitMs: event.waitMs });
          });
        return { environment, tools: opened };
      })();
      tools.set(key, entry);
      entry.catch(() => tools.delete(key));
    }
    return entry;
  };

  const agentFor = (job: RolloutJob, served: ServedEnvironment) => {
    const key = stableStringify([job.environment.name, job.agent]);
    let entry = agents.get(key);
    if (!entry) {
      entry = (async () => {
        const moduleAgents = await loadModuleAgents(modulePath(served) ?? served.name, Object.keys(builtInEnvironments));
        if (job.agent.endpoint_guard) return guardedAgent(job, options.log);
        const apiKey = process.env['OPENAI_API_KEY'];
        return createAgent(
          {
            agent: job.agent.name,
            model: job.agent.model,
            baseUrl: job.agent.base_url,
            ...(apiKey ? { apiKey } : {}),
            samplingArgs: job.agent.sampling_args,
            modelTimeoutS: job.agent.model_timeout_s,
            modelRetries: job.agent.model_retries,
          },
          moduleAgents,
          options.log,
        );
      })();
      agents.set(key, entry);
      entry.catch(() => agents.delete(key));
    }
    return entry;
  };

  return {
    async run(job, context): Promise<ResultRecord> {
      const served = options.served.get(job.environment.name);
      if (!served)
        throw new CorralError(
          'QUEUE_ERR_NO_ENVIRONMENT',
          `this worker holds no environment named ${job.environment.name} (it holds ${options.served.names().join(', ')}); start it with --env ${job.environment.source}`,
        );
      const [{ environment, tools: opened }, agent] = await Promise.all([prepared(job), agentFor(job, served)]);
      assertJobWithinWorkerPolicy(job, environment, opened.runtime.specs.general);
      // The local executor: the same composition (and record) as a local `corral eval`; the queue retries, not it.
      const record = await localExecutor({
        environment,
        agent,
        rollouts: opened.rollouts,
        ...(job.seed === null ? {} : { seed: job.seed }),
      }).run({ example: job.example, rolloutIndex: job.rollout_index, attempt: context.attempt, abortSignal: context.abortSignal });
      // The local executor answers undefined only for a rollout cancelled before it began: this worker is stopping.
      if (!record) throw new CorralError('RUNNER_ERR_CANCELLED', `rollout ${job.example.id}#${job.rollout_index} cancelled: this worker is stopping`);
      return record;
    },
    poolStats() {
      return runtimes.flatMap((runtime) => runtime.pool.stats());
    },
    async close() {
      for (const entry of agents.values()) await (await entry.catch(() => undefined))?.close?.().catch(() => undefined);
      for (const runtime of runtimes) await runtime.close().catch(() => undefined);
    },
  };
}

/**
 * A `corral serve --queue` rollout: the endpoint is the remote client's, so no key of this worker goes there, the
 * server's endpoint policy is applied again at connect time (DNS rebinding included), and what the endpoint
 * answered in an error stays in this worker's log; the record gets the status and code only.
 */
function guardedAgent(job: RolloutJob, log: (line: string) => void): Agent {
  const guard = job.agent.endpoint_guard!;
  if (!job.agent.model || !job.agent.base_url) throw new CorralError('QUEUE_ERR_INVALID_JOB', 'a served rollout job needs agent.model and agent.base_url');
  return createOpenAIAgent({
    model: job.agent.model,
    baseURL: job.agent.base_url,
    samplingArgs: job.agent.sampling_args,
    requestTimeoutMs: job.agent.model_timeout_s * 1000,
    maxRetries: job.agent.model_retries,
    clientEndpoint: {
      httpClient: new ModelHttpClient(new ModelEndpointPolicy({ allow: guard.allow, refuseInternal: guard.refuse_internal })),
      onWithheld: (error, input) =>
        log(`model endpoint failed for ${input.example.id}#${input.rolloutIndex} (detail withheld from the record): ${error.message}`),
    },
  });
}

function modulePath(served: ServedEnvironment): string | null {
  const source = served.source;
  if (source.kind === 'module') return source.path;
  if (source.kind === 'package' && 'module' in source) return isAbsolute(source.module) ? source.module : join(source.path, source.module);
  return null;
}
