import { access, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadHarborTask } from '../../../src/terminal/harbor-task-loader.js';
import { migrateTerminalBenchV1 } from '../../../src/terminal/terminal-bench-migration.js';

const TB_V1_FIXTURE = resolve(import.meta.dirname, '../../fixtures/terminal/tb-v1/greet-file');

let output: string;
beforeEach(async () => {
  output = await mkdtemp(join(tmpdir(), 'corral-terminal-migrate-'));
});
afterEach(async () => {
  await rm(output, { recursive: true, force: true });
});

describe('corral tasks migrate (TB v1 → Harbor)', () => {
  it('maps the folder as harbor task migrate does, and the result loads as a Harbor task', async () => {
    const result = await migrateTerminalBenchV1(TB_V1_FIXTURE, output);
    expect(result.failures).toEqual([]);
    const target = join(output, 'greet-file');
    expect(result.migrated).toEqual([{ name: 'greet-file', from: TB_V1_FIXTURE, to: target }]);

    expect(await readFile(join(target, 'instruction.md'), 'utf8')).toMatch(/^Write the greeting "hello, <name>" to \/app\/greeting\.txt.*\n$/);
    const toml = parseToml(await readFile(join(target, 'task.toml'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(toml.agent).toEqual({ timeout_sec: 120 });
    expect(toml.verifier).toEqual({ timeout_sec: 30 });
    expect(toml.metadata).toMatchObject({ author_name: 'corral tests', difficulty: 'easy', category: 'file-operations' });

    // Build context: the Dockerfile and its fixture files, none of TB v1's own files.
    expect(await readFile(join(target, 'environment/Dockerfile'), 'utf8')).toBe(await readFile(join(TB_V1_FIXTURE, 'Dockerfile'), 'utf8'));
    expect(await readFile(join(target, 'environment/name.txt'), 'utf8')).toBe('corral\n');
    for (const dropped of ['task.yaml', 'docker-compose.yaml', 'run-tests.sh', 'solution.sh', 'tests']) {
      await expect(access(join(target, 'environment', dropped))).rejects.toThrow();
    }
    // run-tests.sh kept byte for byte beside a test.sh that turns its exit code into reward.txt.
    expect(await readFile(join(target, 'tests/run-tests.sh'), 'utf8')).toBe(await readFile(join(TB_V1_FIXTURE, 'run-tests.sh'), 'utf8'));
    expect(await readFile(join(target, 'tests/expected.txt'), 'utf8')).toBe('hello, corral\n');
    const testScript = await readFile(join(target, 'tests/test.sh'), 'utf8');
    expect(testScript).toContain('export TEST_DIR=/tests\nbash /tests/run-tests.sh\n');
    expect(testScript).toMatch(/echo 1 > \/logs\/verifier\/reward\.txt[\s\S]*echo 0 > \/logs\/verifier\/reward\.txt/);
    expect((await stat(join(target, 'solution/solve.sh'))).mode & 0o111).not.toBe(0);
    expect(await readFile(join(target, 'solution/solve.sh'), 'utf8')).toBe(await readFile(join(TB_V1_FIXTURE, 'solution.sh'), 'utf8'));

    const task = await loadHarborTask(target);
    expect(task).toMatchObject({ name: 'greet-file', format: 'harbor', agent: { timeoutSec: 120 }, verifier: { timeoutSec: 30 } });
    expect(task.environment.contextDirectory).toBe(join(target, 'environment'));
  });

  it('refuses to write over an existing task folder (a failure entry, TASK_ERR_INVALID)', async () => {
    await migrateTerminalBenchV1(TB_V1_FIXTURE, output);
    const again = await migrateTerminalBenchV1(TB_V1_FIXTURE, output);
    expect(again.migrated).toEqual([]);
    expect(again.failures).toEqual([{ directory: TB_V1_FIXTURE, code: 'TASK_ERR_INVALID', message: expect.stringMatching(/already exists/) }]);
  });

  it('a folder with no TB v1 task is TASK_ERR_NOT_FOUND', async () => {
    await expect(migrateTerminalBenchV1(output, join(output, 'out'))).rejects.toMatchObject({ code: 'TASK_ERR_NOT_FOUND' });
  });
});
