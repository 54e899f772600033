/**
 * The results-file sink under the real run driver: whole groups in results.jsonl, metadata.json "running" with the
 * progress of the whole run (rollouts written before a resume included), the after-group hook (the Harbor job
 * layout of a terminal run) called once per written group, and a failing hook logged without losing the group.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Example } from '../../../../src/runner/contract/environment.js';
import { erroredRecord } from '../../../../src/runner/run/errored-record.js';
import { openResultsFileSink } from '../../../../src/runner/run/results-file-sink.js';
import type { RolloutWork } from '../../../../src/runner/run/rollout-executor.js';
import { runDriver } from '../../../../src/runner/run/run-driver.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';
import { ResultsWriter } from '../../../../src/runner/trajectory/results-writer.js';

const examples: Example[] = ['a', 'b'].map((id) => ({ id, prompt: id }));
const directories: string[] = [];

function scored(work: Pick<RolloutWork, 'example' | 'rolloutIndex'>): ResultRecord {
  const base = erroredRecord(
    { example: work.example, rollout_index: work.rolloutIndex, environment: { name: 'test' } },
    { code: 'RUNNER_ERR_UNEXPECTED', message: '' },
    1,
  );
  return { ...base, error: null, reward: 1 };
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('the results-file sink', () => {
  it('writes whole groups, heartbeats the whole run in metadata.json and calls the after-group hook once per group', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'corral-results-sink-'));
    directories.push(directory);
    // A resumed run: a#0 was written by an earlier session.
    ResultsWriter.replaceRecords(directory, [scored({ example: examples[0]!, rolloutIndex: 0 })]);
    const hooked: string[][] = [];
    const logged: string[] = [];
    const beats: unknown[] = [];
    const sink = openResultsFileSink({
      directory,
      metadata: () => ({ env: 'test', beat: beats.length }),
      plannedRollouts: 4,
      afterGroup: (records) => {
        hooked.push(records.map((record) => `${record.example_id}#${record.rollout_index}`));
        if (records[0]!.example_id === 'b') throw new Error('the Harbor layout could not be written');
      },
      log: (line) => logged.push(line),
    });
    const outcome = await runDriver({
      task: 'test',
      examples,
      rolloutsPerExample: 2,
      concurrency: 2,
      executor: {
        run: async (work) => {
          // Every rollout sees metadata.json "running" with the progress of the whole run so far.
          const metadata = JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8')) as { status: string; progress: { total: number } };
          beats.push(metadata);
          expect(metadata).toMatchObject({ status: 'running', progress: { total: 4 } });
          return scored(work);
        },
      },
      sink,
      abortSignal: new AbortController().signal,
    });
    sink.close();
    expect(outcome.progress).toMatchObject({ alreadyDone: 1, done: 3, total: 3 });
    expect(hooked).toEqual([['a#1'], ['b#0', 'b#1']]);
    expect(logged.some((line) => line.includes('the Harbor layout could not be written'))).toBe(true);
    expect(ResultsWriter.readRecords(directory).map((record) => `${record.example_id}#${record.rollout_index}`)).toEqual(['a#0', 'a#1', 'b#0', 'b#1']);
    const last = JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8')) as Record<string, unknown>;
    expect(last).toMatchObject({ env: 'test', status: 'running', progress: { done: 4, total: 4, errored_this_session: 0 } });
  });
});
