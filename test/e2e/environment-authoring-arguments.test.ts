/**
 * `corral eval` on the authoring examples as a user runs it, process backend: env args validated before anything
 * starts, an async-iterable dataset resumed by (example id, rollout index), a module that default-exports a factory,
 * and the process backend refusing examples that name an image. (The Docker run of the mixed-images example, which
 * checks that the exited run released its own containers, is environment-authoring-cli.test.ts, a serial file.)
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { ROOT, readMetadata, readResults, runCorral, spawnCorral } from './runner-cli.js';

const processBackend = await backendAvailable('process');
const example = (folder: string) => join(ROOT, 'examples', folder, 'index.ts');
const scratch = () => mkdtempSync(join(tmpdir(), 'corral-authoring-'));

describe.skipIf(!processBackend)('corral eval: environment arguments and streams', () => {
  it('refuses invalid --env-args before anything runs, listing every issue by path (exit 2, no run written)', async () => {
    const out = join(scratch(), 'run');
    const invalid = await runCorral([
      'eval',
      example('wordle'),
      '--agent',
      'solver',
      '--backend',
      'process',
      '--out',
      out,
      '--env-args',
      '{"difficulty":"medium","words":0}',
    ]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('ENV_ERR_INVALID_ARGS');
    expect(invalid.stderr).toMatch(/difficulty: /);
    expect(invalid.stderr).toMatch(/words: /);
    expect(readResults(out)).toEqual([]);
    const notJson = await runCorral(['eval', example('wordle'), '--agent', 'solver', '--backend', 'process', '--out', out, '--env-args', '{difficulty}']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--env-args is not JSON');
    // An environment that declares no argsSchema takes none.
    const refused = await runCorral([
      'eval',
      join(ROOT, 'examples', 'custom-env', 'index.ts'),
      '--agent',
      'guess',
      '--backend',
      'process',
      '--out',
      out,
      '--env-args',
      '{"level":2}',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('declares no argsSchema');
  });

  it('env args change the dataset and are stored; --resume of an async-iterable dataset redoes only what is missing', async () => {
    const out = join(scratch(), 'bugfix');
    const first = await runCorral([
      'eval',
      example('bugfix'),
      '--agent',
      'fixer',
      '--backend',
      'process',
      '--out',
      out,
      '--no-progress',
      '--env-args',
      '{"count":3}',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const records = readResults(out);
    expect(records.map((record) => record.example_id).sort()).toEqual(['clamp', 'leap-year', 'mean']);
    expect((readMetadata(out).command as { env_args: { args: unknown } }).env_args.args).toEqual({ count: 3 });
    // As if the run had been stopped before its last group was written.
    const lines = readFileSync(join(out, 'results.jsonl'), 'utf8').trimEnd().split('\n');
    writeFileSync(join(out, 'results.jsonl'), `${lines.slice(0, 2).join('\n')}\n`);
    const resumed = spawnCorral(['eval', '--resume', out, '--no-progress']);
    expect(await resumed.exited, resumed.output.stderr).toBe(0);
    expect(resumed.output.stderr).toContain('2 already done');
    const after = readResults(out);
    expect(after.map((record) => record.example_id).sort()).toEqual(['clamp', 'leap-year', 'mean']);
    expect(after.every((record) => record.reward === 1 && record.error === null)).toBe(true);
    // Changing the arguments is changing the run: refused on resume.
    const changed = await runCorral(['eval', '--resume', out, '--env-args', '{"count":1}']);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('RUNNER_ERR_RESUME_MISMATCH');
  });

  it('a module that default-exports a factory gets an environment built for the validated arguments', async () => {
    const out = join(scratch(), 'factory');
    const module = join(ROOT, 'test', 'fixtures', 'runner', 'factory-environment.ts');
    const run = await runCorral([
      'eval',
      module,
      '--agent',
      'echo',
      '--backend',
      'process',
      '--out',
      out,
      '--no-progress',
      '--env-args',
      '{"word":"hello","turns":3}',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [record] = readResults(out);
    expect(record).toMatchObject({ example_id: 'say-hello', reward: 1, metrics: { said: 1, max_turns: 3 } });
    expect(record!.prompt[0]).toEqual({ role: 'system', content: 'say hello' });
    const invalid = await runCorral(['eval', module, '--agent', 'echo', '--backend', 'process', '--out', join(out, 'x'), '--env-args', '{"turns":0}']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/ENV_ERR_INVALID_ARGS.*turns: /s);
  });

  it('the process backend refuses an example that names an image, and runs the rest', async () => {
    const out = join(scratch(), 'mixed-process');
    const run = await runCorral(['eval', example('mixed-images'), '--agent', 'reference', '--backend', 'process', '--out', out, '--no-progress']);
    const byId = new Map(readResults(out).map((record) => [record.example_id, record]));
    expect(run.code).toBe(1);
    for (const id of ['determinant', 'sympy-factor', 'task-env']) {
      expect(byId.get(id)!.error).toMatchObject({ boundary: 'sandbox', code: 'SBX_ERR_UNSUPPORTED' });
      expect(byId.get(id)!.reward).toBeNull();
    }
    expect(byId.get('which-image')!.error).toBeNull();
  });
});
