/**
 * `corral worker --redis <url>`: joins the pool of rollout workers. It holds the built-in environments and those
 * named with --env, runs rollouts of the jobs whose capability key (environment + backend) it serves with its
 * own sandbox pool, stores each record in Redis before acknowledging its job, heartbeats into the worker
 * registry, and serves /metrics on --metrics-port. Prints {"event":"worker.ready",...} on stdout once it takes
 * jobs. SIGTERM drains (running rollouts finish and are stored; no new ones start) and exits 0; a second
 * SIGTERM cancels the running rollouts, whose jobs go back to the queue when their lease runs out.
 */
import { createServer } from 'node:http';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { z } from 'zod';
import { loadConfig } from '../../config/load-config.js';
import { CorralError } from '../../core/errors.js';
import { CLI_AGENT_NAMES } from '../../cli-agents/cli-agent-registry.js';
import { environmentCache } from '../../environment-packages/environment-cache.js';
import { assertRedisAnswers, openRedis, parseRedisUrl, redactedRedisUrl } from '../../queue/redis-connection.js';
import { RolloutWorker } from '../../queue/rollout-worker.js';
import { AdmissionController } from '../../runner/run/admission/admission-controller.js';
import { workerMetrics } from '../../queue/worker-metrics.js';
import { builtInAgents } from '../../runner/agents/baseline/baseline-agents.js';
import { loadServedEnvironments } from '../runtime/served-environments.js';
import { chooseBackend } from './backend-choice.js';
import { createWorkerRollouts } from './worker-rollouts.js';
import { createWorkerTrials } from './worker-trials.js';
import { corralCacheDirectory } from '../../core/cache-directory.js';
import { taskFolderAt } from '../../environment-packages/task-folder.js';
import { builtInEnvironments } from '../../runner/environments/index.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const workerFlagsSchema = z
  .object({
    redis: z.string({ error: '--redis <url> is required, e.g. --redis redis://127.0.0.1:6379' }),
    backend: z.enum(['docker', 'process', 'isolate', 'auto']).default('auto'),
    concurrency: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(1024)], { message: "'auto' or a whole number 1-1024" }).default('auto'),
    maxConcurrency: z.coerce.number().int().min(1).max(1024).default(256),
    env: z.array(z.string()).default([]),
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, dot, dash and underscore, at most 64')
      .optional(),
    metricsPort: z.coerce.number().int().min(0).max(65535).optional(),
    metricsHost: z.string().default('127.0.0.1'),
    leaseMs: z.coerce.number().int().min(1_000).default(30_000),
    dataDir: z.string().optional(),
  })
  .strict();

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description("join a pool of rollout workers on Redis: run queued rollouts (corral eval --queue, corral serve --queue) with this machine's sandboxes")
    .requiredOption('--redis <url>', "the queue's Redis, e.g. redis://10.0.0.5:6379")
    .option('--backend <name>', 'sandbox backend: docker | process | isolate | auto (isolate: only rollouts that accept any backend)', 'auto')
    .option(
      '-c, --concurrency <n|auto>',
      "rollouts run at once: auto (this worker's own admission control: ramps up, backs off on 429/503, timeouts, rising latency, sandbox waits, memory pressure) or a fixed number",
      'auto',
    )
    .option('--max-concurrency <n>', 'the ceiling of -c auto', '256')
    .option(
      '--env <name|path>',
      'also hold this environment (package name, module file, package folder, or a Harbor / Terminal-Bench task folder at the path the producer names; repeatable)',
      collect,
    )
    .option('--name <id>', 'worker name shown in status and recorded with each rollout (default <host>-<pid>)')
    .option('--metrics-port <port>', 'serve Prometheus /metrics on this port')
    .option('--metrics-host <host>', 'interface for /metrics', '127.0.0.1')
    .option('--lease-ms <ms>', "a job's lease: a worker silent this long loses its jobs to the others", '30000')
    .option('--data-dir <dir>', 'evaluation data directory (CORRAL_DATA_DIR)')
    .action(async (rawFlags: Record<string, unknown>) => {
      const parsed = workerFlagsSchema.safeParse(rawFlags);
      if (!parsed.success)
        throw new CorralError(
          'CFG_ERR_INVALID',
          `corral worker: ${parsed.error.issues.map((issue) => `--${String(issue.path[0])}: ${issue.message}`).join('; ')}`,
        );
      const flags = parsed.data;
      const name = flags.name ?? `${hostname()}-${process.pid}`;
      const log = (line: string) => process.stderr.write(`[worker ${name}] ${line}\n`);
      const redisUrl = parseRedisUrl(flags.redis, '--redis');
      const config = loadConfig({
        flags: { backend: flags.backend === 'isolate' ? 'auto' : flags.backend, ...(flags.dataDir ? { dataDir: flags.dataDir } : {}), minIdle: '0' },
      });
      const probe = openRedis(redisUrl);
      await assertRedisAnswers(probe, redisUrl).catch(async (error: unknown) => {
        probe.disconnect();
        throw error;
      });
      // Task folders (Harbor / Terminal-Bench) are served as trials (worker-trials.ts); the rest as MCP-episode environments.
      const taskFolders = flags.env.map((spec) => taskFolderAt(spec, Object.keys(builtInEnvironments))).filter((path) => path !== undefined);
      const environmentSpecs = flags.env.filter((spec) => taskFolderAt(spec, Object.keys(builtInEnvironments)) === undefined);
      const served = await loadServedEnvironments(environmentSpecs, { cache: environmentCache(config), log, loadTimeoutMs: config.environments.loadTimeoutMs });
      const backend = await chooseBackend(config, log);
      if (taskFolders.length > 0 && backend !== 'docker')
        throw new CorralError(
          'SBX_ERR_UNAVAILABLE',
          `--env ${taskFolders[0]} is a task folder: its trials run in Docker, and this worker's backend is ${backend} (use --backend docker)`,
        );
      // The worker's own controller (docs/admission.md): it paces this worker's rollouts by the load they meet here.
      const admission =
        flags.concurrency === 'auto'
          ? new AdmissionController({ mode: 'auto', maxConcurrency: flags.maxConcurrency })
          : new AdmissionController({ mode: 'fixed', maxConcurrency: flags.concurrency });
      const rollouts = createWorkerRollouts({ served, config, log, loadObserver: admission });
      const trials = createWorkerTrials({ folders: taskFolders, cacheDirectory: corralCacheDirectory(config.cache.dir), log });
      const trialQueues = new Set(trials.names());
      const worker = await RolloutWorker.start({
        redisUrl,
        name,
        backend: flags.backend === 'isolate' ? 'isolate' : backend,
        concurrency: admission,
        leaseMs: flags.leaseMs,
        capabilities: {
          backends: flags.backend === 'isolate' ? ['isolate'] : [backend],
          environments: [...served.names(), ...trials.names()],
          agents: [
            'openai',
            ...Object.keys(builtInAgents),
            ...(backend === 'docker' ? CLI_AGENT_NAMES : []),
            ...(taskFolders.length > 0 ? ['oracle', 'nop'] : []),
          ],
          images: backend === 'docker' ? [config.sandbox.image] : [],
        },
        jobRunner: { run: (job, context) => (trialQueues.has(job.environment.name) ? trials.run(job, context) : rollouts.run(job, context)) },
        log,
      });
      const metrics = workerMetrics(worker, probe, () => rollouts.poolStats());
      const server =
        flags.metricsPort === undefined
          ? undefined
          : createServer((request, response) => {
              if (request.url !== '/metrics') {
                response.writeHead(404).end();
                return;
              }
              metrics.registry.metrics().then(
                (body) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
                (error: Error) => response.writeHead(500).end(error.message),
              );
            });
      if (server) await new Promise<void>((resolve) => server.listen(flags.metricsPort, flags.metricsHost, resolve));
      const metricsPort = server ? (server.address() as { port: number }).port : null;
      // Before the ready line: a supervisor may send SIGTERM the moment it reads it.
      let draining = false;
      const stop = async (signal: string) => {
        if (draining) {
          log(`${signal} again: cancelling running rollouts (their jobs return to the queue after the lease)`);
          worker.abortRunning();
          return;
        }
        draining = true;
        log(`${signal}: draining (${worker.stats.running} running; no new jobs)`);
        try {
          await worker.drain();
          await metrics.close();
          server?.close();
          await rollouts.close();
          await trials.close();
          probe.disconnect();
          log(`drained: ${worker.stats.completed} completed, ${worker.stats.errored} errored, ${worker.stats.duplicates} duplicates skipped`);
        } catch (error) {
          log(`drain failed: ${(error as Error).message}; jobs not acknowledged return to the queue after the lease`);
        }
        process.exit(0);
      };
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGINT', () => void stop('SIGINT'));
      log(
        `serving ${worker.queues.join(', ')} from ${redactedRedisUrl(redisUrl)} (backend ${backend}, concurrency ${flags.concurrency === 'auto' ? `auto (max ${flags.maxConcurrency})` : flags.concurrency}, lease ${flags.leaseMs} ms)`,
      );
      process.stdout.write(`${JSON.stringify({ event: 'worker.ready', name, queues: worker.queues, backend, metrics_port: metricsPort, pid: process.pid })}\n`);
    });
}
