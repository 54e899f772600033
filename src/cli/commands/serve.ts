import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { buildServer } from '../../http/build-server.js';
import { bindsAllInterfaces } from '../../http/request-guards.js';
import { createRolloutService } from '../runtime/rollout-service.js';
import { withTrialRollouts } from '../runtime/trial-rollout-service.js';
import { corralCacheDirectory } from '../../core/cache-directory.js';
import { taskFolderAt } from '../../environment-packages/task-folder.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import { withConformanceEnvironment } from '../../conformance/conformance-environment.js';
import { openBackendProbe } from './backend-choice.js';
import { listenOrExplain } from './listen-or-explain.js';
import { startToolRuntime } from '../runtime/tool-runtime.js';
import { environmentCache } from '../../environment-packages/environment-cache.js';
import { reloadableServedEnvironments } from '../runtime/environment-reload.js';
import { createEpisodeService } from '../runtime/episode-service.js';
import { loadServedEnvironments } from '../runtime/served-environments.js';
import { parseRedisUrl, redactedRedisUrl } from '../../queue/redis-connection.js';
import { queuedRollouts, refusingClientKeys } from './serve-queued-rollouts.js';

interface ServeFlags {
  host?: string;
  port?: string;
  token?: string;
  backend?: string;
  corpus?: string[];
  envLoadTimeoutMs?: string;
  dataDir?: string;
  idleTtlMs?: string;
  episodeIdleTtlMs?: string;
  maxSandboxes?: string;
  minIdle?: string;
  image?: string;
  reuse?: string;
  dockerSocket?: string;
  conformanceFixtures?: boolean;
  env?: string[];
  viewDir?: string;
  queue?: string;
}

/**
 * `corral serve`: every environment over Streamable HTTP (/mcp/<env>) and WebSocket (/ws/<env>), rollouts
 * (POST /v1/rollouts) and episodes (POST /v1/episodes) of the built-in environments and of those the operator
 * names with --env, until SIGTERM.
 */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the tool environments as MCP servers (Streamable HTTP and WebSocket) backed by pooled sandboxes')
    .option('--host <host>', 'interface to bind (default 127.0.0.1; CORRAL_HOST)')
    .option('--port <port>', 'port (default 7777; CORRAL_PORT)')
    .option('--token <token>', 'require Authorization: Bearer <token> (CORRAL_TOKEN)')
    .option('--backend <backend>', 'sandbox backend for python/shell/files: docker | process | auto (CORRAL_BACKEND)')
    .option(
      '--corpus <path...>',
      'wiki corpora: pages.jsonl (.gz) files, folders of .md, or one disk index dir from `corral wiki index` (default: wiki/*/pages.jsonl under CORRAL_DATA_DIR)',
    )
    .option('--data-dir <dir>', 'evaluation data directory (CORRAL_DATA_DIR)')
    .option('--idle-ttl-ms <ms>', 'release sandboxes of sessions idle this long (CORRAL_IDLE_TTL_MS)')
    .option('--max-sandboxes <n>', 'most sandboxes alive at once per spec (default 256; CORRAL_MAX_SANDBOXES)')
    .option('--min-idle <n>', 'warm sandboxes kept ready (default 2; CORRAL_MIN_IDLE)')
    .option('--image <image>', 'docker image of the sandboxes (default corral/python:latest; CORRAL_IMAGE)')
    .option('--reuse <mode>', 'after release: destroy | reset (default destroy; CORRAL_REUSE)')
    .option('--docker-socket <path>', 'Docker daemon socket (default: unix DOCKER_HOST, else /var/run/docker.sock; CORRAL_DOCKER_SOCKET)')
    .option('--sandbox-uid <uid>', 'uid process-backend sandboxes run as, never 0 (default 58000; CORRAL_SANDBOX_UID)')
    .option(
      '--env <name|path...>',
      'also serve these environments (installed package name, module file, package folder, or a Harbor task folder for POST /v1/rollouts trials; repeatable)',
    )
    .option(
      '--env-load-timeout-ms <ms>',
      'an --env module that takes longer to import fails with ENV_ERR_LOAD_TIMEOUT (default 60000; CORRAL_ENV_LOAD_TIMEOUT_MS)',
    )
    .option('--episode-idle-ttl-ms <ms>', 'release episodes idle this long (default 600000; CORRAL_EPISODE_IDLE_TTL_MS)')
    .option('--view-dir <dir>', 'runs shown by the run viewer at /view (default runs/)', 'runs')
    .option('--conformance-fixtures', "also serve /mcp/conformance: the MCP conformance suite's test_* tools, resources and prompts")
    .option('--queue <redis-url>', 'POST /v1/rollouts enqueues its rollouts for corral worker processes on this Redis (episodes still run here)')
    .action(async (flags: ServeFlags) => {
      const log = (line: string) => process.stderr.write(`[corral serve] ${line}\n`);
      const { corpus, conformanceFixtures, env: environmentSpecs, viewDir, queue, ...configFlags } = flags;
      const config = loadConfig({ flags: configFlags });
      // Resolved before anything starts: an --env that does not load stops serve with its error.
      // Task folders (Harbor / Terminal-Bench) are served as trials for /v1/rollouts (trial-rollout-service.ts).
      const taskFolders = (environmentSpecs ?? []).map((spec) => taskFolderAt(spec, Object.keys(builtInEnvironments))).filter((path) => path !== undefined);
      const served = await loadServedEnvironments(
        (environmentSpecs ?? []).filter((spec) => taskFolderAt(spec, Object.keys(builtInEnvironments)) === undefined),
        {
          cache: environmentCache(config),
          log,
          loadTimeoutMs: config.environments.loadTimeoutMs,
        },
      );
      const runtime = await startToolRuntime(config, { corpusPaths: corpus, minIdle: config.sandbox.minIdle, loadWiki: true, log });
      // --env modules and packages are imported again on SIGHUP (environment-reload.ts).
      const reloadable = await reloadableServedEnvironments(runtime.catalog, served, {
        wiki: runtime.wiki,
        log,
        loadTimeoutMs: config.environments.loadTimeoutMs,
      });
      const environments = conformanceFixtures ? withConformanceEnvironment(reloadable.catalog) : reloadable.catalog;
      const redisUrl = queue === undefined ? undefined : parseRedisUrl(queue, '--queue');
      const localOrQueued = createRolloutService({
        runtime,
        dataDir: config.data.dataDir,
        server: config.server,
        environments: await served.withoutArguments(),
        // Bound per request to its env_args; after a SIGHUP reload, to the reloaded definition.
        bind: (name, envArgs) => served.bind(name, envArgs),
        ...(redisUrl ? { queuedExecutor: queuedRollouts({ redisUrl, server: config.server, log }) } : {}),
      });
      const environmentRollouts = redisUrl ? refusingClientKeys(localOrQueued) : localOrQueued;
      const rollouts =
        taskFolders.length === 0
          ? environmentRollouts
          : withTrialRollouts(environmentRollouts, {
              folders: taskFolders,
              cacheDirectory: corralCacheDirectory(config.cache.dir),
              server: config.server,
              log,
            });
      if (redisUrl) log(`POST /v1/rollouts runs on queue workers at ${redactedRedisUrl(redisUrl)}; episodes run here`);
      const episodes = createEpisodeService({ runtime, environments: served, dataDir: config.data.dataDir, server: config.server });
      // Structured request logs (fastify's pino, JSON lines) on stderr; CORRAL_LOG_LEVEL=silent turns them off.
      const logger = { level: process.env.CORRAL_LOG_LEVEL ?? 'info', stream: process.stderr };
      const backendProbe = await openBackendProbe(config, runtime.backend);
      const closeRuntime = async () => {
        await runtime.close();
        await backendProbe.close();
      };
      const app = buildServer(config, {
        environments,
        admission: () => localOrQueued.admission.snapshot(),
        sandboxSource: runtime.sandboxSource,
        pool: runtime.pool,
        rollouts,
        episodes,
        logger,
        readiness: () => backendProbe.readiness(),
        viewerRoot: resolve(viewDir ?? 'runs'),
      });
      if (bindsAllInterfaces(config.server)) {
        log(
          `WARNING: binding ${config.server.host || 'all interfaces'}: reachable from other machines${config.server.token ? '' : ' WITHOUT a token (set --token)'}`,
        );
      }
      const address = await listenOrExplain(app, config.server, closeRuntime);
      log(`listening on ${address} (backend ${runtime.backend}; environments: ${environments.names().join(', ')})`);
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        log(`${signal}: closing sessions and releasing sandboxes`);
        await app.close();
        await closeRuntime();
        process.exit(0);
      };
      process.once('SIGTERM', () => void stop('SIGTERM'));
      process.once('SIGINT', () => void stop('SIGINT'));
      process.on('SIGHUP', () => {
        log('SIGHUP: reloading the --env environments');
        void reloadable.reload();
      });
    });
}
