/**
 * File routes of a sandbox handle, as E2B offers them: PUT /v1/sandboxes/<id>/files?path=... takes the raw body,
 * GET answers raw bytes or 404, both confined to the workspace through the sandbox session's file API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp } from '../helpers/mcp-clients.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { type ErrorBody, SANDBOX_API_TOKEN, sandboxApi } from './sandbox-api-client.js';

const processBackend = await backendAvailable('process');
const errorOf = async (response: Response) => ((await response.json()) as ErrorBody).error;

describe.skipIf(!processBackend)('sandbox API: file routes, process backend', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ token: SANDBOX_API_TOKEN, resolvePrincipal: (headers) => String(headers['x-test-client'] ?? 'nobody') });
  });
  afterAll(async () => server?.close());

  it('PUT stores the raw body (any content type, any bytes) and GET answers the same bytes; tools see the file', async () => {
    const alice = sandboxApi(server, 'alice');
    const { body: handle } = await alice.create({ env: 'all' });
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
    const put = await alice.putFile(handle.id, 'uploads/all-bytes.bin', bytes);
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ path: 'uploads/all-bytes.bin', sizeBytes: 256 });
    // A JSON file is stored as text, not parsed as a request body.
    expect((await alice.putFile(handle.id, 'config.json', '{"answer": 42}', 'application/json')).status).toBe(200);

    const got = await alice.getFile(handle.id, 'uploads/all-bytes.bin');
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await got.arrayBuffer())).toEqual(bytes);
    expect(await (await alice.getFile(handle.id, 'config.json')).text()).toBe('{"answer": 42}');

    const { client } = await connectHttp(handle.mcpUrl, { headers: alice.headers });
    try {
      expect((await callTool(client, 'bash', { command: 'wc -c < uploads/all-bytes.bin; cat config.json' })).structuredContent.stdout).toBe(
        '256\n{"answer": 42}',
      );
      await callTool(client, 'bash', { command: 'echo written by a tool > from-tool.txt' });
    } finally {
      await client.close();
    }
    expect(await (await alice.getFile(handle.id, 'from-tool.txt')).text()).toBe('written by a tool\n');
  });

  it('GET of a missing file answers 404; a missing path parameter 400', async () => {
    const alice = sandboxApi(server, 'alice');
    const { body: handle } = await alice.create({ env: 'python' });
    const missing = await alice.getFile(handle.id, 'no/such/file.txt');
    expect(missing.status).toBe(404);
    expect(await errorOf(missing)).toMatchObject({ code: 'FILE_NOT_FOUND', path: 'no/such/file.txt' });
    const noPath = await fetch(`${server.baseUrl}/v1/sandboxes/${handle.id}/files`, { headers: alice.headers });
    expect(noPath.status).toBe(400);
    expect((await errorOf(noPath)).fields).toEqual(['path']);
  });

  it('paths outside the workspace are refused (403), never read from or written to the host', async () => {
    const alice = sandboxApi(server, 'alice');
    const { body: handle } = await alice.create({ env: 'python' });
    for (const path of ['../../../../etc/passwd', '/etc/passwd']) {
      const read = await alice.getFile(handle.id, path);
      expect(read.status).toBe(403);
      expect(await errorOf(read)).toMatchObject({ code: 'SBX_ERR_PERMISSION', path });
    }
    const write = await alice.putFile(handle.id, '../outside.txt', 'nope');
    expect(write.status).toBe(403);
    expect((await errorOf(write)).code).toBe('SBX_ERR_PERMISSION');
  });

  it("another principal's handle answers 404 for files, like one that never existed", async () => {
    const alice = sandboxApi(server, 'alice');
    const mallory = sandboxApi(server, 'mallory');
    const { body: handle } = await alice.create({ env: 'python' });
    await alice.putFile(handle.id, 'secret.txt', 'for alice');
    for (const response of [
      await mallory.getFile(handle.id, 'secret.txt'),
      await mallory.putFile(handle.id, 'secret.txt', 'overwritten'),
      await mallory.getFile('sbx_never_existed', 'secret.txt'),
    ]) {
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe('SANDBOX_NOT_FOUND');
    }
    expect(await (await alice.getFile(handle.id, 'secret.txt')).text()).toBe('for alice');
  });
});
