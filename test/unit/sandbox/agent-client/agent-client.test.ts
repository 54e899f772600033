/** The host side of the agent protocol: framing, error mapping, closing, timeouts, against fake and real agents. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CorralError } from '../../../../src/core/errors.js';
import { agentDirectoryPath } from '../../../../src/sandbox/agent-client/agent-directory.js';
import { codeOf } from './error-code-of.js';
import { AgentConnection, HOST_MARGIN_MS } from '../../../../src/sandbox/agent-client/agent-connection.js';

/** A connection wired to in-memory streams; `requests` collects what the host sent, `reply` plays the agent. */
function fakeAgent() {
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  const requests: Array<Record<string, unknown>> = [];
  toAgent.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) requests.push(JSON.parse(line) as Record<string, unknown>);
  });
  const connection = new AgentConnection({ writable: toAgent, readable: fromAgent, sandboxId: 'sbx_test', backend: 'process', workspace: '/workspace' });
  const reply = (message: unknown) => fromAgent.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  const lastId = () => Number(requests.at(-1)?.id);
  return { connection, requests, reply, lastId, fromAgent };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('AgentConnection (fake agent)', () => {
  afterEach(() => vi.useRealTimers());

  it('waits for the ready line and matches responses to requests by id', async () => {
    const { connection, requests, reply, lastId } = fakeAgent();
    const ready = connection.ready({ timeoutMs: 1_000 });
    reply({ event: 'ready', version: 1, pid: 7 });
    expect(await ready).toEqual({ event: 'ready', version: 1, pid: 7 });
    const exec = connection.session.exec({ command: 'echo hi', timeoutMs: 500 });
    await tick();
    expect(requests.at(-1)).toMatchObject({ op: 'exec', command: 'echo hi', timeoutMs: 500 });
    const result = { exitCode: 0, signal: null, stdout: 'hi\n', stderr: '', stdoutTruncated: false, stderrTruncated: false, timedOut: false, durationMs: 1 };
    reply({ id: lastId(), ok: true, result });
    expect(await exec).toEqual(result);
  });

  it('maps wire errors: NOT_FOUND to null, PERMISSION and TOO_LARGE to typed errors', async () => {
    const { connection, reply, lastId } = fakeAgent();
    const missing = connection.session.files.read({ path: 'nope' });
    await tick();
    reply({ id: lastId(), ok: false, error: { code: 'NOT_FOUND', message: 'nope: no such file' } });
    expect(await missing).toBeNull();
    const escape = connection.session.files.read({ path: '../x' });
    await tick();
    reply({ id: lastId(), ok: false, error: { code: 'PERMISSION', message: 'outside' } });
    expect(await codeOf(escape)).toBe('SBX_ERR_PERMISSION');
    const big = connection.session.files.read({ path: 'big' });
    await tick();
    reply({ id: lastId(), ok: false, error: { code: 'TOO_LARGE', message: 'too big' } });
    expect(await codeOf(big)).toBe('SBX_ERR_OUTPUT_LIMIT');
  });

  it('treats a line that is not JSON as a protocol error and closes', async () => {
    const { connection, reply } = fakeAgent();
    const reasons: Error[] = [];
    connection.onClose((reason) => reasons.push(reason));
    const pending = connection.session.exec({ command: 'true' });
    reply('this is not json');
    expect(await codeOf(pending)).toBe('SBX_ERR_PROTOCOL');
    expect(connection.closed).toBe(true);
    expect(await codeOf(connection.ping())).toBe('SBX_ERR_CLOSED');
    expect(reasons.map((reason) => (reason as CorralError).code)).toEqual(['SBX_ERR_PROTOCOL']);
  });

  it('rejects a ready line with another protocol version', async () => {
    const { connection, reply } = fakeAgent();
    const ready = connection.ready({ timeoutMs: 1_000 });
    reply({ event: 'ready', version: 99, pid: 1 });
    expect(await codeOf(ready)).toBe('SBX_ERR_PROTOCOL');
  });

  it('close() rejects pending calls with SBX_ERR_CLOSED and ends the stream', async () => {
    const { connection } = fakeAgent();
    const pending = connection.session.python({ code: '1' });
    connection.close();
    expect(await codeOf(pending)).toBe('SBX_ERR_CLOSED');
  });

  it('an ended stream closes the connection', async () => {
    const { connection, fromAgent } = fakeAgent();
    const pending = connection.session.exec({ command: 'true' });
    fromAgent.end();
    expect(await codeOf(pending)).toBe('SBX_ERR_CLOSED');
  });

  it('aborting a call rejects it and asks the agent to cancel it', async () => {
    const { connection, requests } = fakeAgent();
    const controller = new AbortController();
    const pending = connection.session.exec({ command: 'sleep 100', abortSignal: controller.signal });
    await tick();
    const execId = requests.at(-1)?.id;
    controller.abort();
    expect(await codeOf(pending)).toBe('ERR_ABORTED');
    await tick();
    expect(requests.at(-1)).toMatchObject({ op: 'cancel', targetId: execId });
  });

  it('gives up on a silent agent after the call timeout plus a margin', async () => {
    vi.useFakeTimers();
    const { connection } = fakeAgent();
    const pending = connection.session.exec({ command: 'true', timeoutMs: 1_000 });
    const outcome = codeOf(pending);
    await vi.advanceTimersByTimeAsync(1_000 + HOST_MARGIN_MS + 1);
    expect(await outcome).toBe('SBX_ERR_TIMEOUT');
  });

  it('offers exec, python and files, but no JavaScript', async () => {
    const { connection } = fakeAgent();
    expect([...connection.session.capabilities].sort()).toEqual(['exec', 'files', 'python']);
    expect(await codeOf(connection.session.javascript({ code: '1' }))).toBe('SBX_ERR_UNSUPPORTED');
  });
});

describe('AgentConnection (real agent as a plain child process)', () => {
  const children: ChildProcessWithoutNullStreams[] = [];
  const directories: string[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  function startAgent(): { child: ChildProcessWithoutNullStreams; output: PassThrough; connection: AgentConnection } {
    const root = mkdtempSync(join(tmpdir(), 'corral-agent-client-'));
    directories.push(root);
    const args = [
      '-u',
      '-B',
      `${agentDirectoryPath()}/agent.py`,
      '--workspace',
      join(root, 'workspace'),
      '--process-scope',
      'descendants',
      '--scratch-dir',
      join(root, 'missing-scratch'),
    ];
    const child = spawn('python3', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    // A pass-through between the agent and the client lets the test slip a corrupt line into the stream.
    const output = new PassThrough();
    child.stdout.pipe(output);
    const connection = new AgentConnection({
      writable: child.stdin,
      readable: output,
      sandboxId: 'sbx_real',
      backend: 'process',
      workspace: join(root, 'workspace'),
    });
    return { child, output, connection };
  }

  it('serves calls, then reports a corrupt line as SBX_ERR_PROTOCOL and the agent exits when its stdin closes', async () => {
    const { child, output, connection } = startAgent();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await connection.ready({ timeoutMs: 20_000 });
    expect((await connection.session.exec({ command: 'echo real' })).stdout).toBe('real\n');
    expect((await connection.session.python({ code: '2 ** 10' })).value).toBe('1024');
    const pending = connection.session.exec({ command: 'sleep 5; echo late', timeoutMs: 10_000 });
    output.write('{"id": oops\n');
    expect(await codeOf(pending)).toBe('SBX_ERR_PROTOCOL');
    expect(connection.closed).toBe(true);
    await exited; // close() ended the agent's stdin: its dead-man switch fired
  });
});
