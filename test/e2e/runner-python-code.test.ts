/**
 * The python-code environment against the real datasets in Docker sandboxes: the oracle (each problem's reference
 * solution) must pass every HumanEval and MBPP problem, and the empty agent (signature + pass) must pass none.
 * Together they bracket the rubric: anything between 0 and 100% would point at the sandbox, the tools, the
 * harness or the dataset loader. Runs `corral eval` as a child process with --backend docker -c 8.
 *
 * The environment comes from test/fixtures/runner/python-code-patient.ts (the built-in with a 180 s test limit),
 * because this checks correctness, not the speed of a loaded machine; see that file for the one slow reference.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { dataDirectoryWith } from '../helpers/test-gates.js';
import { RUNNER_FIXTURES, readMetadata, readResults, runCorral } from './runner-cli.js';

const dockerBackend = await backendAvailable('docker');
const dataDir = dockerBackend ? dataDirectoryWith(['mbpp/sanitized-mbpp.json']) : undefined;
const scratch = mkdtempSync(join(tmpdir(), 'corral-python-code-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DATASETS = [
  { name: 'HumanEval', file: 'humaneval/HumanEval.jsonl', problems: 164 },
  { name: 'MBPP (full)', file: 'mbpp/mbpp.jsonl', problems: 974 },
  { name: 'MBPP (sanitized)', file: 'mbpp/sanitized-mbpp.json', problems: 427 },
] as const;

async function evaluate(agent: 'oracle' | 'empty', datasetFile: string, out: string) {
  const environment = join(RUNNER_FIXTURES, 'python-code-patient.ts');
  const result = await runCorral([
    'eval',
    environment,
    '--dataset',
    join(dataDir!, datasetFile),
    '--agent',
    agent,
    '--backend',
    'docker',
    '-c',
    '8',
    '--out',
    out,
    '--no-progress',
  ]);
  expect(result.code, result.stderr).toBe(0);
  return readResults(out);
}

describe.skipIf(!dataDir)('python-code on the real datasets, docker backend', () => {
  for (const dataset of DATASETS) {
    it(`the oracle passes all ${dataset.problems} ${dataset.name} problems`, async () => {
      const out = join(scratch, `oracle-${dataset.file.replaceAll('/', '-')}`);
      const records = await evaluate('oracle', dataset.file, out);
      expect(new Set(records.map((record) => record.example_id)).size).toBe(dataset.problems);
      const failed = records
        .filter((record) => record.reward !== 1)
        .map((record) => `${record.example_id}: reward ${record.reward}, error ${record.error?.code ?? 'none'}`);
      expect(failed).toEqual([]);
      expect(readMetadata(out)).toMatchObject({ num_examples: dataset.problems, rollouts: dataset.problems, errored: 0, avg_reward: 1, status: 'complete' });
    }, 900_000);

    it(`the empty agent passes none of the ${dataset.problems} ${dataset.name} problems`, async () => {
      const out = join(scratch, `empty-${dataset.file.replaceAll('/', '-')}`);
      const records = await evaluate('empty', dataset.file, out);
      expect(records).toHaveLength(dataset.problems);
      // Scored 0, not errored: an errored rollout would say nothing about the rubric.
      const unexpected = records
        .filter((record) => record.reward !== 0 || record.error !== null)
        .map((record) => `${record.example_id}: reward ${record.reward}, error ${record.error?.code ?? 'none'}`);
      expect(unexpected).toEqual([]);
      expect(readMetadata(out)).toMatchObject({ rollouts: dataset.problems, errored: 0, avg_reward: 0 });
    }, 900_000);
  }
});
