/**
 * The tasks extension (SEP-2663) on a real corral server with real process and Docker sandboxes, driven by the SDK client
 * (which has no SEP-2663 helpers, so tools/call and the task methods go through client.request with our own
 * result schemas, and its decoder, which refuses resultType "task", sees CreateTaskResults through a small
 * shim). A long bash call declared by a task-capable client becomes a task at once, is seen working,
 * then completes with the output; another is cancelled and its process really dies (the file it would write after
 * its sleep never appears), and the sandbox serves the next call. Another principal can neither read nor cancel
 * the task.
 */
import { Client, type JSONRPCMessage, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TASKS_EXTENSION_ID } from '../../src/mcp/task-extension.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { MODERN_PROTOCOL_VERSION } from '../helpers/mcp-clients.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { cites } from './mcp-requirements.js';

const backends = [
  { name: 'process' as const, available: await backendAvailable('process') },
  { name: 'docker' as const, available: await backendAvailable('docker') },
];

const TOKEN = 'tasks-test-token';
const headersFor = (principal: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-test-client': principal });

const ContentSchema = z.array(z.looseObject({ type: z.string(), text: z.string().optional() }));
/** A tools/call answer: a CallToolResult, or a CreateTaskResult (wireResultType "task", set by the shim below). */
const CallOrTaskSchema = z.looseObject({
  resultType: z.string().optional(),
  wireResultType: z.string().optional(),
  taskId: z.string().optional(),
  status: z.string().optional(),
  ttlMs: z.number().nullable().optional(),
  pollIntervalMs: z.number().optional(),
  content: ContentSchema.optional(),
  isError: z.boolean().optional(),
});
// The SDK's decoder checks resultType ("complete") and strips it before these schemas see the result.
const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  result: z.looseObject({ content: ContentSchema, isError: z.boolean().optional() }).optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
});
const AckSchema = z.looseObject({});
type Task = z.infer<typeof TaskSchema>;

/**
 * SDK 2.4.0's result decoder rejects any resultType but complete and input_required ("Unsupported result type
 * 'task'"), so CreateTaskResults reach client.request relabelled: resultType complete, the wire's kept in
 * wireResultType, everything else untouched. Nothing else on the wire is changed.
 */
function acceptCreateTaskResults(transport: StreamableHTTPClientTransport): StreamableHTTPClientTransport {
  let handler: ((message: JSONRPCMessage, extra?: unknown) => void) | undefined;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    set: (value: typeof handler) => (handler = value),
    get: () =>
      handler &&
      ((message: JSONRPCMessage, extra?: unknown) => {
        const result = (message as { result?: Record<string, unknown> }).result;
        if (result?.resultType !== 'task') return handler!(message, extra);
        handler!({ ...message, result: { ...result, resultType: 'complete', wireResultType: 'task', content: [] } } as JSONRPCMessage, extra);
      }),
  });
  return transport;
}

describe.each(backends)('the tasks extension (SEP-2663) with a $name sandbox', ({ name: backend, available }) => {
  if (!available) return;
  let server: TestServer;
  let handleUrl: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer({ backend, token: TOKEN, resolvePrincipal: (headers) => String(headers['x-test-client'] ?? 'nobody') });
    // A handle keeps one sandbox across sessionless requests, so a later call sees what the cancelled one left.
    const response = await fetch(`${server.baseUrl}/v1/sandboxes`, {
      method: 'POST',
      headers: { ...headersFor('alice'), 'content-type': 'application/json' },
      body: JSON.stringify({ env: 'python' }),
    });
    expect(response.status).toBe(201);
    handleUrl = ((await response.json()) as { mcpUrl: string }).mcpUrl;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await server?.close();
  });

  /** A sessionless 2026-era client that declares the tasks extension on every request. */
  async function taskClient(principal: string, url = handleUrl): Promise<Client> {
    const client = new Client(
      { name: 'corral-tasks-e2e', version: '1.0.0' },
      { capabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } }, versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
    );
    await client.connect(acceptCreateTaskResults(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: headersFor(principal) } })));
    clients.push(client);
    return client;
  }

  const bash = (client: Client, command: string) =>
    client.request({ method: 'tools/call', params: { name: 'bash', arguments: { command, timeout_s: 60 } } }, CallOrTaskSchema);
  const getTask = (client: Client, taskId: string) => client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema);
  const cancelTask = (client: Client, taskId: string) => client.request({ method: 'tasks/cancel', params: { taskId } }, AckSchema);

  /** Polls until the task ends; returns every status seen on the way and the final task. */
  async function pollToEnd(client: Client, taskId: string): Promise<{ seen: string[]; final: Task }> {
    const seen: string[] = [];
    for (;;) {
      const task = await getTask(client, taskId);
      seen.push(task.status);
      if (task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled') return { seen, final: task };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** The text of a call that may have become a task (short commands are answered directly). */
  async function bashText(client: Client, command: string): Promise<string> {
    const answer = await bash(client, command);
    const result = answer.wireResultType === 'task' ? (await pollToEnd(client, answer.taskId!)).final.result : answer;
    return (result?.content ?? []).map((block) => block.text ?? '').join('\n');
  }

  it(`runs a long bash call as a task: a task id at once, working while it runs, then the output ${cites('TASK-LIFECYCLE')}`, async () => {
    const client = await taskClient('alice');
    const created = await bash(client, 'sleep 5; echo done-after-sleep');
    expect(created.wireResultType).toBe('task');
    expect(created.taskId).toEqual(expect.any(String));
    expect(created.status).toBe('working');
    expect(Number.isInteger(created.ttlMs)).toBe(true);
    // Durable create: the task is there for the very next request.
    expect((await getTask(client, created.taskId!)).status).toBe('working');

    const { seen, final } = await pollToEnd(client, created.taskId!);
    expect(seen).toContain('working');
    expect(final.status).toBe('completed');
    expect(final.result?.isError).not.toBe(true);
    expect(final.result?.content.map((block) => block.text).join('\n')).toContain('done-after-sleep');
  }, 60_000);

  it(`streams the task's status on subscriptions/listen: working, then completed with the output ${cites('TASK-NOTIFY')}`, async () => {
    const client = await taskClient('alice');
    const created = await bash(client, 'sleep 3; echo heard-on-the-stream');
    expect(created.wireResultType).toBe('task');
    const listen = (principal: string, capabilities: Record<string, unknown>, url = handleUrl) =>
      fetch(url, {
        method: 'POST',
        headers: {
          ...headersFor(principal),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-method': 'subscriptions/listen',
          'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'listen-1',
          method: 'subscriptions/listen',
          params: {
            notifications: { taskIds: [created.taskId] },
            _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION, 'io.modelcontextprotocol/clientCapabilities': capabilities },
          },
        }),
      });
    // Without the extension declared: -32021.
    const refused = await listen('alice', {});
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32021);

    const response = await listen('alice', { extensions: { [TASKS_EXTENSION_ID]: {} } });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    // The stream ends by itself once the task has finished.
    const messages = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { method?: string; params?: Record<string, unknown>; result?: unknown });
    expect(messages[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [created.taskId] } } });
    const statuses = messages.filter((message) => message.method === 'notifications/tasks').map((message) => message.params!);
    expect(statuses[0]).toMatchObject({ taskId: created.taskId, status: 'working' });
    const last = statuses.at(-1) as { status: string; result?: { content: { text: string }[] } };
    expect(last.status).toBe('completed');
    expect(last.result?.content.map((block) => block.text).join('\n')).toContain('heard-on-the-stream');
    expect(messages.at(-1)).toMatchObject({ result: { resultType: 'complete' } });

    // Another principal's listen (it cannot use alice's handle URL, so on /mcp/python) names the id and follows nothing.
    const foreign = await (await listen('mallory', { extensions: { [TASKS_EXTENSION_ID]: {} } }, `${server.baseUrl}/mcp/python`)).text();
    expect(foreign).toContain('"taskIds":[]');
    expect(foreign).not.toContain('notifications/tasks');
  }, 60_000);

  it(`cancels a running bash task: status cancelled, its process killed, the sandbox still usable ${cites('TASK-CANCEL')}`, async () => {
    const client = await taskClient('alice');
    expect(await bashText(client, 'echo kept > before-cancel.txt && echo written')).toContain('written');

    const created = await bash(client, 'sleep 4; echo too-late > after-cancel.txt');
    expect(created.wireResultType).toBe('task');
    const ack = await cancelTask(client, created.taskId!);
    // An empty acknowledgement: none of the task's own fields.
    expect(Object.keys(ack).filter((key) => key !== '_meta')).toEqual([]);
    expect((await getTask(client, created.taskId!)).status).toBe('cancelled');
    // Idempotent on a finished task.
    expect(Object.keys(await cancelTask(client, created.taskId!)).filter((key) => key !== '_meta')).toEqual([]);

    // Same sandbox (the handle's): the earlier file is there, and past the cancelled sleep its file never appeared.
    const check = await bashText(client, 'sleep 6; cat before-cancel.txt; test -e after-cancel.txt && echo marker-present || echo marker-absent');
    expect(check).toContain('kept');
    expect(check).toContain('marker-absent');
    expect((await getTask(client, created.taskId!)).status).toBe('cancelled');
  }, 90_000);

  it(`cancels a running python task: the REPL's code stops and python serves the next call ${cites('TASK-CANCEL')}`, async () => {
    const client = await taskClient('alice');
    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'python', arguments: { code: "import time\ntime.sleep(4)\nopen('python-after-cancel.txt', 'w').write('too late')" } },
      },
      CallOrTaskSchema,
    );
    expect(created.wireResultType).toBe('task');
    await cancelTask(client, created.taskId!);
    expect((await getTask(client, created.taskId!)).status).toBe('cancelled');
    expect(await bashText(client, 'sleep 6; test -e python-after-cancel.txt && echo marker-present || echo marker-absent')).toContain('marker-absent');
    const next = await client.request({ method: 'tools/call', params: { name: 'python', arguments: { code: '6 * 7' } } }, CallOrTaskSchema);
    expect(next.wireResultType).toBeUndefined();
    expect(next.content?.map((block) => block.text).join('\n')).toContain('42');
  }, 90_000);

  it(`keeps one principal's task from another: get and cancel answer -32602 as for an unknown id ${cites('TASK-ISOLATION')}`, async () => {
    const alice = await taskClient('alice');
    const created = await bash(alice, 'sleep 3; echo alice-only');
    expect(created.wireResultType).toBe('task');
    const mallory = await taskClient('mallory', `${server.baseUrl}/mcp/python`);
    const isInvalidParams = (error: unknown) => error instanceof ProtocolError && error.code === -32602;
    await expect(getTask(mallory, created.taskId!)).rejects.toSatisfy(isInvalidParams);
    await expect(cancelTask(mallory, created.taskId!)).rejects.toSatisfy(isInvalidParams);
    const { final } = await pollToEnd(alice, created.taskId!);
    expect(final.status).toBe('completed');
    expect(final.result?.content.map((block) => block.text).join('\n')).toContain('alice-only');
  }, 60_000);

  it(`gives a task to a 2025-era session that declared the extension at initialize ${cites('TASK-LIFECYCLE')}`, async () => {
    const url = `${server.baseUrl}/mcp/python`;
    const post = async (body: unknown, sessionId?: string) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          ...headersFor('alice'),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } : {}),
        },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      // Either a JSON body, one SSE event carrying the response, or nothing (202 for a notification).
      const event = text.split('\n').find((line) => line.startsWith('data: '));
      const json = text.startsWith('{') ? text : (event?.slice(6) ?? '{}');
      return { sessionId: response.headers.get('mcp-session-id'), message: JSON.parse(json) as { result: Record<string, unknown> } };
    };
    const capabilities = { extensions: { [TASKS_EXTENSION_ID]: {} } };
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'legacy', version: '1' } },
    });
    expect(init.message.result.capabilities).toMatchObject({ extensions: { [TASKS_EXTENSION_ID]: {} } });
    const sessionId = init.sessionId!;
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
    const created = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash', arguments: { command: 'sleep 2; echo legacy-task' } } },
      sessionId,
    );
    expect(created.message.result).toMatchObject({ resultType: 'task', status: 'working' });
    for (;;) {
      const task = (await post({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId: created.message.result.taskId } }, sessionId)).message.result;
      if (task.status === 'working') {
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      expect(task).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'legacy-task' }] } });
      break;
    }
  }, 60_000);

  it(`answers a short call directly and a client without the extension synchronously ${cites('TASK-LIFECYCLE')}`, async () => {
    const client = await taskClient('alice');
    const quick = await bash(client, 'echo quick');
    expect(quick.wireResultType).toBeUndefined();
    expect(quick.taskId).toBeUndefined();

    const plain = new Client({ name: 'corral-no-tasks', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
    await plain.connect(new StreamableHTTPClientTransport(new URL(handleUrl), { requestInit: { headers: headersFor('alice') } }));
    clients.push(plain);
    const sync = await bash(plain, 'sleep 2; echo in-line');
    expect(sync.taskId).toBeUndefined();
    expect(sync.content?.map((block) => block.text).join('\n')).toContain('in-line');
    await expect(getTask(plain, 'any-task')).rejects.toSatisfy((error: unknown) => error instanceof ProtocolError && error.code === -32021);
  }, 60_000);
});
