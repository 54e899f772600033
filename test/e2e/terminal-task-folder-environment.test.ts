/**
 * Terminal tasks are an environment (issue 22): `corral eval <task folder>` (a Harbor task.toml folder, a
 * Terminal-Bench v1 task.yaml folder, or a folder of them) runs trials exactly as `corral eval terminal --tasks DIR`
 * does, as a child process against real Docker, and `--resume` of such a run continues it.
 */
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { markedHarborTask } from '../helpers/marked-task.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { readMetadata, readResults, runCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const FIXTURES = resolve(import.meta.dirname, '../fixtures/terminal');

let workDirectory: string;
beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), 'corral-task-folder-env-'));
});
afterAll(async () => {
  if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
});

describe.runIf(dockerAvailable)('corral eval <task folder>', () => {
  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
  }, 1_500_000);

  it('a Harbor task folder as the environment argument runs its trials, recorded as a terminal run', async () => {
    const task = await markedHarborTask(workDirectory, { oracleWritesMark: true });
    const out = join(workDirectory, 'single-run');
    const run = await runCorral(['eval', task, '--agent', 'oracle', '--out', out, '--no-progress']);
    expect(run.code, run.stderr).toBe(0);
    expect(readResults(out).map((record) => [record.example_id, record.reward, record.error])).toEqual([['corral-fixtures/always-zero', 1, null]]);
    expect(readMetadata(out)).toMatchObject({
      env: 'terminal',
      agent: 'oracle',
      status: 'complete',
      env_source: { kind: 'task-folder', path: task },
      terminal: { tasks: task },
    });
    const job = JSON.parse(await readFile(join(out, 'result.json'), 'utf8')) as { stats: { n_trials: number } };
    expect(job.stats.n_trials).toBe(1);
  }, 300_000);

  it('a folder of a Harbor task and a Terminal-Bench v1 task runs both; --resume of that run continues it', async () => {
    const dataset = join(workDirectory, 'dataset');
    await mkdir(dataset);
    await markedHarborTask(dataset, { oracleWritesMark: true });
    await cp(join(FIXTURES, 'tb-v1/greet-file'), join(dataset, 'greet-file'), { recursive: true });
    const out = join(workDirectory, 'dataset-run');
    const run = await runCorral(['eval', dataset, '--agent', 'oracle', '-n', '1', '--out', out, '--no-progress']);
    expect(run.code, run.stderr).toBe(0);
    expect(readResults(out)).toHaveLength(1);
    // -n 1 made the run one task; a resume with the argument again must agree with the stored tasks folder.
    const resumed = await runCorral(['eval', dataset, '--resume', out, '--no-progress']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readMetadata(out)).toMatchObject({ status: 'complete', terminal: { tasks: dataset } });

    const both = join(workDirectory, 'dataset-both');
    const all = await runCorral(['eval', dataset, '--agent', 'oracle', '-c', '2', '--out', both, '--no-progress']);
    expect(all.code, all.stderr).toBe(0);
    expect(
      readResults(both)
        .map((record) => [record.example_id, record.reward, record.error])
        .sort(),
    ).toEqual([
      ['corral-fixtures/always-zero', 1, null],
      ['greet-file', 1, null],
    ]);
  }, 600_000);
});
