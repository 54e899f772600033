import { describe, expect, it } from 'vitest';
import { CorralError } from '../../../../src/core/errors.js';
import type { Example } from '../../../../src/runner/contract/environment.js';
import { createCanaryRunner } from '../../../../src/runner/run/canaries/canary-runner.js';
import { erroredRecord } from '../../../../src/runner/run/errored-record.js';
import type { RecordSink } from '../../../../src/runner/run/record-sink.js';
import type { RolloutExecutor, RolloutWork } from '../../../../src/runner/run/rollout-executor.js';
import { runDriver } from '../../../../src/runner/run/run-driver.js';
import type { RunProgress } from '../../../../src/runner/run/run-progress.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';

const examples: Example[] = ['a', 'b', 'c'].map((id) => ({ id, prompt: id }));

/** A scored record: reward 1 on even rollout indices, 0 on odd ones. */
function scored(work: RolloutWork): ResultRecord {
  const base = erroredRecord(
    { example: work.example, rollout_index: work.rolloutIndex, environment: { name: 'test' } },
    { code: 'RUNNER_ERR_UNEXPECTED', message: '' },
    1,
  );
  return { ...base, error: null, reward: work.rolloutIndex % 2 === 0 ? 1 : 0 };
}

function memorySink(existing: ResultRecord[] = []): RecordSink & { groups: ResultRecord[][]; beats: RunProgress[] } {
  const groups: ResultRecord[][] = [];
  const beats: RunProgress[] = [];
  return { existing, groups, beats, writeGroup: (records) => void groups.push(records), heartbeat: (progress) => void beats.push(progress) };
}

const driverOptions = (executor: RolloutExecutor, sink: RecordSink) => ({
  task: 'test',
  examples,
  rolloutsPerExample: 2,
  concurrency: 4,
  executor,
  sink,
  abortSignal: new AbortController().signal,
});

describe('runDriver', () => {
  it('writes whole groups with statistics, tells the executor what was written, and plans each group first', async () => {
    const planned: string[] = [];
    const written: string[] = [];
    const sink = memorySink();
    const outcome = await runDriver(
      driverOptions(
        {
          run: async (work) => scored(work),
          plan: (example, rollouts) => void planned.push(`${example.id}x${rollouts}`),
          written: (keys) => void written.push(...keys),
        },
        sink,
      ),
    );
    expect(planned).toEqual(['ax2', 'bx2', 'cx2']);
    expect(sink.groups.map((group) => group.map((record) => `${record.example_id}#${record.rollout_index}`))).toEqual([
      ['a#0', 'a#1'],
      ['b#0', 'b#1'],
      ['c#0', 'c#1'],
    ]);
    expect(sink.groups[0]!.map((record) => record.group)).toEqual([
      { mean: 0.5, std: 0.5, size: 2, advantage: 0.5 },
      { mean: 0.5, std: 0.5, size: 2, advantage: -0.5 },
    ]);
    expect(written.sort()).toEqual(['a#0', 'a#1', 'b#0', 'b#1', 'c#0', 'c#1']);
    expect(outcome).toMatchObject({ stoppedByMaxErrors: false, cancelled: false, progress: { done: 6, total: 6, errored: 0, scored: 6, rewardSum: 3 } });
  });

  it('skips what the sink already holds (resume) and counts it in its group statistics', async () => {
    const earlier = { ...scored({ example: examples[0]!, rolloutIndex: 1, attempt: 1, abortSignal: new AbortController().signal }), reward: 0 };
    const ran: string[] = [];
    const sink = memorySink([earlier]);
    const outcome = await runDriver(
      driverOptions(
        {
          run: async (work) => {
            ran.push(`${work.example.id}#${work.rolloutIndex}`);
            return scored(work);
          },
        },
        sink,
      ),
    );
    expect(ran).not.toContain('a#1');
    expect(sink.groups[0]).toHaveLength(1);
    expect(sink.groups[0]![0]!.group).toEqual({ mean: 0.5, std: 0.5, size: 2, advantage: 0.5 });
    expect(outcome.progress).toMatchObject({ alreadyDone: 1, total: 5, done: 5 });
  });

  it('heartbeats on its timer while a rollout is still running, not only when a group completes', async () => {
    const sink = memorySink();
    const outcome = await runDriver({
      ...driverOptions(
        {
          run: async (work) => {
            const before = sink.beats.length;
            // Finishes only once the timer has beaten twice during this rollout.
            while (sink.beats.length < before + 2) await new Promise((resolve) => setTimeout(resolve, 5));
            return scored(work);
          },
        },
        sink,
      ),
      examples: examples.slice(0, 1),
      rolloutsPerExample: 1,
      heartbeatMs: 10,
    });
    expect(outcome.progress.done).toBe(1);
    expect(sink.groups).toHaveLength(1);
  });

  it('retries transient infrastructure failures, but not when the executor retries inside', async () => {
    for (const retriesInside of [false, true]) {
      const attempts: number[] = [];
      const sink = memorySink();
      await runDriver({
        ...driverOptions(
          {
            retriesInside,
            run: async (work) => {
              attempts.push(work.attempt);
              if (work.attempt < 2)
                return { ...scored(work), reward: null, error: { boundary: 'sandbox', code: 'POOL_ERR_CREATE_FAILED', message: 'x', transient: true } };
              return scored(work);
            },
          },
          sink,
        ),
        examples: examples.slice(0, 1),
        rolloutsPerExample: 1,
      });
      expect(attempts).toEqual(retriesInside ? [1] : [1, 2]);
      expect(sink.groups[0]![0]!.error === null).toBe(!retriesInside);
    }
  });

  it('records an executor that throws as an errored rollout (never reward 0) and stops past --max-errors', async () => {
    const sink = memorySink();
    const outcome = await runDriver({
      ...driverOptions(
        {
          run: async () => {
            throw new CorralError('SBX_ERR_UNAVAILABLE', 'docker went away');
          },
        },
        sink,
      ),
      concurrency: 1,
      maxAttempts: 1,
      maxErrors: 1,
    });
    expect(outcome.stoppedByMaxErrors).toBe(true);
    expect(outcome.cancelled).toBe(false);
    const records = sink.groups.flat();
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) expect(record).toMatchObject({ reward: null, error: { code: 'SBX_ERR_UNAVAILABLE', boundary: 'sandbox' } });
    expect(outcome.progress.errored).toBe(2);
    expect(outcome.progress.done).toBeLessThan(6);
  });

  it('does not record a rollout the executor reports cancelled (undefined), so resume redoes it', async () => {
    const controller = new AbortController();
    const sink = memorySink();
    const outcome = await runDriver({
      ...driverOptions(
        {
          run: async (work) => {
            if (work.example.id === 'b') {
              controller.abort();
              return undefined;
            }
            return scored(work);
          },
        },
        sink,
      ),
      concurrency: 1,
      abortSignal: controller.signal,
    });
    expect(outcome.cancelled).toBe(true);
    expect(sink.groups.flat().map((record) => record.example_id)).toEqual(['a', 'a']);
  });

  it('hands the executor the keys the sink holds before anything runs, and how the run ended after the last rollout', async () => {
    const earlier = scored({ example: examples[0]!, rolloutIndex: 0, attempt: 1, abortSignal: new AbortController().signal });
    const events: string[] = [];
    const executor = (stopAfter?: AbortController): RolloutExecutor => ({
      begin: (written) => void events.push(`begin ${[...written].join(',')}`),
      run: async (work) => {
        events.push(`run ${work.example.id}#${work.rolloutIndex}`);
        if (stopAfter && work.example.id === 'b') stopAfter.abort();
        return stopAfter?.signal.aborted ? undefined : scored(work);
      },
      end: (outcome) => void events.push(`end ${JSON.stringify(outcome)}`),
    });
    await runDriver({ ...driverOptions(executor(), memorySink([earlier])), concurrency: 1 });
    expect(events[0]).toBe('begin a#0');
    expect(events).not.toContain('run a#0');
    expect(events.at(-1)).toBe('end {"cancelled":false,"stoppedByMaxErrors":false,"complete":true}');

    events.length = 0;
    const controller = new AbortController();
    await runDriver({ ...driverOptions(executor(controller), memorySink()), concurrency: 1, abortSignal: controller.signal });
    expect(events.at(-1)).toBe('end {"cancelled":true,"stoppedByMaxErrors":false,"complete":false}');
  });
});

describe('runDriver with live canaries', () => {
  it('runs each canaried pair before its group, flags the quarantined group, counts no canary, and survives a canary that throws', async () => {
    const order: string[] = [];
    const canaried: string[] = [];
    const sink = { ...memorySink(), writeCanary: (outcome: { example_id: string }) => void canaried.push(outcome.example_id) };
    // The real canary runner over executors that score by example: b's oracle misses, c's canaries throw.
    const canaryExecutor = (role: string, reward: (id: string) => number): RolloutExecutor => ({
      run: async (work) => {
        order.push(`${role}:${work.example.id}`);
        if (work.example.id === 'c') throw new Error('canary executor lost');
        return { ...scored(work), reward: reward(work.example.id) };
      },
    });
    const canaries = createCanaryRunner({
      rate: 1,
      oracle: canaryExecutor('oracle', (id) => (id === 'b' ? 0.5 : 1)),
      floor: canaryExecutor('floor', () => 0),
      maximumReward: 1,
    });
    const outcome = await runDriver({
      ...driverOptions(
        {
          run: async (work) => {
            order.push(`run:${work.example.id}`);
            return scored(work);
          },
        },
        sink,
      ),
      canaries,
    });
    expect(outcome.progress).toMatchObject({ done: 6, total: 6 });
    expect(canaried.sort()).toEqual(['a', 'b']);
    for (const id of ['a', 'b', 'c']) expect(order.indexOf(`oracle:${id}`)).toBeLessThan(order.indexOf(`run:${id}`));
    const flagged = sink.groups.flat().filter((record) => record.quarantine);
    expect(flagged.map((record) => `${record.example_id}#${record.rollout_index}`)).toEqual(['b#0', 'b#1']);
    expect(flagged[0]!.quarantine).toEqual({ example_id: 'b', reasons: ['oracle-missed'], oracle_reward: 0.5, floor_reward: 0, oracle_error: null });
    // c's canaries threw: its group still ran, unflagged.
    expect(sink.groups.flat().filter((record) => record.example_id === 'c')).toHaveLength(2);
  });
});
