/**
 * Task status notifications (SEP-2663): a 2026-era `subscriptions/listen` request whose filter names `taskIds`
 * gets an SSE stream of `notifications/tasks`, each carrying the task as tasks/get would show it. The SDK's listen
 * router knows only list-changed and resource events, so the host answers these streams itself, before the SDK.
 * Only the caller's own tasks are honoured (others are left out of the acknowledgement, as unknown ones are); the
 * stream sends each task's current state at once, then every change, and ends once every task it follows has
 * finished. A listen request that does not declare the extension gets -32021. Such a stream carries task events
 * only: list-changed filters belong on a listen request of their own.
 */
import { CLIENT_CAPABILITIES_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { TASKS_EXTENSION_ID, tasksRequiredError } from './task-extension.js';
import { type TaskSnapshot, type TaskStore, isTerminalStatus } from './task-store.js';

const KEEP_ALIVE_MS = 15_000;
const MAX_TASK_IDS = 100;

const ListenRequest = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]),
  method: z.literal('subscriptions/listen'),
  params: z.looseObject({
    _meta: z.looseObject({}).optional(),
    notifications: z.looseObject({ taskIds: z.array(z.string().max(200)).max(MAX_TASK_IDS) }),
  }),
});

/** Whether the request may be a task-status listen: the SEP-2243 Mcp-Method header every 2026 request carries. */
export function mayBeTaskStatusListen(request: Request): boolean {
  return request.method === 'POST' && request.headers.get('mcp-method') === 'subscriptions/listen';
}

export class TaskStatusStreams {
  private readonly open = new Set<(graceful?: boolean) => void>();
  private readonly openByOwner = new Map<string, number>();

  constructor(
    private readonly store: TaskStore,
    private readonly limits: { maxStreams: number; maxStreamsPerOwner: number } = { maxStreams: 256, maxStreamsPerOwner: 16 },
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** The stream for a listen request naming taskIds; undefined for any other request (the SDK serves those). */
  async serve(request: Request, owner: string): Promise<Response | undefined> {
    let body: unknown;
    try {
      body = await request.clone().json();
    } catch {
      return undefined;
    }
    const parsed = ListenRequest.safeParse(body);
    if (!parsed.success) return undefined;
    const { id, params } = parsed.data;
    const capabilities = params._meta?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
    if (!capabilities?.extensions || !(TASKS_EXTENSION_ID in capabilities.extensions)) {
      const error = tasksRequiredError();
      return Response.json({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message, data: error.data } }, { status: 400 });
    }
    if (this.open.size >= this.limits.maxStreams || (this.openByOwner.get(owner) ?? 0) >= this.limits.maxStreamsPerOwner)
      return Response.json({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Subscription limit reached' } });
    const followed = new Map<string, TaskSnapshot>();
    for (const taskId of new Set(params.notifications.taskIds)) {
      const task = this.store.get(owner, taskId);
      if (task) followed.set(taskId, task);
    }
    return new Response(this.stream(id, owner, followed, request.signal), {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' },
    });
  }

  private countOwner(owner: string, delta: number): void {
    const count = (this.openByOwner.get(owner) ?? 0) + delta;
    if (count > 0) this.openByOwner.set(owner, count);
    else this.openByOwner.delete(owner);
  }

  /** Ends every stream (shutdown). */
  closeAll(): void {
    for (const close of [...this.open]) close(true);
  }

  private stream(id: string | number, owner: string, followed: Map<string, TaskSnapshot>, signal: AbortSignal): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const meta = { [SUBSCRIPTION_ID_META_KEY]: id };
    const pending = new Set([...followed.values()].filter((task) => !isTerminalStatus(task.status)).map((task) => task.taskId));
    let teardown: (graceful?: boolean) => void = () => {};
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        let closed = false;
        const write = (message: unknown) => {
          if (!closed) controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
        };
        const notify = (task: TaskSnapshot) => write({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...task, _meta: meta } });
        const keepAlive = setInterval(() => !closed && controller.enqueue(encoder.encode(': keepalive\n\n')), KEEP_ALIVE_MS);
        keepAlive.unref();
        let unsubscribe = () => {};
        teardown = (graceful = false) => {
          if (closed) return;
          if (graceful) write({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: meta } });
          closed = true;
          clearInterval(keepAlive);
          unsubscribe();
          signal.removeEventListener('abort', onAbort);
          if (this.open.delete(teardown)) this.countOwner(owner, -1);
          try {
            controller.close();
          } catch {
            // Already closed by the reader.
          }
        };
        const onAbort = () => teardown();
        write({
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { taskIds: [...followed.keys()] }, _meta: meta },
        });
        for (const task of followed.values()) notify(task);
        if (pending.size === 0) return teardown(true);
        this.open.add(teardown);
        this.countOwner(owner, +1);
        signal.addEventListener('abort', onAbort, { once: true });
        unsubscribe = this.store.onChange((taskOwner, task) => {
          if (taskOwner !== owner || !followed.has(task.taskId)) return;
          notify(task);
          if (isTerminalStatus(task.status)) pending.delete(task.taskId);
          if (pending.size === 0) teardown(true);
        });
      },
      cancel: () => teardown(),
    });
  }
}
