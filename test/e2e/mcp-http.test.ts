/**
 * MCP over Streamable HTTP against a real server (app.listen on port 0), a real pool and the process
 * backend: tool listing, REPL state, shell, files, tool-level errors, and isolation between sessions.
 */
import { ProtocolError, type StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { agentSeeingMarker, processesSeeingMarker } from '../helpers/host-processes.js';
import { callTool, connectHttp, textOf } from '../helpers/mcp-clients.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { cites } from './mcp-requirements.js';

const processBackend = await backendAvailable('process');
const isolateBackend = await backendAvailable('isolate');

describe.skipIf(!processBackend)('MCP over Streamable HTTP, process backend', () => {
  let server: TestServer;
  const opened: StreamableHTTPClientTransport[] = [];
  const open = async (env = 'python') => {
    const connection = await connectHttp(`${server.baseUrl}/mcp/${env}`);
    opened.push(connection.transport);
    return connection;
  };
  // Ends every session even when a test fails midway, so one failure cannot leak a lease into the next test.
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((transport) => transport.terminateSession().catch(() => undefined)));
  });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it(`lists the python environment tools with input and output schemas and annotations ${cites('TOOLS-LIST')}`, async () => {
    const { client, transport } = await open();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'bash',
      'edit_file',
      'glob',
      'grep',
      'list_dir',
      'python',
      'python_reset',
      'read_file',
      'write_file',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
      expect(typeof tool.annotations?.destructiveHint).toBe('boolean');
      expect(typeof tool.annotations?.idempotentHint).toBe('boolean');
      expect(tool.annotations?.openWorldHint).toBe(false);
    }
    expect(tools.find((tool) => tool.name === 'read_file')?.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((tool) => tool.name === 'bash')?.inputSchema.required).toEqual(['command']);
    await transport.terminateSession();
  });

  it(`keeps Python state across calls and returns the trailing expression like Jupyter ${cites('PY-STATE', 'TOOLS-STRUCTURED')}`, async () => {
    const { client, transport } = await open();
    const first = await callTool(client, 'python', { code: 'import math\nx = 21\nprint("set")' });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent.stdout).toBe('set\n');
    const second = await callTool(client, 'python', { code: 'x * 2' });
    expect(second.structuredContent.value).toBe('42');
    expect(textOf(second)).toBe('42');
    await callTool(client, 'python_reset');
    const third = await callTool(client, 'python', { code: 'x' });
    expect(third.isError).toBe(true);
    expect((third.structuredContent.error as { name: string }).name).toBe('NameError');
    await transport.terminateSession();
  });

  it(`runs bash and reports exit codes; a failing command is a readable isError result ${cites('SH-EXEC', 'ERR-TOOL')}`, async () => {
    const { client, transport } = await open();
    const ok = await callTool(client, 'bash', { command: 'echo hello; echo warn >&2' });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({ stdout: 'hello\n', stderr: 'warn\n', exit_code: 0, timed_out: false });
    const failed = await callTool(client, 'bash', { command: 'echo boom >&2; exit 3' });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ exit_code: 3, stderr: 'boom\n' });
    expect(textOf(failed)).toContain('[exit code 3]');
    const traceback = await callTool(client, 'python', { code: '1/0' });
    expect(traceback.isError).toBe(true);
    expect(textOf(traceback)).toContain('ZeroDivisionError');
    const slow = await callTool(client, 'bash', { command: 'sleep 30', timeout_s: 1 });
    expect(slow.isError).toBe(true);
    expect(slow.structuredContent.timed_out).toBe(true);
    await transport.terminateSession();
  });

  it(`round-trips files through write, read, edit, list, glob and grep, shared with bash ${cites('FS-ROUNDTRIP')}`, async () => {
    const { client, transport } = await open();
    expect((await callTool(client, 'write_file', { path: 'src/app.py', content: 'def greet():\n    return "hi"\n' })).structuredContent.size_bytes).toBe(29);
    const edited = await callTool(client, 'edit_file', { path: 'src/app.py', edits: [{ oldText: '"hi"', newText: '"hello"' }] });
    expect(edited.structuredContent.edits_applied).toBe(1);
    expect((await callTool(client, 'read_file', { path: 'src/app.py' })).structuredContent.content).toBe('def greet():\n    return "hello"\n');
    expect((await callTool(client, 'read_file', { path: 'src/app.py', head: 1 })).structuredContent.content).toBe('def greet():');
    const listing = await callTool(client, 'list_dir', {});
    expect(listing.structuredContent.entries).toContainEqual({ name: 'src', type: 'directory', size_bytes: expect.any(Number) });
    expect((await callTool(client, 'glob', { pattern: '**/*.py' })).structuredContent.matches).toEqual(['src/app.py']);
    const grep = await callTool(client, 'grep', { pattern: 'return' });
    expect(grep.structuredContent.matches).toEqual([{ path: 'src/app.py', line: 2, text: '    return "hello"' }]);
    expect((await callTool(client, 'bash', { command: 'cat src/app.py | wc -l' })).structuredContent.stdout).toBe('2\n');
    expect((await callTool(client, 'python', { code: 'open("src/app.py").read().count("hello")' })).structuredContent.value).toBe('1');
    await transport.terminateSession();
  });

  it(`reports a missing file, a failed edit and a workspace escape as isError results ${cites('ERR-TOOL')}`, async () => {
    const { client, transport } = await open();
    const missing = await callTool(client, 'read_file', { path: 'nope.txt' });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toEqual({ error: { code: 'SBX_ERR_NOT_FOUND', message: 'no such file: nope.txt' } });
    await callTool(client, 'write_file', { path: 'a.txt', content: 'one one' });
    const ambiguous = await callTool(client, 'edit_file', { path: 'a.txt', edits: [{ oldText: 'one', newText: 'two' }] });
    expect(ambiguous.isError).toBe(true);
    expect(textOf(ambiguous)).toContain('occurs 2 times');
    expect((await callTool(client, 'read_file', { path: 'a.txt' })).structuredContent.content).toBe('one one');
    const escape = await callTool(client, 'read_file', { path: '../../../../etc/passwd' });
    expect(escape.isError).toBe(true);
    expect((escape.structuredContent.error as { code: string }).code).toBe('SBX_ERR_PERMISSION');
    await transport.terminateSession();
  });

  it(`isolates two sessions: files and REPL state do not cross ${cites('SESSION-ISOLATION')}`, async () => {
    const first = await open();
    const second = await open();
    await callTool(first.client, 'python', { code: 'secret = 7' });
    await callTool(first.client, 'write_file', { path: 'mine.txt', content: 'first' });
    const repl = await callTool(second.client, 'python', { code: 'secret' });
    expect(repl.isError).toBe(true);
    expect((await callTool(second.client, 'read_file', { path: 'mine.txt' })).isError).toBe(true);
    expect((await callTool(first.client, 'python', { code: 'secret' })).structuredContent.value).toBe('7');
    await first.transport.terminateSession();
    await second.transport.terminateSession();
  });

  it(`reports a sandbox that died as a JSON-RPC error, then starts a fresh one ${cites('ERR-INFRA')}`, async () => {
    const { client } = await open();
    await callTool(client, 'python', { code: 'kept = 1' });
    const marker = `died-${process.pid}-${Date.now()}`;
    await callTool(client, 'write_file', { path: marker, content: 'x' });
    // User code cannot reach its agent any more, so the host kills it mid-call, as a crash or the OOM killer would.
    const pending = client.callTool({ name: 'bash', arguments: { command: 'sleep 31337' } }).catch((error: unknown) => error);
    await expect.poll(() => processesSeeingMarker(marker).some((found) => found.argv.includes('31337')), { timeout: 10_000 }).toBe(true);
    const agent = agentSeeingMarker(marker);
    expect(agent).toBeDefined();
    process.kill(agent!.pid, 'SIGKILL');
    const died = await pending;
    expect(died).toBeInstanceOf(ProtocolError);
    expect((died as ProtocolError).code).toBe(-32603);
    expect((died as ProtocolError).data).toMatchObject({ audience: 'infrastructure' });
    const lost = await client.callTool({ name: 'python', arguments: { code: 'kept' } }).catch((error: unknown) => error);
    expect((lost as ProtocolError).data).toMatchObject({ corralCode: 'SBX_ERR_CLOSED' });
    const fresh = await callTool(client, 'python', { code: 'kept' });
    expect(fresh.isError).toBe(true);
    expect((fresh.structuredContent.error as { name: string }).name).toBe('NameError');
  });

  it(`releases the session sandbox when the client ends the session (DELETE) ${cites('SESSION-END')}`, async () => {
    const { client, transport } = await open();
    await callTool(client, 'bash', { command: 'true' });
    expect(leased(server)).toBeGreaterThanOrEqual(1);
    await transport.terminateSession();
    await expect.poll(() => leased(server), { timeout: 5_000 }).toBe(0);
  });

  it.skipIf(!isolateBackend)(`keeps JavaScript globals across calls in an isolate, leased next to the general sandbox ${cites('JS-STATE')}`, async () => {
    const { client } = await open('all');
    await callTool(client, 'javascript', { code: 'var total = 40; console.log("set")' });
    const result = await callTool(client, 'javascript', { code: 'total + 2' });
    expect(result.structuredContent).toMatchObject({ value: '42', error: null });
    const thrown = await callTool(client, 'javascript', { code: 'throw new TypeError("bad")' });
    expect(thrown.isError).toBe(true);
    expect(textOf(thrown)).toContain('TypeError');
    await callTool(client, 'bash', { command: 'true' });
    expect(
      server.pool
        .stats()
        .map((bucket) => [bucket.backend, bucket.leased])
        .sort(),
    ).toEqual([
      ['isolate', 1],
      ['process', 1],
    ]);
  });

  it(`serves the wiki environment without leasing a sandbox ${cites('WIKI-TOOLS')}`, async () => {
    const { client, transport } = await open('wiki');
    const search = await callTool(client, 'search_pages', { query: 'river Cairo' });
    expect((search.structuredContent.results as { page_id: string }[])[0]?.page_id).toBe('nile');
    const sections = await callTool(client, 'view_sections', { page_id: 'nile' });
    expect(sections.structuredContent.sections).toEqual([
      { section_id: 'nile:introduction', section_name: 'Introduction' },
      { section_id: 'nile:history', section_name: 'History' },
    ]);
    expect(textOf(await callTool(client, 'read_section', { section_id: 'nile:history' }))).toBe('## History\n\nAncient Egypt grew along the Nile.');
    expect((await callTool(client, 'read_section', { section_id: 'nile:nowhere' })).isError).toBe(true);
    expect((await callTool(client, 'view_sections', { page_id: 'nowhere' })).isError).toBe(true);
    expect(leased(server)).toBe(0);
    await transport.terminateSession();
  });
});

function leased(server: TestServer): number {
  return server.pool.stats().reduce((sum, bucket) => sum + bucket.leased, 0);
}
