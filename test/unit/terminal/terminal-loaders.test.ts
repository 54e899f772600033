import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorralError } from '../../../src/core/errors.js';
import { loadTask, loadTaskDataset } from '../../../src/terminal/dataset-loader.js';
import { dataDirectoryWith } from '../../helpers/test-gates.js';

const HARBOR_TASKS = [
  'hello-world',
  'fix-permissions',
  'processing-pipeline',
  'heterogeneous-dates',
  'grid-pattern-transform',
  'organization-json-generator',
  'sqlite-db-truncate',
  'recover-obfuscated-files',
  'aimo-airline-departures',
  'openssl-selfsigned-cert',
];
const dataDir = dataDirectoryWith(['terminal-tasks-harbor/hello-world/task.toml']);
const TB_V1_FIXTURE = resolve(import.meta.dirname, '../../fixtures/terminal/tb-v1/greet-file');

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'corral-terminal-loaders-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A minimal valid Harbor task in scratch/<name>, with task.toml text of the caller's choosing. */
async function writeHarborTask(name: string, taskToml: string, extra: Record<string, string> = {}): Promise<string> {
  const directory = join(scratch, name);
  const files = {
    'instruction.md': 'Do the thing.\n',
    'task.toml': taskToml,
    'environment/Dockerfile': 'FROM debian:bookworm-slim\n',
    'tests/test.sh': '#!/bin/bash\n',
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(directory, path, '..'), { recursive: true });
    await writeFile(join(directory, path), text);
  }
  return directory;
}

async function loadError(directory: string): Promise<CorralError> {
  const error = await loadTask(directory).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CorralError.isInstance(error)) throw new Error(`expected a CorralError, got ${String(error)}`);
  return error;
}

describe.runIf(dataDir)('the 10 Harbor tasks of terminal-tasks-harbor', () => {
  it('all load, with the timeouts and limits their task.toml declares and Harbor defaults elsewhere', async () => {
    const dataset = await loadTaskDataset(join(dataDir!, 'terminal-tasks-harbor'));
    expect(dataset.failures).toEqual([]);
    expect(dataset.tasks.map((task) => task.name).sort()).toEqual(HARBOR_TASKS.map((name) => `terminal-bench/${name}`).sort());
    const grid = dataset.tasks.find((task) => task.name === 'terminal-bench/grid-pattern-transform')!;
    expect(grid.agent.timeoutSec).toBe(600);
    expect(grid.verifier.timeoutSec).toBe(120);
    expect(grid.environment).toMatchObject({ buildTimeoutSec: 600, cpus: 1, memoryMb: 2048, workdir: '/app', networkMode: 'public', dockerfile: 'Dockerfile' });
    expect(grid.environment.contextDirectory).toBe(join(grid.directory, 'environment'));
    expect(grid.metadata).toMatchObject({ difficulty: 'easy', category: expect.any(String) });
    for (const task of dataset.tasks) {
      expect(task.instruction.length).toBeGreaterThan(10);
      expect(task.testScript).toBe(join(task.directory, 'tests', 'test.sh'));
      expect(task.solutionScript).toBe(join(task.directory, 'solution', 'solve.sh'));
    }
  });

  it('a single task folder is a dataset of one', async () => {
    const dataset = await loadTaskDataset(join(dataDir!, 'terminal-tasks-harbor', 'hello-world'));
    expect(dataset.tasks.map((task) => task.name)).toEqual(['terminal-bench/hello-world']);
  });
});

describe('Harbor task.toml', () => {
  it('reads every documented key, and ignores unknown keys as Harbor does', async () => {
    const directory = await writeHarborTask(
      'full',
      `schema_version = "1.3"
future_top_level = 1
[task]
name = "org/full"
unknown_task_key = "x"
[metadata]
difficulty = "hard"
[agent]
timeout_sec = 90
user = "agent"
[verifier]
timeout_sec = 45
env = { MODE = "strict", LEVEL = 3 }
user = 0
environment_mode = "shared"
[environment]
build_timeout_sec = 300
cpus = 2
memory_mb = 512
storage_mb = 1024
env = { FOO = "bar" }
workdir = "/work"
network_mode = "no-network"
some_new_key = true
[environment.healthcheck]
command = "test -f /ready"
retries = 5
`,
    );
    const task = await loadTask(directory);
    expect(task).toMatchObject({
      name: 'org/full',
      format: 'harbor',
      metadata: { difficulty: 'hard' },
      agent: { timeoutSec: 90, user: 'agent' },
      verifier: { timeoutSec: 45, env: { MODE: 'strict', LEVEL: '3' }, user: '0', environmentMode: 'shared' },
      environment: { buildTimeoutSec: 300, cpus: 2, memoryMb: 512, storageMb: 1024, env: { FOO: 'bar' }, workdir: '/work', networkMode: 'no-network' },
    });
    expect(task.environment.healthcheck).toEqual({ command: 'test -f /ready', intervalSec: 5, timeoutSec: 30, retries: 5, startPeriodSec: 0 });
    expect(task.solutionScript).toBeUndefined();
  });

  it('docker_image tasks need no Dockerfile; the deprecated allow_internet = false means no-network', async () => {
    const directory = await writeHarborTask('prebuilt', '[environment]\ndocker_image = "my/image:1"\nallow_internet = false\n');
    await rm(join(directory, 'environment'), { recursive: true });
    const task = await loadTask(directory);
    expect(task.environment).toMatchObject({ dockerImage: 'my/image:1', contextDirectory: undefined, networkMode: 'no-network' });
  });

  it('refuses multi-step tasks, compose environments and allowlist networking with TASK_ERR_UNSUPPORTED', async () => {
    const steps = await loadError(await writeHarborTask('steps', '[[steps]]\nname = "one"\n[[steps]]\nname = "two"\n'));
    expect(steps.code).toBe('TASK_ERR_UNSUPPORTED');
    expect(steps.message).toMatch(/multi-step/);
    const compose = await loadError(await writeHarborTask('compose', '', { 'environment/docker-compose.yaml': 'services: {}\n' }));
    expect(compose.code).toBe('TASK_ERR_UNSUPPORTED');
    expect(compose.message).toMatch(/docker-compose/);
    const allowlist = await loadError(await writeHarborTask('allow', '[environment]\nnetwork_mode = "allowlist"\n'));
    expect(allowlist.code).toBe('TASK_ERR_UNSUPPORTED');
    expect(allowlist.message).toMatch(/allowlist/);
  });

  it('names the file and field of a malformed task with TASK_ERR_INVALID', async () => {
    const badToml = await loadError(await writeHarborTask('bad-toml', '[agent\ntimeout_sec = 1\n'));
    expect(badToml.code).toBe('TASK_ERR_INVALID');
    expect(badToml.message).toMatch(/task\.toml: not valid TOML/);
    const badField = await loadError(await writeHarborTask('bad-field', '[environment]\ncpus = -1\n'));
    expect(badField.code).toBe('TASK_ERR_INVALID');
    expect(badField.message).toMatch(/environment\.cpus/);
    const noTests = await writeHarborTask('no-tests', '');
    await rm(join(noTests, 'tests'), { recursive: true });
    expect((await loadError(noTests)).message).toMatch(/tests\/test\.sh: missing/);
  });

  it('a bad task in a dataset is a failure entry with its code; the others load', async () => {
    await writeHarborTask('good', '');
    await writeHarborTask('bad', '[environment]\nnetwork_mode = "allowlist"\n');
    await mkdir(join(scratch, 'not-a-task'));
    const dataset = await loadTaskDataset(scratch);
    expect(dataset.tasks.map((task) => task.name)).toEqual(['good']);
    expect(dataset.failures).toEqual([{ directory: join(scratch, 'bad'), code: 'TASK_ERR_UNSUPPORTED', message: expect.stringMatching(/allowlist/) }]);
  });

  it('a path with no task is TASK_ERR_NOT_FOUND', async () => {
    await expect(loadTaskDataset(join(scratch, 'missing'))).rejects.toMatchObject({ code: 'TASK_ERR_NOT_FOUND' });
    await expect(loadTaskDataset(scratch)).rejects.toMatchObject({ code: 'TASK_ERR_NOT_FOUND' });
  });
});

describe('Terminal-Bench v1 folders', () => {
  it('load: instruction, timeouts, the compose build, run-tests.sh with TEST_DIR=/tests, solution.sh', async () => {
    const task = await loadTask(TB_V1_FIXTURE);
    expect(task).toMatchObject({
      name: 'greet-file',
      format: 'terminal-bench-v1',
      agent: { timeoutSec: 120 },
      verifier: { timeoutSec: 30, env: { TEST_DIR: '/tests' } },
      metadata: { author_name: 'corral tests', difficulty: 'easy', tags: ['file-operations', 'fixture'] },
      environment: { contextDirectory: TB_V1_FIXTURE, dockerfile: 'Dockerfile', workdir: '/app' },
      testsDirectory: join(TB_V1_FIXTURE, 'tests'),
      testScript: join(TB_V1_FIXTURE, 'run-tests.sh'),
      solutionScript: join(TB_V1_FIXTURE, 'solution.sh'),
    });
    expect(task.instruction).toMatch(/^Write the greeting "hello, <name>"/);
  });

  it('refuse a compose file with more than one service (TASK_ERR_UNSUPPORTED)', async () => {
    const directory = join(scratch, 'two-services');
    await cp(TB_V1_FIXTURE, directory, { recursive: true });
    await writeFile(join(directory, 'docker-compose.yaml'), 'services:\n  client:\n    build: .\n  database:\n    image: postgres:16\n');
    const error = await loadError(directory);
    expect(error.code).toBe('TASK_ERR_UNSUPPORTED');
    expect(error.message).toMatch(/2 services \(client, database\)/);
  });
});
