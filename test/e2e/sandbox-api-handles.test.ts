/**
 * POST /v1/sandboxes takes what a sandbox user expects (a TTL within the server's bounds, environment variables,
 * files uploaded at creation) and says which field is wrong; GET /v1/sandboxes lists only the caller's handles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp } from '../helpers/mcp-clients.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { type ErrorBody, SANDBOX_API_TOKEN, sandboxApi } from './sandbox-api-client.js';

const processBackend = await backendAvailable('process');
/** The server's idle TTL, hence the largest ttl_ms it accepts. */
const SERVER_IDLE_TTL_MS = 20_000;

describe.skipIf(!processBackend)('sandbox API: create options and listing, process backend', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      token: SANDBOX_API_TOKEN,
      idleTtlMs: SERVER_IDLE_TTL_MS,
      resolvePrincipal: (headers) => String(headers['x-test-client'] ?? 'nobody'),
    });
  });
  afterAll(async () => server?.close());

  it("GET /v1/sandboxes lists the caller's handles with id, env, mcpUrl and expiresAt; another principal's are invisible", async () => {
    const alice = sandboxApi(server, 'alice-list');
    const bob = sandboxApi(server, 'bob-list');
    const first = await alice.create({ env: 'python' });
    const second = await alice.create({ env: 'all' });
    const bobs = await bob.create({ env: 'python' });
    expect([first.status, second.status, bobs.status]).toEqual([201, 201, 201]);

    const listed = await alice.list();
    expect(listed.status).toBe(200);
    expect(listed.body.sandboxes).toEqual([first.body, second.body]);
    expect(listed.body.sandboxes.map((handle) => Object.keys(handle).sort())).toEqual([
      ['env', 'expiresAt', 'id', 'mcpUrl', 'wsUrl'],
      ['env', 'expiresAt', 'id', 'mcpUrl', 'wsUrl'],
    ]);
    expect((await bob.list()).body.sandboxes.map((handle) => handle.id)).toEqual([bobs.body.id]);

    await alice.remove(first.body.id);
    expect((await alice.list()).body.sandboxes.map((handle) => handle.id)).toEqual([second.body.id]);
    expect((await sandboxApi(server, 'carol-list').list()).body.sandboxes).toEqual([]);
  });

  it('a body error names the bad field', async () => {
    const alice = sandboxApi(server, 'alice-errors');
    const unknown = await alice.create<ErrorBody>({ env: 'python', ttl: 1000 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'INVALID_BODY', fields: ['ttl'] });
    expect(unknown.body.error.message).toContain('"ttl"');

    const wrongType = await alice.create<ErrorBody>({ env: 'python', ttl_ms: 'soon' });
    expect(wrongType.body.error.fields).toEqual(['ttl_ms']);
    expect(wrongType.body.error.message).toMatch(/^ttl_ms: /);

    const badFile = await alice.create<ErrorBody>({ env: 'python', files: [{ path: 'a.txt' }] });
    expect(badFile.body.error.fields).toEqual(['files.0.content']);

    const badVariable = await alice.create<ErrorBody>({ env: 'python', env_vars: { 'NOT A NAME': 'x' } });
    expect(badVariable.status).toBe(400);
    expect(badVariable.body.error.message).toContain('env_vars');

    const noEnvironment = await alice.create<ErrorBody>({ env: 'nope' });
    expect(noEnvironment.body.error).toMatchObject({ code: 'UNKNOWN_ENVIRONMENT', fields: ['env'] });
    expect((await alice.list()).body.sandboxes).toEqual([]);
  });

  it("ttl_ms within the server's bounds sets the handle's expiry; outside them it is refused with the bounds", async () => {
    const alice = sandboxApi(server, 'alice-ttl');
    const tooLong = await alice.create<ErrorBody & { error: { maxTtlMs: number } }>({ env: 'python', ttl_ms: SERVER_IDLE_TTL_MS + 1 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ code: 'INVALID_TTL', fields: ['ttl_ms'], maxTtlMs: SERVER_IDLE_TTL_MS });
    expect(tooLong.body.error.message).toContain('--idle-ttl-ms');
    expect((await alice.create<ErrorBody>({ env: 'python', ttl_ms: 10 })).body.error.code).toBe('INVALID_TTL');

    const before = Date.now();
    const short = await alice.create({ env: 'python', ttl_ms: 1_000 });
    const long = await alice.create({ env: 'python' });
    expect(short.status).toBe(201);
    // Expiry is the handle's last use plus its own TTL, not the server's.
    expect(Date.parse(short.body.expiresAt)).toBeLessThan(before + SERVER_IDLE_TTL_MS);
    expect(Date.parse(long.body.expiresAt)).toBeGreaterThanOrEqual(before + SERVER_IDLE_TTL_MS);
    // The idle sweep releases the short-lived handle and keeps the other.
    await expect.poll(async () => (await alice.list()).body.sandboxes.map((handle) => handle.id), { timeout: 30_000, interval: 250 }).toEqual([long.body.id]);
  });

  it("env_vars reach the handle's sandbox processes, and files uploaded at creation are in its workspace", async () => {
    const alice = sandboxApi(server, 'alice-options');
    const bytes = Buffer.from([0, 1, 2, 254, 255]);
    const created = await alice.create({
      env: 'all',
      env_vars: { GREETING: 'hello from env_vars' },
      files: [
        { path: 'data/question.txt', content: 'what is 6 * 7?' },
        { path: 'data/blob.bin', content: bytes.toString('base64'), encoding: 'base64' },
      ],
    });
    expect(created.status).toBe(201);
    const { client } = await connectHttp(created.body.mcpUrl, { headers: alice.headers });
    try {
      const result = await callTool(client, 'bash', { command: 'echo "$GREETING"; cat data/question.txt; echo; od -An -tu1 data/blob.bin' });
      expect(result.structuredContent.stdout).toBe('hello from env_vars\nwhat is 6 * 7?\n   0   1   2 254 255\n');
    } finally {
      await client.close();
    }
    expect(Buffer.from(await (await alice.getFile(created.body.id, 'data/blob.bin')).arrayBuffer())).toEqual(bytes);
  });

  it('a create whose file would leave the workspace is refused with that path, and leaves no handle', async () => {
    const alice = sandboxApi(server, 'alice-escape');
    const refused = await alice.create<ErrorBody>({
      env: 'python',
      files: [
        { path: 'ok.txt', content: 'fine' },
        { path: '../../escape.txt', content: 'no' },
      ],
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'SBX_ERR_PERMISSION', path: '../../escape.txt' });
    expect((await alice.list()).body.sandboxes).toEqual([]);
  });
});
