/**
 * `corral eval terminal --tasks <dir>`: every task of a Harbor / Terminal-Bench folder as trials (agent phase, then
 * the verifier in a fresh container), written as results.jsonl + metadata.json like every environment, with the
 * Harbor job layout beside them (result.json, one folder per trial). Same run directory, resume, progress, summary
 * and exit statuses as `corral eval`; only the rollout itself is a trial instead of an MCP episode: this file prepares
 * the run and hands the one eval flow (eval-flow.ts: the run driver and the results-file sink) the trial executor
 * (src/terminal/trial/trial-executor.ts), so groups, retries of transient failures, the heartbeat, --max-errors,
 * cancellation and the summary are every run's.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CorralError } from '../../core/errors.js';
import { describeEnvironmentSource } from '../../environment-packages/environment-source.js';
import { isOwnerAlive } from '../../core/owner.js';
import { corralCacheDirectory } from '../../core/cache-directory.js';
import { CLI_AGENT_NAMES, cliAgent } from '../../cli-agents/cli-agent-registry.js';
import { agentsCacheDirectory } from '../../cli-agents/installable-package.js';
import { loadConfig } from '../../config/load-config.js';
import { type ModelProxy, startModelProxy } from '../../model-proxy/model-proxy.js';
import { OpenAIAgent } from '../../runner/agents/openai/openai-agent.js';
import type { Example } from '../../runner/contract/environment.js';
import { type ResultRecord, resultKey } from '../../runner/trajectory/result-record.js';
import { ResultsWriter } from '../../runner/trajectory/results-writer.js';
import { openDockerConnection } from '../../sandbox/docker/docker-connection.js';
import { loadBaseImageMap } from '../../terminal/base-image-map.js';
import { loadTaskDataset } from '../../terminal/dataset-loader.js';
import { ensureHostFolder } from '../../terminal/host-folder.js';
import { writeHarborJobLayout } from '../../terminal/harbor-job-layout.js';
import { buildTaskImages } from '../../terminal/task-image-builder.js';
import type { TerminalTask } from '../../terminal/terminal-task.js';
import { nopAgent } from '../../terminal/trial/nop-agent.js';
import { oracleAgent } from '../../terminal/trial/oracle-agent.js';
import type { TrialAgent } from '../../terminal/trial/trial-agent.js';
import type Docker from 'dockerode';
import type { RolloutExecutor } from '../../runner/run/rollout-executor.js';
import { queuedTerminalEvaluation } from './terminal-queue.js';
import { requireDockerDaemon } from './require-docker-daemon.js';
import { TrialContainerPool } from '../../terminal/trial/trial-container-pool.js';
import { taskExample, trialExecutor } from '../../terminal/trial/trial-executor.js';
import { TERMINAL_ENVIRONMENT } from '../../terminal/trial/trial-record.js';
import { reapTrialLeftovers } from '../../terminal/trial/trial-reaper.js';
import { removeUnrecordedTrialFolders } from '../../terminal/trial/unrecorded-trial-folders.js';
import { createAgent } from './agent-factory.js';
import { cliTrajectoryJson, writeCliTrajectory } from './cli-rollout-record.js';
import { terminalCliAgent } from './terminal-cli-agent.js';
import { corralBuild } from './corral-build.js';
import { type EvalOptions, concurrencyCeiling, parseSamplingArgs, withTokenRequest } from './eval-options.js';
import { probeModelEndpoint } from './preflight.js';
import { taskFolderArgument } from './terminal-run-choice.js';
import { writeRunningMetadata } from '../../runner/run/results-file-sink.js';
import type { RunCommand } from './run-command.js';
import { defaultRunDirectory, readResumedMetadata, refuseOccupiedRunDirectory } from './run-directory.js';
import { refuseActiveRun } from './refuse-active-run.js';
import { thisWriter } from '../../runner/run/run-liveness.js';
import type { EvalExecution } from './eval-flow.js';
import { terminalOpenAIAgent } from './terminal-openai-agent.js';

export const TERMINAL_AGENTS = ['oracle', 'nop', 'openai', ...CLI_AGENT_NAMES] as const;

/** What a terminal run is, beyond RunCommand; stored in metadata.json as `terminal` so --resume keeps it. */
export interface TerminalSettings {
  tasks: string;
  timeout_multiplier: number;
  /** --no-internet: public tasks get no network either. */
  forbid_egress: boolean;
  base_image_map: string | null;
  /** --keep-file-system: each trial keeps the agent's final file system for `corral rescore` (absent in older runs). */
  keep_file_system?: boolean;
}

/** What `corral eval` hands the one eval flow for a terminal run: the trial executor and how the run is described. */
export interface TerminalEvaluation {
  execution: EvalExecution;
  directory: string;
  examples: Example[];
  rolloutsPerExample: number;
  plannedRollouts: number;
  startedAt: number;
}

/**
 * Everything before the first trial (`environmentArgument`: `terminal` with --tasks, a task folder path, or undefined
 * with --resume): the run's settings, the checks that refuse a start (a run still being written, no Docker daemon,
 * no model endpoint), leftovers of dead runs, the task images; then the trial executor for the one eval flow.
 */
export async function prepareTerminalEvaluation(options: EvalOptions, log: (line: string) => void, environmentArgument?: string): Promise<TerminalEvaluation> {
  const { command, settings, directory, previous } = resolveRun(options, environmentArgument);
  // Like every run: never two writers on one run directory.
  if (previous) refuseActiveRun(previous, directory, log);
  const dataset = await loadTaskDataset(settings.tasks);
  for (const failure of dataset.failures) log(`error: ${failure.directory}: ${failure.code}: ${failure.message}`);
  const numExamples = command.num_examples;
  const tasks = numExamples < 0 ? dataset.tasks : dataset.tasks.slice(0, numExamples);
  if (tasks.length === 0) throw new CorralError('TASK_ERR_NOT_FOUND', `${settings.tasks}: no task loads (errors above)`);
  // Refused here (exit 2, nothing written), as for every environment, rather than every trial errored. A queued run's
  // trials run on the workers' Docker, and its CLI agents would need a model proxy per worker (not built yet).
  if (!options.queue) await requireDockerDaemon();
  else if (CLI_AGENT_NAMES.includes(command.agent))
    throw new CorralError('QUEUE_ERR_UNSUPPORTED', `--agent ${command.agent} trials run here only: drop --queue (queued trials run oracle, nop or openai)`);
  // The same model preflight as every corral eval run (preflight.ts), before any folder or container exists.
  if (options.preflight && usesModel(command.agent) && command.model && command.base_url)
    await probeModelEndpoint(
      { baseURL: command.base_url, model: command.model, apiKey: options.apiKey || process.env['OPENAI_API_KEY'] || 'EMPTY' },
      { retries: options.modelRetries, log },
    );
  const { agent, proxy } = await trialAgentFor(command, options, log);
  const rolloutsPerExample = command.rollouts_per_example;
  const startedAt = Date.now();
  const plannedRollouts = tasks.length * rolloutsPerExample;
  const metadata: Record<string, unknown> = {
    env_id: TERMINAL_ENVIRONMENT,
    env: TERMINAL_ENVIRONMENT,
    env_source: describeEnvironmentSource({ kind: 'task-folder', path: settings.tasks }),
    model: agent.model,
    agent: agent.name,
    backend: 'docker',
    num_examples: tasks.length,
    rollouts_per_example: rolloutsPerExample,
    sampling_args: command.sampling_args,
    max_concurrent: concurrencyCeiling(options),
    ...corralBuild(),
    command,
    terminal: settings,
    model_timeout_s: options.modelTimeout,
    model_retries: options.modelRetries,
    max_errors: options.maxErrors ?? null,
    started_at: typeof previous?.started_at === 'string' ? previous.started_at : new Date(startedAt).toISOString(),
    ...thisWriter(),
  };
  if (options.queue)
    return queuedTerminalEvaluation({
      command,
      settings,
      directory,
      previous,
      tasks,
      agent,
      metadata,
      startedAt,
      options: { ...options, queue: options.queue },
      log,
    });
  const { docker, close: closeDocker } = openDockerConnection();
  let runtime: TrialRuntime | undefined;
  const close = async () => {
    await runtime?.close();
    await proxy?.close();
    await writeHarborJobLayout(directory, harborJob(metadata, startedAt, plannedRollouts, new Date(), settings, concurrencyCeiling(options), agent)).catch(
      () => undefined,
    );
    closeDocker();
  };
  try {
    // status "running" with this pid before the image builds, so a second --resume is refused from the start.
    mkdirSync(directory, { recursive: true });
    const written = new Set(ResultsWriter.readRecords(directory).map((record) => resultKey(record.example_id, record.rollout_index)));
    writeRunningMetadata(
      { writeMetadata: (content) => ResultsWriter.writeMetadataTo(directory, content) },
      metadata,
      { done: written.size, total: plannedRollouts },
      log,
    );
    // Trial and verifier containers and committed images of corral processes that died (SIGKILL) go first.
    const reaped = await reapTrialLeftovers(docker, { ownerAlive: isOwnerAlive }).catch((error: unknown) => {
      log(`terminal: could not remove leftovers of dead runs: ${error instanceof Error ? error.message : String(error)}`);
      return { containers: 0, images: 0 };
    });
    if (reaped.containers + reaped.images > 0)
      log(`terminal: removed ${reaped.containers} container(s) and ${reaped.images} committed image(s) left by corral processes that are gone`);
    const stale = await removeUnrecordedTrialFolders(directory, written);
    if (stale.length > 0) log(`terminal: removed ${stale.length} trial folder(s) of an earlier attempt that no record stands for (rerun now)`);
    await writeHarborJobLayout(directory, harborJob(metadata, startedAt, plannedRollouts, null, settings, concurrencyCeiling(options), agent));
    runtime = await openTrialRuntime({
      docker,
      tasks,
      settings,
      agent,
      buildLogDirectory: join(directory, 'build-logs'),
      log,
      keepFinalFileSystem: settings.keep_file_system === true,
    });
    const executor = runtime.executorFor(directory);
    return {
      execution: {
        executor,
        metadata,
        describe: `terminal: ${tasks.length} tasks x ${rolloutsPerExample} trials, agent ${agent.name} (${agent.model})`,
        cancelling: 'finishing in-flight trials and removing their containers',
        close,
      },
      directory,
      examples: tasks.map(taskExample),
      rolloutsPerExample,
      plannedRollouts,
      startedAt,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The task images, the container pool and the trial executor over them: a local run's, and a worker's (worker-trials.ts). */
export interface TrialRuntime {
  /** The trial executor writing each trial's folder under `directory` (the run directory, or a worker's folder for the run). */
  executorFor(directory: string): RolloutExecutor;
  close(): Promise<void>;
}

export async function openTrialRuntime(input: {
  docker: Docker;
  tasks: readonly TerminalTask[];
  settings: TerminalSettings;
  agent: TrialAgent;
  buildLogDirectory: string;
  log: (line: string) => void;
  /** Each trial keeps the agent's final file system in its folder for `corral rescore` (a local run's folders; not a worker's). */
  keepFinalFileSystem?: boolean;
}): Promise<TrialRuntime> {
  const { docker, tasks, settings, agent, log } = input;
  const policy = { forbidEgress: settings.forbid_egress };
  const pool = new TrialContainerPool({
    docker,
    policy,
    lifetimeMs: maxTrialMs(tasks, settings.timeout_multiplier) + 3_600_000,
    ...(agent.containerMounts ? { mounts: agent.containerMounts } : {}),
  });
  try {
    log(`terminal: building ${tasks.length} task images (cached when unchanged)`);
    const images = await buildTaskImages([...tasks], {
      docker,
      map: await loadBaseImageMap(settings.base_image_map ?? undefined),
      logDirectory: input.buildLogDirectory,
      log,
    });
    const trialTasks = new Map(tasks.map((task, index) => [task.name, { task, image: images[index]! }]));
    return {
      executorFor: (directory) =>
        trialExecutor({
          docker,
          pool,
          agent,
          tasks: trialTasks,
          directory,
          timeoutMultiplier: settings.timeout_multiplier,
          policy,
          modelName: usesModel(agent.name) ? agent.model : null,
          keepFinalFileSystem: input.keepFinalFileSystem === true,
          afterTrial: (record, trial, trialDirectory) => writeTrialTrajectory(record, trial.agentPhase.details, join(trialDirectory, 'agent'), agent.model),
        }),
      close: () => pool.close(),
    };
  } catch (error) {
    await pool.close();
    throw error;
  }
}

/** A CLI rollout's ATIF trajectory.json in its trial's agent/ folder (Harbor's place), from the proxy's calls on the record. */
async function writeTrialTrajectory(record: ResultRecord, details: Record<string, unknown>, agentDirectory: string, model: string): Promise<void> {
  const cli = details['cli'] as { name: string; version: string } | undefined;
  if (!cli) return;
  const json = cliTrajectoryJson(record, { ...cli, model }, Number(details['model_calls'] ?? 0));
  await ensureHostFolder(agentDirectory);
  await writeCliTrajectory(agentDirectory, json);
}

export const usesModel = (agentName: string) => agentName === 'openai' || CLI_AGENT_NAMES.includes(agentName);

export async function trialAgentFor(
  command: Pick<RunCommand, 'agent' | 'model' | 'base_url' | 'sampling_args' | 'max_turns'>,
  options: Pick<EvalOptions, 'apiKey' | 'modelTimeout' | 'modelRetries'>,
  log: (line: string) => void,
): Promise<{ agent: TrialAgent; proxy?: ModelProxy }> {
  if (command.agent === 'oracle') return { agent: oracleAgent };
  if (command.agent === 'nop') return { agent: nopAgent };
  if (CLI_AGENT_NAMES.includes(command.agent)) {
    if (!command.model || !command.base_url)
      throw new CorralError('CFG_ERR_INVALID', `--agent ${command.agent} needs --model and --base-url (the CLI's calls go to them through corral's proxy)`);
    const proxy = await startModelProxy({
      upstream: {
        baseURL: command.base_url,
        apiKey: options.apiKey ?? process.env['OPENAI_API_KEY'] ?? 'EMPTY',
        model: command.model,
        requestTimeoutMs: options.modelTimeout * 1000,
      },
      forcedArgs: command.sampling_args,
      listen: { port: 0 },
    });
    try {
      const cacheDirectory = agentsCacheDirectory(corralCacheDirectory(loadConfig({}).cache.dir));
      log(`CLI agent ${command.agent} inside each task container; model ${command.model} at ${command.base_url} through corral's recording proxy`);
      return {
        agent: await terminalCliAgent({ definition: cliAgent(command.agent), model: command.model, proxy, agentsCacheDirectory: cacheDirectory }),
        proxy,
      };
    } catch (error) {
      await proxy.close();
      throw error;
    }
  }
  if (command.agent === 'openai') {
    const model = createAgent(
      {
        agent: 'openai',
        model: command.model,
        baseUrl: command.base_url,
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        samplingArgs: command.sampling_args,
        modelTimeoutS: options.modelTimeout,
        modelRetries: options.modelRetries,
      },
      {},
      log,
    );
    return { agent: terminalOpenAIAgent(model as OpenAIAgent, command.max_turns ? { maxTurns: command.max_turns } : {}) };
  }
  throw new CorralError('CFG_ERR_INVALID', `corral eval terminal: --agent ${command.agent} is not one of ${TERMINAL_AGENTS.join(', ')}`);
}

/** The run's command and terminal settings: from the flags, or (--resume) from metadata.json, which flags may not contradict. */
function resolveRun(
  options: EvalOptions,
  environmentArgument: string | undefined,
): { command: RunCommand; settings: TerminalSettings; directory: string; previous: Record<string, unknown> | null } {
  const flags = terminalFlags(options, environmentArgument);
  if (options.resume) {
    if (options.out) throw new CorralError('CFG_ERR_INVALID', '--resume DIR continues the run in DIR; drop --out');
    const directory = resolve(options.resume);
    const previous = readResumedMetadata(directory);
    if (!previous) throw new CorralError('CFG_ERR_INVALID', `--resume ${directory}: it holds no metadata.json, so no run to continue`);
    const command = previous['command'] as RunCommand;
    const settings = previous['terminal'] as TerminalSettings;
    const mismatches = [
      flags.tasks !== undefined && resolve(flags.tasks) !== settings.tasks ? `--tasks ${flags.tasks} differs from the run's ${settings.tasks}` : null,
      options.agent !== undefined && options.agent !== command.agent ? `--agent ${options.agent} differs from the run's ${command.agent}` : null,
      options.rolloutsPerExample !== undefined && options.rolloutsPerExample !== command.rollouts_per_example
        ? `-r ${options.rolloutsPerExample} differs from the run's ${command.rollouts_per_example}`
        : null,
      flags.timeoutMultiplier !== undefined && flags.timeoutMultiplier !== settings.timeout_multiplier
        ? `--timeout-multiplier ${flags.timeoutMultiplier} differs from the run's ${settings.timeout_multiplier}`
        : null,
    ].filter((line): line is string => line !== null);
    if (mismatches.length > 0)
      throw new CorralError('RUNNER_ERR_RESUME_MISMATCH', `cannot resume ${directory}: ${mismatches.join('; ')}`, { details: { mismatches } });
    return { command, settings, directory, previous };
  }
  if (!flags.tasks)
    throw new CorralError('CFG_ERR_INVALID', 'corral eval terminal needs --tasks <dir> (a Harbor or Terminal-Bench v1 task folder, or a folder of them)');
  const agentName = options.agent ?? (options.model ? 'openai' : 'oracle');
  if (!(TERMINAL_AGENTS as readonly string[]).includes(agentName))
    throw new CorralError('CFG_ERR_INVALID', `corral eval terminal: --agent ${agentName} is not one of ${TERMINAL_AGENTS.join(', ')}`);
  const command: RunCommand = {
    env: TERMINAL_ENVIRONMENT,
    env_args: { corpus: null, questions: null, dataset: resolve(flags.tasks) },
    data_dir: null,
    agent: agentName,
    model: options.model ?? null,
    base_url: usesModel(agentName) ? (options.baseUrl ?? process.env['OPENAI_BASE_URL'] ?? null) : null,
    num_examples: options.numExamples ?? -1,
    rollouts_per_example: options.rolloutsPerExample ?? 1,
    sampling_args: withTokenRequest(parseSamplingArgs(options.sampling), options),
    seed: options.seed ?? null,
    max_turns: options.maxTurns ?? null,
    backend: 'docker',
  };
  const settings: TerminalSettings = {
    tasks: resolve(flags.tasks),
    timeout_multiplier: flags.timeoutMultiplier ?? 1,
    forbid_egress: flags.internet === false,
    base_image_map: flags.baseImageMap ? resolve(flags.baseImageMap) : null,
    keep_file_system: flags.keepFileSystem === true,
  };
  const directory = options.out ? resolve(options.out) : defaultRunDirectory(TERMINAL_ENVIRONMENT, command.model ?? agentName);
  refuseOccupiedRunDirectory(directory);
  return { command, settings, directory, previous: null };
}

/** The terminal flags ride on EvalOptions' passthrough; checked here. A task folder argument is --tasks. */
function terminalFlags(
  options: EvalOptions,
  environmentArgument: string | undefined,
): { tasks?: string; timeoutMultiplier?: number; internet?: boolean; baseImageMap?: string; keepFileSystem?: boolean } {
  const raw = options as Record<string, unknown>;
  const folder = environmentArgument === undefined ? undefined : taskFolderArgument(environmentArgument);
  if (folder !== undefined && typeof raw['tasks'] === 'string' && resolve(raw['tasks']) !== folder)
    throw new CorralError('CFG_ERR_INVALID', `corral eval ${environmentArgument} already names the tasks; drop --tasks ${raw['tasks']}`);
  if (folder !== undefined) return { ...terminalFlags(options, undefined), tasks: folder };
  const multiplier = raw['timeoutMultiplier'] === undefined ? undefined : Number(raw['timeoutMultiplier']);
  if (multiplier !== undefined && !(Number.isFinite(multiplier) && multiplier > 0))
    throw new CorralError('CFG_ERR_INVALID', `--timeout-multiplier must be a positive number, got ${String(raw['timeoutMultiplier'])}`);
  return {
    ...(typeof raw['tasks'] === 'string' ? { tasks: raw['tasks'] } : typeof options.dataset === 'string' ? { tasks: options.dataset } : {}),
    ...(multiplier !== undefined ? { timeoutMultiplier: multiplier } : {}),
    ...(raw['internet'] === false ? { internet: false } : {}),
    ...(raw['keepFileSystem'] === true ? { keepFileSystem: true } : {}),
    ...(typeof raw['baseImageMap'] === 'string' ? { baseImageMap: raw['baseImageMap'] } : {}),
  };
}

/** Long enough for the slowest trial: its agent and verifier timeouts, multiplied. */
function maxTrialMs(tasks: readonly TerminalTask[], multiplier: number): number {
  return Math.max(...tasks.map((task) => (task.agent.timeoutSec + task.verifier.timeoutSec) * multiplier * 1000));
}

function harborJob(
  metadata: Record<string, unknown>,
  startedAt: number,
  total: number,
  finishedAt: Date | null,
  settings: TerminalSettings,
  concurrency: number,
  agent: TrialAgent,
) {
  return {
    startedAt: typeof metadata['started_at'] === 'string' ? metadata['started_at'] : new Date(startedAt),
    finishedAt,
    nTotalTrials: total,
    config: {
      timeoutMultiplier: settings.timeout_multiplier,
      nConcurrentTrials: concurrency,
      agents: [{ name: agent.name, modelName: usesModel(agent.name) ? agent.model : null }],
    },
  };
}
