/**
 * POST /v1/rollouts for the task folders `corral serve --env <task folder>` serves: a request naming one
 * (`terminal-<folder name>`, as the queue names it) runs its tasks as trials with the trial openai agent (the
 * request's model, behind serve's model endpoint policy), through the same openTrialRuntime as `corral eval` and the
 * same run driver, with each group streamed to the client. Other names go to the environment rollout service.
 * Trial folders are written under the server's cache, `<cache>/served-trials/<request id>/`.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { CorralError } from '../../core/errors.js';
import type { PreparedRollouts, RolloutRequest, RolloutService } from '../../http/rollouts-contract.js';
import { ModelEndpointPolicy } from '../../runner/agents/openai/model-endpoint-policy.js';
import { ModelHttpClient } from '../../runner/agents/openai/model-http-client.js';
import type { OpenAIAgent } from '../../runner/agents/openai/openai-agent.js';
import type { Example } from '../../runner/contract/environment.js';
import { runDriver } from '../../runner/run/run-driver.js';
import { ExpiringRollouts } from './expiring-rollouts.js';
import { rolloutRunStats } from './rollout-run-stats.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import { openDockerConnection } from '../../sandbox/docker/docker-connection.js';
import { loadTaskDataset } from '../../terminal/dataset-loader.js';
import { taskExample } from '../../terminal/trial/trial-executor.js';
import { createOpenAIAgent } from '../eval/agent-factory.js';
import { taskFolderEnvironmentName } from '../eval/terminal-queue.js';
import { openTrialRuntime } from '../eval/terminal-run.js';
import { terminalOpenAIAgent } from '../eval/terminal-openai-agent.js';

export interface TrialRolloutOptions {
  /** Absolute task folders served, as `corral serve --env` named them. */
  folders: readonly string[];
  cacheDirectory: string;
  /** config.server: model endpoints the server may call (internal addresses only when bound to loopback). */
  server: { host: string; modelEndpointAllowlist?: readonly string[] };
  log: (line: string) => void;
}

const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** `environments` with the served task folders in front: requests naming a task folder run trials. */
export function withTrialRollouts(environments: RolloutService, options: TrialRolloutOptions): RolloutService {
  const folderByName = new Map(options.folders.map((folder) => [taskFolderEnvironmentName(folder), folder]));
  const policy = new ModelEndpointPolicy({
    allow: options.server.modelEndpointAllowlist ?? [],
    refuseInternal: !isLoopbackHost(options.server.host),
  });
  const guardedHttp = new ModelHttpClient(policy);
  return {
    async prepare(request, context): Promise<PreparedRollouts> {
      const folder = folderByName.get(request.env);
      if (folder === undefined) return environments.prepare(request, context);
      if (request.examples) throw invalidField('examples', `${request.env} is a task folder: name its tasks with example_ids (inline examples are not tasks)`);
      if (request.canaries !== undefined)
        throw invalidField(
          'canaries',
          `${request.env} is a task folder: canaries run for environments only (corral env check <task folder> checks oracle and nop)`,
        );
      const dataset = await loadTaskDataset(folder);
      const examples = selectTasks(dataset.tasks.map(taskExample), request);
      await policy.assertAllowed(new URL(request.model.base_url));
      const model = createOpenAIAgent({
        model: request.model.model,
        baseURL: request.model.base_url,
        ...(request.model.api_key === undefined ? {} : { apiKey: request.model.api_key }),
        samplingArgs: request.sampling_args ?? {},
        ...(request.model.timeout_ms === undefined ? {} : { requestTimeoutMs: request.model.timeout_ms }),
        ...(request.model.max_retries === undefined ? {} : { maxRetries: request.model.max_retries }),
        clientEndpoint: {
          httpClient: guardedHttp,
          onWithheld: (error, input) => options.log(`model endpoint failed for ${input.example.id}#${input.rolloutIndex} (detail withheld): ${error.message}`),
        },
      });
      const agent = terminalOpenAIAgent(model as OpenAIAgent, request.max_turns ? { maxTurns: request.max_turns } : {});
      const rolloutsPerExample = request.rollouts_per_example;
      return {
        env: request.env,
        model: agent.model,
        numExamples: examples.length,
        rolloutsPerExample,
        async run({ abortSignal, onGroup, expiry, onCancelled }) {
          // deadline / max_staleness, as for environments (rollout-service.ts).
          const expiring = expiry ? new ExpiringRollouts(expiry, examples, rolloutsPerExample) : undefined;
          const records: ResultRecord[] = [];
          const { docker, close: closeDocker } = openDockerConnection();
          const directory = join(options.cacheDirectory, 'served-trials', randomUUID());
          const settings = { tasks: folder, timeout_multiplier: 1, forbid_egress: false, base_image_map: null };
          try {
            const runtime = await openTrialRuntime({
              docker,
              tasks: dataset.tasks,
              settings,
              agent,
              buildLogDirectory: join(directory, 'build-logs'),
              log: options.log,
            });
            try {
              await runDriver({
                task: request.env,
                examples,
                rolloutsPerExample,
                concurrency: request.max_concurrency ?? 4,
                executor: expiring ? expiring.wrap(runtime.executorFor(directory)) : runtime.executorFor(directory),
                sink: {
                  existing: [],
                  writeGroup: (group) => {
                    if (expiring && !expiring.streamGroup(group)) return;
                    records.push(...group);
                    onGroup(group);
                  },
                },
                abortSignal: expiring ? expiring.signal(abortSignal) : abortSignal,
                log: options.log,
              });
              if (expiring && !abortSignal.aborted) onCancelled?.(expiring.cancelled());
            } finally {
              await runtime.close();
            }
          } finally {
            await model.close?.().catch(() => undefined);
            closeDocker();
          }
          return rolloutRunStats(records);
        },
      };
    },
  };
}

function selectTasks(tasks: readonly Example[], request: RolloutRequest): Example[] {
  if (!request.example_ids) return tasks.slice(0, request.n);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const missing = request.example_ids.filter((id) => !byId.has(id));
  if (missing.length > 0)
    throw invalidField('example_ids', `no task named ${missing.slice(0, 5).join(', ')} in ${request.env}`, { missing: missing.slice(0, 50) });
  return request.example_ids.map((id) => byId.get(id)!);
}

const invalidField = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new CorralError('CFG_ERR_INVALID', `${field}: ${message}`, { details: { field, ...details } });
