import { basename, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { CorralError } from '../core/errors.js';
import { describeSchemaIssues, taskTomlSchema, type TaskToml } from './task-toml-schema.js';
import { COMPOSE_FILE_NAMES, assertNoLinkedFolders, firstExisting, isDirectory, isFile, readRequiredFile } from './task-files.js';
import { TASK_DEFAULTS, type TaskNetworkMode, type TerminalTask } from './terminal-task.js';

/**
 * Loads one Harbor task folder: instruction.md, task.toml, environment/Dockerfile (context environment/)
 * unless [environment].docker_image names an image, tests/test.sh, and solution/solve.sh when present.
 * Throws TASK_ERR_INVALID for a malformed folder and TASK_ERR_UNSUPPORTED for what corral does not run yet.
 */
export async function loadHarborTask(directory: string): Promise<TerminalTask> {
  const root = resolve(directory);
  const tomlPath = join(root, 'task.toml');
  const config = parseTaskToml(await readRequiredFile(root, 'task.toml'), tomlPath);
  const instruction = await readRequiredFile(root, 'instruction.md');
  if (config.steps !== undefined) unsupported(tomlPath, 'multi-step tasks ([[steps]]) are not supported yet');
  const environmentDirectory = join(root, 'environment');
  await assertNoLinkedFolders(root, [environmentDirectory, join(root, 'tests'), join(root, 'solution')]);
  const compose = await firstExisting(environmentDirectory, COMPOSE_FILE_NAMES);
  if (compose) unsupported(join(environmentDirectory, compose), 'docker-compose environments are not supported yet (one Dockerfile or docker_image only)');
  const section = config.environment;
  const dockerImage = section.docker_image;
  if (!dockerImage && !(await isFile(join(environmentDirectory, 'Dockerfile')))) {
    throw new CorralError('TASK_ERR_INVALID', `${environmentDirectory}/Dockerfile: missing (or set [environment].docker_image in task.toml)`, {
      details: { path: root },
    });
  }
  const testsDirectory = join(root, 'tests');
  if (!(await isFile(join(testsDirectory, 'test.sh')))) {
    throw new CorralError('TASK_ERR_INVALID', `${testsDirectory}/test.sh: missing (the verifier entry point)`, { details: { path: root } });
  }
  const solutionScript = join(root, 'solution', 'solve.sh');
  return {
    name: config.task?.name ?? basename(root),
    directory: root,
    format: 'harbor',
    instruction,
    metadata: config.metadata,
    agent: { timeoutSec: config.agent.timeout_sec ?? TASK_DEFAULTS.agentTimeoutSec, user: config.agent.user },
    verifier: {
      timeoutSec: config.verifier.timeout_sec ?? TASK_DEFAULTS.verifierTimeoutSec,
      env: config.verifier.env,
      user: config.verifier.user,
      environmentMode: config.verifier.environment_mode,
    },
    environment: {
      contextDirectory: dockerImage ? undefined : environmentDirectory,
      dockerfile: dockerImage ? undefined : 'Dockerfile',
      dockerImage,
      buildTimeoutSec: section.build_timeout_sec ?? TASK_DEFAULTS.buildTimeoutSec,
      cpus: section.cpus ?? TASK_DEFAULTS.cpus,
      memoryMb: section.memory_mb ?? TASK_DEFAULTS.memoryMb,
      storageMb: section.storage_mb,
      env: section.env,
      workdir: section.workdir ?? TASK_DEFAULTS.workdir,
      networkMode: networkMode(section, tomlPath),
      healthcheck: section.healthcheck && {
        command: section.healthcheck.command,
        intervalSec: section.healthcheck.interval_sec,
        timeoutSec: section.healthcheck.timeout_sec,
        retries: section.healthcheck.retries,
        startPeriodSec: section.healthcheck.start_period_sec,
      },
    },
    testsDirectory,
    testScript: join(testsDirectory, 'test.sh'),
    solutionScript: (await isFile(solutionScript)) ? solutionScript : undefined,
    artifacts: config.artifacts,
  };
}

/** True when directory looks like a Harbor task (task.toml present), before any validation. */
export async function isHarborTaskDirectory(directory: string): Promise<boolean> {
  return (await isFile(join(directory, 'task.toml'))) && (await isDirectory(directory));
}

export function parseTaskToml(text: string, path: string): TaskToml {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    throw new CorralError('TASK_ERR_INVALID', `${path}: not valid TOML: ${(error as Error).message.split('\n')[0]}`, { cause: error, details: { path } });
  }
  const parsed = taskTomlSchema.safeParse(raw);
  if (!parsed.success) throw new CorralError('TASK_ERR_INVALID', `${path}: ${describeSchemaIssues(parsed.error)}`, { details: { path } });
  return parsed.data;
}

function networkMode(section: TaskToml['environment'], path: string): TaskNetworkMode {
  const mode = section.network_mode ?? (section.allow_internet === false ? 'no-network' : TASK_DEFAULTS.networkMode);
  if (mode === 'allowlist') unsupported(path, '[environment].network_mode = "allowlist" is not supported yet (use "public" or "no-network")');
  return mode;
}

function unsupported(path: string, message: string): never {
  throw new CorralError('TASK_ERR_UNSUPPORTED', `${path}: ${message}`, { details: { path } });
}
