import { basename, join, normalize, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CorralError } from '../core/errors.js';
import { describeSchemaIssues } from './task-toml-schema.js';
import { COMPOSE_FILE_NAMES, assertNoLinkedFolders, firstExisting, isDirectory, isFile, readRequiredFile } from './task-files.js';
import { TASK_DEFAULTS, type TerminalTask } from './terminal-task.js';

/** task.yaml of Terminal-Bench v1: only the keys that decide what runs; the rest is kept as metadata. */
const taskYamlSchema = z.object({
  instruction: z.string().min(1).optional(),
  /** Older TB v1 tasks: a list of descriptions, the one keyed "base" is the instruction. */
  descriptions: z.array(z.object({ key: z.string(), description: z.string() })).optional(),
  max_agent_timeout_sec: z.number().positive().optional(),
  max_test_timeout_sec: z.number().positive().optional(),
});

/** The one service of a TB v1 docker-compose.yaml: how its image is built. */
const composeSchema = z.object({
  services: z.record(
    z.string(),
    z.object({
      build: z.union([z.string(), z.object({ context: z.string().default('.'), dockerfile: z.string().default('Dockerfile') })]).optional(),
      image: z.string().optional(),
    }),
  ),
});

/** Metadata keys of task.yaml that Harbor's [metadata] carries over. */
export const TB_V1_METADATA_KEYS = ['author_name', 'author_email', 'difficulty', 'category', 'tags'] as const;

/**
 * Loads a Terminal-Bench v1 folder: task.yaml, Dockerfile (context: the task folder), a one-service
 * docker-compose.yaml, run-tests.sh, solution.sh, tests/. The verifier runs run-tests.sh with
 * TEST_DIR=/tests, as TB v1's harness did; its exit code is the result (0 → reward 1).
 */
export async function loadTerminalBenchV1Task(directory: string): Promise<TerminalTask> {
  const root = resolve(directory);
  const yamlPath = join(root, 'task.yaml');
  const raw = parseYamlFile(await readRequiredFile(root, 'task.yaml'), yamlPath);
  const parsed = taskYamlSchema.safeParse(raw);
  if (!parsed.success) throw new CorralError('TASK_ERR_INVALID', `${yamlPath}: ${describeSchemaIssues(parsed.error)}`, { details: { path: yamlPath } });
  const instruction = parsed.data.instruction ?? parsed.data.descriptions?.find((entry) => entry.key === 'base')?.description;
  if (!instruction) throw new CorralError('TASK_ERR_INVALID', `${yamlPath}: instruction: missing`, { details: { path: yamlPath } });
  const build = await composeBuild(root);
  await assertNoLinkedFolders(root, [build.context, join(root, 'tests')]);
  if (!(await isFile(join(build.context, build.dockerfile)))) {
    throw new CorralError('TASK_ERR_INVALID', `${join(build.context, build.dockerfile)}: missing (a TB v1 task needs its Dockerfile)`, {
      details: { path: root },
    });
  }
  if (!(await isFile(join(root, 'run-tests.sh')))) {
    throw new CorralError('TASK_ERR_INVALID', `${root}/run-tests.sh: missing (the TB v1 test entry point)`, { details: { path: root } });
  }
  const record = raw as Record<string, unknown>;
  const solutionScript = join(root, 'solution.sh');
  return {
    name: basename(root),
    directory: root,
    format: 'terminal-bench-v1',
    instruction: instruction.endsWith('\n') ? instruction : `${instruction}\n`,
    metadata: Object.fromEntries(TB_V1_METADATA_KEYS.filter((key) => record[key] !== undefined).map((key) => [key, record[key]])),
    agent: { timeoutSec: parsed.data.max_agent_timeout_sec ?? TASK_DEFAULTS.agentTimeoutSec },
    verifier: { timeoutSec: parsed.data.max_test_timeout_sec ?? TASK_DEFAULTS.verifierTimeoutSec, env: { TEST_DIR: '/tests' } },
    environment: {
      contextDirectory: build.context,
      dockerfile: build.dockerfile,
      buildTimeoutSec: TASK_DEFAULTS.buildTimeoutSec,
      cpus: TASK_DEFAULTS.cpus,
      memoryMb: TASK_DEFAULTS.memoryMb,
      env: {},
      workdir: TASK_DEFAULTS.workdir,
      networkMode: TASK_DEFAULTS.networkMode,
    },
    testsDirectory: join(root, 'tests'),
    testScript: join(root, 'run-tests.sh'),
    solutionScript: (await isFile(solutionScript)) ? solutionScript : undefined,
    artifacts: [],
  };
}

export async function isTerminalBenchV1Directory(directory: string): Promise<boolean> {
  return (await isDirectory(directory)) && (await isFile(join(directory, 'task.yaml')));
}

function parseYamlFile(text: string, path: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw new CorralError('TASK_ERR_INVALID', `${path}: not valid YAML: ${(error as Error).message.split('\n')[0]}`, { cause: error, details: { path } });
  }
}

/** Build context and Dockerfile from the compose file; no compose file means Dockerfile in the folder. */
async function composeBuild(root: string): Promise<{ context: string; dockerfile: string }> {
  const composeName = await firstExisting(root, COMPOSE_FILE_NAMES);
  if (!composeName) return { context: root, dockerfile: 'Dockerfile' };
  const composePath = join(root, composeName);
  const parsed = composeSchema.safeParse(parseYamlFile(await readRequiredFile(root, composeName), composePath));
  if (!parsed.success) throw new CorralError('TASK_ERR_INVALID', `${composePath}: ${describeSchemaIssues(parsed.error)}`, { details: { path: composePath } });
  const services = Object.entries(parsed.data.services);
  if (services.length !== 1) {
    const names = services.map(([name]) => name).join(', ');
    throw new CorralError('TASK_ERR_UNSUPPORTED', `${composePath}: ${services.length} services (${names}); only one-service compose files are supported`, {
      details: { path: composePath },
    });
  }
  const build = services[0]![1].build;
  const context = typeof build === 'string' ? build : (build?.context ?? '.');
  const dockerfile = typeof build === 'object' ? build.dockerfile : 'Dockerfile';
  const contextDirectory = resolve(root, context);
  if (!normalize(contextDirectory).startsWith(root)) {
    throw new CorralError('TASK_ERR_UNSUPPORTED', `${composePath}: build context ${context} lies outside the task folder`, { details: { path: composePath } });
  }
  return { context: contextDirectory, dockerfile };
}
