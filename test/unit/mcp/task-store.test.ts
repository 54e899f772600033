/**
 * The tasks extension's store: owner isolation, running caps with a typed error, eviction of the oldest finished
 * results when the kept caps are full, ttl expiry, input requests, cancellation.
 */
import { inputRequired } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { CorralError } from '../../../src/core/errors.js';
import { type TaskControl, TaskStore } from '../../../src/mcp/task-store.js';

const failure = (error: unknown) => ({ code: -32603, message: error instanceof Error ? error.message : String(error) });
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const stores: TaskStore[] = [];
const newStore = (limits: ConstructorParameters<typeof TaskStore>[0] = {}) => {
  const store = new TaskStore(limits);
  stores.push(store);
  return store;
};
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

/** Work that runs until its signal aborts, and says so. */
function untilAborted(seen: { aborted?: unknown }) {
  return (control: TaskControl) =>
    new Promise<never>((_resolve, reject) => {
      const stop = () => {
        seen.aborted = control.signal.reason;
        reject(control.signal.reason);
      };
      if (control.signal.aborted) stop();
      else control.signal.addEventListener('abort', stop);
    });
}

describe('TaskStore', () => {
  it('finds a task only for its owner, and completes it with the work result', async () => {
    const store = newStore();
    const started = store.start('alice', async () => text('done'), failure);
    expect(store.get('alice', started.snapshot.taskId)?.status).toBe('working');
    expect(store.get('bob', started.snapshot.taskId)).toBeUndefined();
    expect(store.cancel('bob', started.snapshot.taskId)).toBe(false);
    expect(store.update('bob', started.snapshot.taskId, {})).toBe(false);
    await started.ended;
    const task = store.get('alice', started.snapshot.taskId)!;
    expect(task).toMatchObject({ status: 'completed', result: text('done') });
    expect(Number.isInteger(task.ttlMs) && Number.isInteger(task.pollIntervalMs)).toBe(true);
    expect(task.error).toBeUndefined();
  });

  it('fails a task whose work throws, with the JSON-RPC error and no result', async () => {
    const store = newStore();
    const started = store.start('alice', () => Promise.reject(new Error('boom')), failure);
    await started.ended;
    const task = store.get('alice', started.snapshot.taskId)!;
    expect(task).toMatchObject({ status: 'failed', error: { code: -32603, message: 'boom' } });
    expect(task.result).toBeUndefined();
  });

  it('cancel aborts the work, marks the task cancelled, and is idempotent on a finished task', async () => {
    const store = newStore();
    const seen: { aborted?: unknown } = {};
    const started = store.start('alice', untilAborted(seen), failure);
    await new Promise((resolve) => setImmediate(resolve)); // the work is running now
    expect(store.cancel('alice', started.snapshot.taskId)).toBe(true);
    await started.ended;
    expect(CorralError.isInstance(seen.aborted) && seen.aborted.code).toBe('MCP_ERR_TASK_CANCELLED');
    expect(store.get('alice', started.snapshot.taskId)?.status).toBe('cancelled');
    expect(store.cancel('alice', started.snapshot.taskId)).toBe(true);
    expect(store.get('alice', started.snapshot.taskId)?.status).toBe('cancelled');
  });

  it('parks a task in input_required until every request is answered, answer by answer', async () => {
    const store = newStore();
    const ask = (message: string) => inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: {} } });
    const started = store.start(
      'alice',
      async (control) => {
        const answers = await control.requestInput({ first: ask('one?'), second: ask('two?') });
        return text(`${String(answers.first)}+${String(answers.second)}`);
      },
      failure,
    );
    await new Promise((resolve) => setImmediate(resolve));
    const id = started.snapshot.taskId;
    expect(Object.keys(store.get('alice', id)?.inputRequests ?? {})).toEqual(['first', 'second']);
    expect(store.update('alice', id, { first: 'a', never_asked: 'ignored' })).toBe(true);
    expect(store.get('alice', id)).toMatchObject({ status: 'input_required', inputRequests: { second: expect.any(Object) } });
    expect(Object.keys(store.get('alice', id)?.inputRequests ?? {})).toEqual(['second']);
    store.update('alice', id, { second: 'b' });
    await started.ended;
    expect(store.get('alice', id)).toMatchObject({ status: 'completed', result: text('a+b') });
  });

  it('refuses a task past the per-owner live cap with MCP_ERR_TASK_LIMIT, and not for another owner', () => {
    const store = newStore({ maxLiveTasksPerOwner: 2 });
    const seen = {};
    store.start('alice', untilAborted(seen), failure);
    store.start('alice', untilAborted(seen), failure);
    expect(() => store.start('alice', untilAborted(seen), failure)).toThrow(expect.objectContaining({ code: 'MCP_ERR_TASK_LIMIT' }));
    expect(() => store.start('bob', untilAborted(seen), failure)).not.toThrow();
  });

  it('keeps a finished task until its ttl when there is room, then drops it', async () => {
    const store = newStore({ ttlMs: 60_000 });
    const first = store.start('alice', async () => text('kept'), failure);
    await first.ended;
    store.sweep(Date.now() + 30_000);
    expect(store.get('alice', first.snapshot.taskId)?.status).toBe('completed');
    store.sweep(Date.now() + 60_001);
    expect(store.get('alice', first.snapshot.taskId)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('finished tasks hold no running slot: the server-wide running cap counts live tasks only', async () => {
    const store = newStore({ maxLiveTasks: 2 });
    for (const owner of ['alice', 'bob']) await store.start(owner, async () => text('done'), failure).ended;
    const seen = {};
    store.start('carol', untilAborted(seen), failure);
    store.start('dave', untilAborted(seen), failure);
    expect(store.liveSize).toBe(2);
    expect(() => store.start('erin', untilAborted(seen), failure)).toThrow(expect.objectContaining({ code: 'MCP_ERR_TASK_LIMIT' }));
  });

  it("evicts the owner's oldest finished task past the per-owner kept cap instead of refusing", async () => {
    const store = newStore({ maxTasksPerOwner: 2, maxLiveTasksPerOwner: 2 });
    const bobs = await store.start('bob', async () => text('bob'), failure).ended.then(() => store.size);
    const first = store.start('alice', async () => text('one'), failure);
    await first.ended;
    const second = store.start('alice', async () => text('two'), failure);
    await second.ended;
    const third = store.start('alice', async () => text('three'), failure);
    await third.ended;
    expect(store.get('alice', first.snapshot.taskId)).toBeUndefined();
    expect(store.get('alice', second.snapshot.taskId)?.result).toEqual(text('two'));
    expect(store.get('alice', third.snapshot.taskId)?.result).toEqual(text('three'));
    expect(bobs).toBe(1);
    expect(store.size).toBe(3);
  });

  it('evicts the oldest finished task of any owner past the server-wide kept cap, never a running one', async () => {
    const store = newStore({ maxTasks: 3, maxLiveTasks: 2 });
    const seen = {};
    const running = store.start('alice', untilAborted(seen), failure);
    const oldest = store.start('bob', async () => text('old'), failure);
    await oldest.ended;
    const newer = store.start('carol', async () => text('new'), failure);
    await newer.ended;
    const next = store.start('dave', async () => text('next'), failure);
    await next.ended;
    expect(store.get('bob', oldest.snapshot.taskId)).toBeUndefined();
    expect(store.get('alice', running.snapshot.taskId)?.status).toBe('working');
    expect(store.get('carol', newer.snapshot.taskId)?.status).toBe('completed');
    expect(store.get('dave', next.snapshot.taskId)?.status).toBe('completed');
  });

  it('16 owners filling every kept slot with finished tasks do not lock a 17th out (issue 20)', async () => {
    const store = newStore();
    for (let owner = 0; owner < 16; owner++) for (let task = 0; task < 256; task++) await store.start(`bearer-${owner}`, async () => text('x'), failure).ended;
    expect(store.size).toBe(4_096);
    const newcomer = store.start('someone-else', async () => text('served'), failure);
    await newcomer.ended;
    expect(store.get('someone-else', newcomer.snapshot.taskId)?.result).toEqual(text('served'));
    expect(store.size).toBe(4_096);
  });

  it('aborts a task still running when its ttl passes', async () => {
    const store = newStore({ ttlMs: 60_000 });
    const seen: { aborted?: unknown } = {};
    const started = store.start('alice', untilAborted(seen), failure);
    const heard: string[] = [];
    store.onChange((_owner, task) => heard.push(task.status));
    await new Promise((resolve) => setImmediate(resolve));
    store.sweep(Date.now() + 60_001);
    await started.ended;
    expect(seen.aborted).toBeDefined();
    expect(store.size).toBe(0);
    // Followers (status streams) hear that it ended.
    expect(heard).toEqual(['cancelled']);
  });

  it('tells listeners about every status change, with the owner', async () => {
    const store = newStore();
    const changes: string[] = [];
    store.onChange((owner, task) => changes.push(`${owner}:${task.status}`));
    const started = store.start('alice', async () => text('x'), failure);
    await started.ended;
    expect(changes).toEqual(['alice:completed']);
  });
});
