/**
 * The task store of the tasks extension (SEP-2663, io.modelcontextprotocol/tasks): every task a host's servers
 * create, whatever carries their requests (a sessionless 2026 request ends long before its task does). Bounded in
 * two ways that must not be confused: running tasks (real work on sandboxes) are capped per owner and in all, and
 * past a cap a new task is refused with a typed MCP_ERR_TASK_LIMIT; finished tasks hold no running slot, only a
 * kept result, and when the kept results reach their cap (per owner or in all) the oldest finished one is evicted
 * to make room, so kept results can never lock anyone out. Every task is dropped once its ttl from creation has
 * passed (a task still running then is aborted).
 * Isolated: a task is found only by its owner (the principal); another owner's id reads as unknown.
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult, InputRequest } from '@modelcontextprotocol/server';
import { CorralError } from '../core/errors.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The JSON-RPC error a failed task carries (SEP-2663: only protocol-level faults fail a task). */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** What a task's work gets: the signal tasks/cancel (or expiry, or shutdown) aborts, and a way to ask the client. */
export interface TaskControl {
  readonly signal: AbortSignal;
  /**
   * Parks the task in input_required until every request is answered through tasks/update, and resolves with the
   * answers by key. Keys are the task's own and must be new over its lifetime (the SEP forbids reusing one).
   */
  requestInput(requests: Readonly<Record<string, InputRequest>>): Promise<Record<string, unknown>>;
}

export type TaskWork = (control: TaskControl) => Promise<CallToolResult>;

/** The wire view of a task (SEP-2663 DetailedTask): what tasks/get and notifications/tasks carry. */
export interface TaskSnapshot {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  inputRequests?: Record<string, InputRequest>;
  result?: CallToolResult;
  error?: TaskError;
}

export interface TaskStoreLimits {
  /** Each task is kept this long from creation, then dropped (aborted first if still running). */
  ttlMs: number;
  /** The polling interval suggested to clients. */
  pollIntervalMs: number;
  /** Tasks of one owner still working or waiting for input; one more is refused. */
  maxLiveTasksPerOwner: number;
  /** Tasks still working or waiting for input, of all owners; one more is refused. */
  maxLiveTasks: number;
  /** Tasks of one owner kept, finished ones included; past it the owner's oldest finished task is evicted. */
  maxTasksPerOwner: number;
  /** Tasks kept in all; past it the oldest finished task of any owner is evicted. */
  maxTasks: number;
}

export const DEFAULT_TASK_STORE_LIMITS: TaskStoreLimits = Object.freeze({
  ttlMs: 3_600_000,
  pollIntervalMs: 1_000,
  maxLiveTasksPerOwner: 16,
  maxLiveTasks: 1_024,
  maxTasksPerOwner: 256,
  maxTasks: 4_096,
});

export type TaskChangeListener = (owner: string, task: TaskSnapshot) => void;

interface PendingInput {
  request: InputRequest;
  answer(value: unknown): void;
}

interface TaskRecord {
  readonly id: string;
  readonly owner: string;
  status: TaskStatus;
  statusMessage?: string;
  readonly createdAtMs: number;
  updatedAtMs: number;
  readonly abort: AbortController;
  readonly pending: Map<string, PendingInput>;
  readonly usedKeys: Set<string>;
  result?: CallToolResult;
  error?: TaskError;
}

/** A started task: its first snapshot, and a promise that settles when its work has ended (never rejects). */
export interface StartedTask {
  readonly snapshot: TaskSnapshot;
  readonly ended: Promise<void>;
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminalStatus(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

export class TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();
  /** The finished subset of `tasks`, in the order they finished: eviction takes the oldest first. */
  private readonly finished = new Map<string, TaskRecord>();
  /** Tasks kept per owner (live and finished), and live ones per owner and in all, so a start checks in O(1). */
  private readonly keptByOwner = new Map<string, number>();
  private readonly liveByOwner = new Map<string, number>();
  private liveCount = 0;
  private readonly listeners = new Set<TaskChangeListener>();
  private readonly limits: TaskStoreLimits;
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(limits: Partial<TaskStoreLimits> = {}) {
    const merged = { ...DEFAULT_TASK_STORE_LIMITS, ...limits };
    // Eviction only ever takes finished tasks, so each kept cap must leave room for every live task it covers.
    this.limits = {
      ...merged,
      maxTasksPerOwner: Math.max(merged.maxTasksPerOwner, merged.maxLiveTasksPerOwner),
      maxTasks: Math.max(merged.maxTasks, merged.maxLiveTasks),
    };
    this.sweepTimer = setInterval(() => this.sweep(), Math.max(1_000, Math.min(this.limits.ttlMs / 4, 60_000)));
    this.sweepTimer.unref();
  }

  /** Tasks kept, running and finished. */
  get size(): number {
    return this.tasks.size;
  }

  /** Tasks still working or waiting for input. */
  get liveSize(): number {
    return this.liveCount;
  }

  /**
   * Records a task for `owner` and starts `work` on it. The task is findable before this returns (the SEP's durable
   * create). `failure` turns what the work threw into the task's JSON-RPC error. Throws MCP_ERR_TASK_LIMIT.
   */
  start(owner: string, work: TaskWork, failure: (error: unknown) => TaskError): StartedTask {
    this.sweep();
    this.assertRoomFor(owner);
    this.makeRoomFor(owner);
    const nowMs = Date.now();
    const record: TaskRecord = {
      id: randomUUID(),
      owner,
      status: 'working',
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      abort: new AbortController(),
      pending: new Map(),
      usedKeys: new Set(),
    };
    this.tasks.set(record.id, record);
    increment(this.keptByOwner, owner, 1);
    increment(this.liveByOwner, owner, 1);
    this.liveCount++;
    const control: TaskControl = { signal: record.abort.signal, requestInput: (requests) => this.requestInput(record, requests) };
    const ended = Promise.resolve()
      // Cancelled before it began (a tasks/cancel in the same tick): the work never starts.
      .then(() => (record.abort.signal.aborted ? Promise.reject(record.abort.signal.reason) : work(control)))
      .then(
        (result) => this.settle(record, { status: 'completed', result }),
        (error: unknown) =>
          record.abort.signal.aborted ? this.settle(record, { status: 'cancelled' }) : this.settle(record, { status: 'failed', error: failure(error) }),
      );
    return { snapshot: this.snapshot(record), ended };
  }

  /** The owner's task, or undefined when unknown, expired or another owner's. */
  get(owner: string, taskId: string): TaskSnapshot | undefined {
    const record = this.find(owner, taskId);
    return record ? this.snapshot(record) : undefined;
  }

  /** Aborts the task's work and marks it cancelled; a finished task is left as it is. False when not found. */
  cancel(owner: string, taskId: string): boolean {
    const record = this.find(owner, taskId);
    if (!record) return false;
    if (!isTerminalStatus(record.status)) {
      this.settle(record, { status: 'cancelled', statusMessage: 'cancelled by the client' });
      record.abort.abort(new CorralError('MCP_ERR_TASK_CANCELLED', `task ${record.id} was cancelled`));
    }
    return true;
  }

  /**
   * Delivers answers to the task's outstanding input requests; answers to keys not outstanding are ignored (the
   * SEP's rule). The task stays input_required while any request is unanswered. False when not found.
   */
  update(owner: string, taskId: string, inputResponses: Readonly<Record<string, unknown>>): boolean {
    const record = this.find(owner, taskId);
    if (!record) return false;
    for (const [key, value] of Object.entries(inputResponses)) {
      const pending = record.pending.get(key);
      if (!pending) continue;
      record.pending.delete(key);
      pending.answer(value);
    }
    if (record.status === 'input_required' && record.pending.size === 0) this.change(record, 'working');
    else if (record.status === 'input_required') this.change(record, 'input_required');
    return true;
  }

  /** Forgets a finished task at once (a call answered within the immediate-result window never became one). */
  discard(owner: string, taskId: string): void {
    const record = this.find(owner, taskId);
    if (record && isTerminalStatus(record.status)) this.forget(record);
  }

  /** Hears every status change of every task (the host turns them into notifications/tasks). */
  onChange(listener: TaskChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drops expired tasks, aborting the ones still running. */
  sweep(nowMs = Date.now()): void {
    for (const record of this.tasks.values()) if (this.expired(record, nowMs)) this.drop(record, 'the task outlived its ttl');
  }

  /** Aborts every task and forgets them all (shutdown). Idempotent. */
  close(): void {
    clearInterval(this.sweepTimer);
    for (const record of this.tasks.values()) this.drop(record, 'the server is shutting down');
    this.listeners.clear();
  }

  /** Refuses a new task when its owner, or the server, already runs as many as allowed. */
  private assertRoomFor(owner: string): void {
    const live = this.liveByOwner.get(owner) ?? 0;
    const { maxLiveTasksPerOwner, maxLiveTasks } = this.limits;
    const refusal =
      live >= maxLiveTasksPerOwner
        ? `${live} tasks of this client are still running (at most ${maxLiveTasksPerOwner}); cancel one or wait for one to finish`
        : this.liveCount >= maxLiveTasks
          ? `the server is running ${this.liveCount} tasks (at most ${maxLiveTasks}); retry later`
          : undefined;
    if (refusal) throw new CorralError('MCP_ERR_TASK_LIMIT', `no new task: ${refusal}`, { details: { owner, live, running: this.liveCount } });
  }

  /** Evicts the oldest finished tasks (the owner's first) until one more task fits both kept caps. */
  private makeRoomFor(owner: string): void {
    if ((this.keptByOwner.get(owner) ?? 0) >= this.limits.maxTasksPerOwner) {
      for (const record of this.finished.values()) {
        if (record.owner !== owner) continue;
        this.forget(record);
        break;
      }
    }
    while (this.tasks.size >= this.limits.maxTasks) {
      const oldest = this.finished.values().next();
      if (oldest.done) return;
      this.forget(oldest.value);
    }
  }

  /** Removes a task from every index (its work, if any, is the caller's to abort). */
  private forget(record: TaskRecord): void {
    if (this.tasks.get(record.id) !== record) return;
    this.tasks.delete(record.id);
    increment(this.keptByOwner, record.owner, -1);
    if (this.finished.delete(record.id)) return;
    increment(this.liveByOwner, record.owner, -1);
    this.liveCount--;
  }

  private find(owner: string, taskId: string): TaskRecord | undefined {
    const record = this.tasks.get(taskId);
    if (!record || record.owner !== owner) return undefined;
    if (this.expired(record, Date.now())) {
      this.drop(record, 'the task outlived its ttl');
      return undefined;
    }
    return record;
  }

  private expired(record: TaskRecord, nowMs: number): boolean {
    return nowMs >= record.createdAtMs + this.limits.ttlMs;
  }

  private drop(record: TaskRecord, reason: string): void {
    // A running task is cancelled first, so whoever follows it (a status stream) hears that it ended.
    if (!isTerminalStatus(record.status)) this.settle(record, { status: 'cancelled', statusMessage: `dropped: ${reason}` });
    this.forget(record);
    record.abort.abort(new CorralError('MCP_ERR_TASK_CANCELLED', `task ${record.id} was dropped: ${reason}`));
  }

  private requestInput(record: TaskRecord, requests: Readonly<Record<string, InputRequest>>): Promise<Record<string, unknown>> {
    const keys = Object.keys(requests);
    const reused = keys.filter((key) => record.usedKeys.has(key));
    if (reused.length > 0) return Promise.reject(new Error(`input request keys reused within task ${record.id}: ${reused.join(', ')}`));
    if (record.abort.signal.aborted || isTerminalStatus(record.status)) return Promise.reject(record.abort.signal.reason ?? new Error('task ended'));
    const answers: Record<string, unknown> = {};
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      let outstanding = keys.length;
      const onAbort = () => {
        for (const key of keys) record.pending.delete(key);
        reject(record.abort.signal.reason);
      };
      record.abort.signal.addEventListener('abort', onAbort, { once: true });
      for (const key of keys) {
        record.usedKeys.add(key);
        record.pending.set(key, {
          request: requests[key]!,
          answer: (value) => {
            answers[key] = value;
            if (--outstanding > 0) return;
            record.abort.signal.removeEventListener('abort', onAbort);
            resolve(answers);
          },
        });
      }
      if (keys.length === 0) resolve(answers);
      else this.change(record, 'input_required');
    });
  }

  private settle(record: TaskRecord, outcome: { status: TaskStatus; result?: CallToolResult; error?: TaskError; statusMessage?: string }): void {
    // The first terminal status stands: work that ends after a cancel does not overwrite it.
    if (isTerminalStatus(record.status)) return;
    record.pending.clear();
    if (outcome.result) record.result = outcome.result;
    if (outcome.error) {
      record.error = outcome.error;
      record.statusMessage = outcome.error.message;
    }
    if (outcome.statusMessage) record.statusMessage = outcome.statusMessage;
    // From now on the task holds no running slot, only its kept result.
    if (this.tasks.get(record.id) === record) {
      this.finished.set(record.id, record);
      increment(this.liveByOwner, record.owner, -1);
      this.liveCount--;
    }
    this.change(record, outcome.status);
  }

  private change(record: TaskRecord, status: TaskStatus): void {
    record.status = status;
    record.updatedAtMs = Math.max(Date.now(), record.updatedAtMs);
    if (this.listeners.size === 0 || !this.tasks.has(record.id)) return;
    const snapshot = this.snapshot(record);
    for (const listener of this.listeners) listener(record.owner, snapshot);
  }

  private snapshot(record: TaskRecord): TaskSnapshot {
    return {
      taskId: record.id,
      status: record.status,
      ...(record.statusMessage !== undefined ? { statusMessage: record.statusMessage } : {}),
      createdAt: new Date(record.createdAtMs).toISOString(),
      lastUpdatedAt: new Date(record.updatedAtMs).toISOString(),
      ttlMs: this.limits.ttlMs,
      pollIntervalMs: this.limits.pollIntervalMs,
      ...(record.status === 'input_required' ? { inputRequests: Object.fromEntries([...record.pending].map(([key, pending]) => [key, pending.request])) } : {}),
      ...(record.status === 'completed' && record.result ? { result: record.result } : {}),
      ...(record.status === 'failed' && record.error ? { error: record.error } : {}),
    };
  }
}

/** Adds `delta` to a per-owner count, deleting the key at zero so the map holds only owners with tasks. */
function increment(counts: Map<string, number>, owner: string, delta: number): void {
  const next = (counts.get(owner) ?? 0) + delta;
  if (next > 0) counts.set(owner, next);
  else counts.delete(owner);
}
