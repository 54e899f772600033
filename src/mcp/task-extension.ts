/**
 * The tasks extension (SEP-2663, io.modelcontextprotocol/tasks) on one MCP server: the capability under
 * `capabilities.extensions` (so server/discover and initialize show it), tasks/get, tasks/update and
 * tasks/cancel over the host's TaskStore, and the step that turns a tools/call into a task. Task creation is
 * server-directed: only a request that declares the extension (its 2026 `_meta` envelope, or a 2025 session's
 * initialize capabilities) can get a CreateTaskResult; the others run synchronously, or get -32021 from a tool
 * that cannot run without a task. The removed v1 methods (tasks/result, tasks/list) stay unknown (-32601).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toProtocolError } from './protocol-error-mapping.js';
import type { TaskError, TaskSnapshot, TaskStore, TaskWork } from './task-store.js';

export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** How a tool relates to tasks: never one, one when the client allows it, or only as one. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** What one server's requests reach of the host's task store. */
export interface ServerTasks {
  readonly store: TaskStore;
  /** Whose tasks this server's requests see and create (the principal): nobody else's are found. */
  readonly owner: string;
  /** Given each started task's end, so the sandboxes the task runs on outlive the request that started it. */
  readonly holdUntil?: (ended: Promise<void>) => void;
}

/** The SEP's CreateTaskResult: a flat Result & Task (no result, error or inputRequests; those are tasks/get's). */
export type CreateTaskResult = { resultType: 'task' } & Omit<TaskSnapshot, 'inputRequests' | 'result' | 'error'>;

export function tasksRequiredError(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } });
}

/**
 * Whether this request declared the extension: per request in its `_meta` (2026 envelope, or a 2025 request opting
 * in for one call), else the capabilities a 2025 session gave at initialize. Never inferred from earlier requests.
 */
export function requestDeclaresTasks(server: McpServer, context: ServerContext, params?: { _meta?: unknown }): boolean {
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const perRequest = envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? meta?.[CLIENT_CAPABILITIES_META_KEY];
  if (perRequest !== undefined) return declaresTasks(perRequest);
  return context.mcpReq.envelope === undefined && sessionDeclaresTasks(server);
}

/** A 2025-era session's declaration at initialize (what the fast path, which has no request context, checks). */
export function sessionDeclaresTasks(server: McpServer): boolean {
  return declaresTasks(server.server.getClientCapabilities());
}

function declaresTasks(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION_ID in extensions;
}

const TASK_PARAMS = z.object({ taskId: z.string().min(1).max(200) });
const UPDATE_PARAMS = TASK_PARAMS.extend({ inputResponses: z.record(z.string(), z.unknown()) });
/** The SDK checks params before a handler runs; the gate must come first, so that check lets anything through. */
const ANY_PARAMS = { params: z.looseObject({}) };

/** Declares the extension and answers the three task methods for `tasks.owner`'s tasks. Before the server connects. */
export function registerTaskMethods(server: McpServer, tasks: ServerTasks): void {
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION_ID]: {} } });
  const { store, owner } = tasks;
  /** A request that did not declare the extension is refused before anything else (-32021), then params are checked. */
  const admit = <T>(schema: z.ZodType<T>, params: unknown, context: ServerContext): T => {
    if (!requestDeclaresTasks(server, context)) throw tasksRequiredError();
    const parsed = schema.safeParse(params);
    if (!parsed.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  };
  const unknownTask = (taskId: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: task ${taskId} not found (unknown, expired or not yours)`);

  server.server.setRequestHandler('tasks/get', ANY_PARAMS, (raw, context) => {
    const params = admit(TASK_PARAMS, raw, context);
    const task = store.get(owner, params.taskId);
    if (!task) throw unknownTask(params.taskId);
    return { resultType: 'complete', ...task };
  });
  server.server.setRequestHandler('tasks/update', ANY_PARAMS, (raw, context) => {
    // The SDK lifts a request's inputResponses into the context (the multi-round-trip seam); take them from there.
    const params = admit(UPDATE_PARAMS, { ...raw, inputResponses: raw.inputResponses ?? context.mcpReq.inputResponses }, context);
    if (!store.update(owner, params.taskId, params.inputResponses)) throw unknownTask(params.taskId);
    return { resultType: 'complete' };
  });
  server.server.setRequestHandler('tasks/cancel', ANY_PARAMS, (raw, context) => {
    const params = admit(TASK_PARAMS, raw, context);
    // Idempotent: a finished task acknowledges the same way (-32602 is for unknown ids only).
    if (!store.cancel(owner, params.taskId)) throw unknownTask(params.taskId);
    return { resultType: 'complete' };
  });
}

/**
 * Runs a tool call as a task: recorded (findable by tasks/get) before this returns, its work started. A call that
 * finishes within `immediateWindowMs` is answered directly instead (the SEP's immediate-result shortcut) and
 * leaves no task behind; a protocol fault within the window is thrown as it would be without a task.
 */
export async function startToolTask(
  tasks: ServerTasks,
  work: TaskWork,
  options: { immediateWindowMs?: number } = {},
): Promise<CallToolResult | CreateTaskResult> {
  const started = tasks.store.start(tasks.owner, work, taskErrorOf);
  tasks.holdUntil?.(started.ended);
  const windowMs = options.immediateWindowMs ?? 0;
  const taskId = started.snapshot.taskId;
  if (windowMs > 0) {
    let timer: NodeJS.Timeout | undefined;
    const endedInTime = await Promise.race([
      started.ended.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), windowMs))),
    ]);
    clearTimeout(timer);
    const now = endedInTime ? tasks.store.get(tasks.owner, taskId) : undefined;
    if (now?.status === 'completed' && now.result) {
      tasks.store.discard(tasks.owner, taskId);
      return now.result;
    }
    if (now?.status === 'failed' && now.error) {
      tasks.store.discard(tasks.owner, taskId);
      throw new ProtocolError(now.error.code, now.error.message, now.error.data);
    }
  }
  const current = tasks.store.get(tasks.owner, taskId) ?? started.snapshot;
  return createTaskResult(current);
}

function createTaskResult(task: TaskSnapshot): CreateTaskResult {
  const { inputRequests: _inputRequests, result: _result, error: _error, ...seed } = task;
  return { resultType: 'task', ...seed };
}

/** A fault thrown by a task's work, as the JSON-RPC error its failed status carries. */
export function taskErrorOf(error: unknown): TaskError {
  const protocolError = toProtocolError(error);
  return { code: protocolError.code, message: protocolError.message, ...(protocolError.data !== undefined ? { data: protocolError.data } : {}) };
}
