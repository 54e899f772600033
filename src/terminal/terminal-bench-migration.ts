import { chmod, cp, mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { stringify as stringifyToml } from 'smol-toml';
import { CorralError } from '../core/errors.js';
import { loadHarborTask } from './harbor-task-loader.js';
import { isDirectory, isFile } from './task-files.js';
import { isTerminalBenchV1Directory, loadTerminalBenchV1Task } from './terminal-bench-v1-loader.js';
import type { TaskLoadFailure, TerminalTask } from './terminal-task.js';

/** Files of a TB v1 folder that become something else in the Harbor form, so are not copied to environment/. */
const TB_V1_OWN_FILES = new Set([
  'task.yaml',
  'docker-compose.yaml',
  'docker-compose.yml',
  'compose.yaml',
  'compose.yml',
  'run-tests.sh',
  'solution.sh',
  'solution.yaml',
  'tests',
]);

/** tests/test.sh of a migrated task: TB v1's run-tests.sh, run as its harness ran it, its exit code → reward.txt. */
const MIGRATED_TEST_SCRIPT = `#!/bin/bash
# Written by \`corral tasks migrate\` from the Terminal-Bench v1 run-tests.sh, kept as /tests/run-tests.sh:
# runs it as TB v1's harness did (TEST_DIR=/tests, in the task's working directory) and writes the reward
# from its exit code (0 → 1, anything else → 0), as \`harbor task migrate\` does.
mkdir -p /logs/verifier
export TEST_DIR=/tests
bash /tests/run-tests.sh
if [ $? -eq 0 ]; then
    echo 1 > /logs/verifier/reward.txt
else
    echo 0 > /logs/verifier/reward.txt
fi
`;

export interface MigrationResult {
  migrated: Array<{ name: string; from: string; to: string }>;
  failures: TaskLoadFailure[];
}

/**
 * Writes the Harbor form of every TB v1 task under input (a task folder or a folder of them) to
 * output/<task-name>/, then loads each result as a Harbor task to prove it. A task that does not load or
 * whose target exists is a failure entry; the others are still migrated.
 */
export async function migrateTerminalBenchV1(input: string, output: string): Promise<MigrationResult> {
  const root = resolve(input);
  if (!(await isDirectory(root))) throw new CorralError('TASK_ERR_NOT_FOUND', `${root}: no such folder`, { details: { path: root } });
  const sources = (await isTerminalBenchV1Directory(root)) ? [root] : await childTaskFolders(root);
  if (sources.length === 0)
    throw new CorralError('TASK_ERR_NOT_FOUND', `${root}: holds no Terminal-Bench v1 task folder (task.yaml)`, { details: { path: root } });
  const result: MigrationResult = { migrated: [], failures: [] };
  for (const source of sources) {
    try {
      const task = await loadTerminalBenchV1Task(source);
      const target = join(resolve(output), task.name);
      if (await isDirectory(target))
        throw new CorralError('TASK_ERR_INVALID', `${target}: already exists; migrate into an empty folder`, { details: { path: target } });
      await writeHarborTask(task, target);
      await loadHarborTask(target);
      result.migrated.push({ name: task.name, from: source, to: target });
    } catch (error) {
      if (!CorralError.isInstance(error)) throw error;
      result.failures.push({ directory: source, code: error.code, message: error.message });
    }
  }
  return result;
}

async function writeHarborTask(task: TerminalTask, target: string): Promise<void> {
  await mkdir(join(target, 'environment'), { recursive: true });
  await writeFile(join(target, 'instruction.md'), task.instruction);
  await writeFile(join(target, 'task.toml'), taskToml(task));
  await copyEnvironment(task, join(target, 'environment'));
  const tests = join(target, 'tests');
  if (await isDirectory(task.testsDirectory)) await cp(task.testsDirectory, tests, { recursive: true });
  await mkdir(tests, { recursive: true });
  if (await isFile(join(tests, 'run-tests.sh'))) {
    throw new CorralError('TASK_ERR_INVALID', `${task.testsDirectory}/run-tests.sh: clashes with the migrated copy of run-tests.sh`, {
      details: { path: task.directory },
    });
  }
  await cp(task.testScript, join(tests, 'run-tests.sh'));
  await writeFile(join(tests, 'test.sh'), MIGRATED_TEST_SCRIPT, { mode: 0o755 });
  if (task.solutionScript) {
    await mkdir(join(target, 'solution'), { recursive: true });
    await cp(task.solutionScript, join(target, 'solution', 'solve.sh'));
    await chmod(join(target, 'solution', 'solve.sh'), 0o755);
  }
}

/** The task folder (TB v1's build context) minus TB's own files; a Dockerfile of another name becomes Dockerfile. */
async function copyEnvironment(task: TerminalTask, environment: string): Promise<void> {
  const context = task.environment.contextDirectory!;
  const skipOwnFiles = context === task.directory;
  for (const entry of await readdir(context)) {
    if (skipOwnFiles && TB_V1_OWN_FILES.has(entry)) continue;
    await cp(join(context, entry), join(environment, entry), { recursive: true });
  }
  const dockerfile = task.environment.dockerfile ?? 'Dockerfile';
  if (dockerfile !== 'Dockerfile') await rename(join(environment, dockerfile), join(environment, 'Dockerfile'));
}

function taskToml(task: TerminalTask): string {
  const document = {
    schema_version: '1.1',
    task: { name: task.name },
    metadata: task.metadata,
    agent: { timeout_sec: task.agent.timeoutSec },
    verifier: { timeout_sec: task.verifier.timeoutSec },
    environment: { build_timeout_sec: task.environment.buildTimeoutSec, cpus: task.environment.cpus, memory_mb: task.environment.memoryMb },
  };
  return `# Migrated by corral tasks migrate from the Terminal-Bench v1 folder ${basename(task.directory)}\n${stringifyToml(document)}\n`;
}

async function childTaskFolders(root: string): Promise<string[]> {
  const names = (await readdir(root)).filter((name) => !name.startsWith('.')).sort();
  const found: string[] = [];
  for (const name of names) if (await isTerminalBenchV1Directory(join(root, name))) found.push(join(root, name));
  return found;
}
