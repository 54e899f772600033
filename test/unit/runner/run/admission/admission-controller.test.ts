import { describe, expect, it } from 'vitest';
import { AdmissionController } from '../../../../../src/runner/run/admission/admission-controller.js';
import { reportLoad } from '../../../../../src/runner/run/admission/load-signals.js';

/** A task that runs until `finish` is called. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { task: () => done.then(() => 'done'), finish };
}

describe('AdmissionController', () => {
  it('admits up to the level, queues the rest FIFO and admits them as slots free', async () => {
    const controller = new AdmissionController({ mode: 'fixed', maxConcurrency: 2 });
    const signal = new AbortController().signal;
    const order: number[] = [];
    const tasks = [0, 1, 2, 3].map(() => held());
    const runs = tasks.map((each, index) => controller.run(signal, () => (order.push(index), each.task())));
    await Promise.resolve();
    expect(order).toEqual([0, 1]);
    expect(controller.snapshot()).toMatchObject({ mode: 'fixed', level: 2, in_flight: 2, waiting: 2 });
    tasks[1]!.finish();
    await runs[1];
    expect(order).toEqual([0, 1, 2]);
    for (const each of tasks) each.finish();
    expect(await Promise.all(runs)).toEqual(['done', 'done', 'done', 'done']);
    expect(controller.snapshot()).toMatchObject({ in_flight: 0, waiting: 0, peak_in_flight: 2 });
  });

  it('gives up a wait when the run is cancelled, without running the task or taking a slot', async () => {
    const controller = new AdmissionController({ mode: 'fixed', maxConcurrency: 1 });
    const first = held();
    const running = controller.run(new AbortController().signal, first.task);
    const cancel = new AbortController();
    let ran = false;
    const waiting = controller.run(cancel.signal, async () => (ran = true));
    cancel.abort();
    expect(await waiting).toBeUndefined();
    first.finish();
    await running;
    expect(ran).toBe(false);
    expect(controller.snapshot()).toMatchObject({ in_flight: 0, waiting: 0 });
  });

  it('hears the signals reported inside the rollouts it admitted, and records each level change', async () => {
    let nowMs = 0;
    const controller = new AdmissionController({ mode: 'auto', maxConcurrency: 64, now: () => nowMs, freeMemory: () => 0.5 });
    const signal = new AbortController().signal;
    // 8 rollouts at once: the first 4 get in; each reports one successful model call, so the ramp opens a slot per call.
    await Promise.all(
      Array.from({ length: 8 }, () =>
        controller.run(signal, async () => {
          nowMs += 1;
          await Promise.resolve();
          reportLoad({ kind: 'model-call', outcome: 'ok', startedAtMs: nowMs - 1, latencyMs: 1 });
        }),
      ),
    );
    reportLoad({ kind: 'model-call', outcome: 'overloaded', startedAtMs: nowMs, latencyMs: 1 });
    const snapshot = controller.snapshot();
    expect(snapshot.level).toBeGreaterThan(4);
    expect(snapshot.peak_in_flight).toBeGreaterThan(4);
    expect(snapshot.history[0]).toEqual([0, 4]);
    expect(snapshot.history.at(-1)![1]).toBe(snapshot.level);
    // The 429 above came from outside any admitted rollout: no one's signal, ignored.
    expect(snapshot.cuts).toEqual({});
    controller.observe({ kind: 'model-call', outcome: 'overloaded', startedAtMs: nowMs, latencyMs: 1 });
    expect(controller.snapshot().cuts).toEqual({ overload: 1 });
    expect(controller.snapshot().level).toBeLessThan(snapshot.level);
  });

  it('counts each rollout refused in a burst once towards what the endpoint took, however often its retries are refused', async () => {
    let nowMs = 0;
    const controller = new AdmissionController({ mode: 'auto', maxConcurrency: 64, policy: { initialLevel: 10 }, now: () => nowMs, freeMemory: () => 0.5 });
    const signal = new AbortController().signal;
    const refuse = () => reportLoad({ kind: 'model-call', outcome: 'overloaded', startedAtMs: nowMs, latencyMs: 1 });
    const steps = Array.from({ length: 10 }, () => held());
    const runs = steps.map((step, index) =>
      controller.run(signal, async () => {
        await step.task();
        // Rollout 0 is refused and then refused on each of its 4 retries; rollout 1 is refused once.
        if (index === 0) for (let attempt = 0; attempt < 5; attempt++) refuse();
        if (index === 1) refuse();
      }),
    );
    nowMs = 10;
    steps[0]!.finish();
    await runs[0];
    // The first refusal cut 10 -> 7; the retries of the same rollout changed nothing.
    expect(controller.snapshot()).toMatchObject({ level: 7, cuts: { overload: 1 } });
    steps[1]!.finish();
    await runs[1];
    // Another rollout refused in the same burst: the endpoint took 8, refused the 9th, and the level follows to 0.7 x 9.
    expect(controller.snapshot()).toMatchObject({ level: 6, cuts: { overload: 1 } });
    for (const step of steps) step.finish();
    await Promise.all(runs);
  });

  it('cuts the level when host memory runs short', async () => {
    let nowMs = 0;
    let free = 0.5;
    const controller = new AdmissionController({ mode: 'auto', maxConcurrency: 64, policy: { initialLevel: 40 }, now: () => nowMs, freeMemory: () => free });
    const signal = new AbortController().signal;
    await controller.run(signal, async () => undefined);
    expect(controller.level).toBe(40);
    free = 0.01;
    nowMs += 5_000;
    await controller.run(signal, async () => undefined);
    expect(controller.level).toBe(28);
    expect(controller.snapshot()).toMatchObject({ reason: 'memory', cuts: { memory: 1 } });
  });

  it('keeps a fixed level whatever it hears', () => {
    const controller = new AdmissionController({ mode: 'fixed', maxConcurrency: 256 });
    controller.observe({ kind: 'model-call', outcome: 'overloaded', startedAtMs: 0, latencyMs: 1 });
    controller.observe({ kind: 'memory-pressure', freeFraction: 0 });
    expect(controller.snapshot()).toMatchObject({ level: 256, phase: 'fixed', history: [[0, 256]] });
  });
});
