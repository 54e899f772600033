/**
 * The model endpoint policy at connect time: the guarded model HTTP client refuses inside the socket's own DNS lookup (so
 * a name that resolves to loopback only when the connection is made is still caught), refuses literal
 * addresses before connecting, and the agent's request loop records the refusal once, without retrying.
 * Real HTTP on port 0.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorralError } from '../../../../../src/core/errors.js';
import { requestChatCompletion } from '../../../../../src/runner/agents/openai/chat-completion-request.js';
import { ModelEndpointPolicy } from '../../../../../src/runner/agents/openai/model-endpoint-policy.js';
import { ModelHttpClient } from '../../../../../src/runner/agents/openai/model-http-client.js';

describe('ModelEndpointPolicy at connect time', () => {
  let server: Server;
  let port = 0;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      hits++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const strict = new ModelEndpointPolicy({ allow: [], refuseInternal: true });
  const refusedCode = (error: unknown) => (CorralError.isInstance(error) ? error.code : String(error));

  it("refuses a name that resolves to loopback inside the connection's lookup, and a literal loopback address, before any byte is sent", async () => {
    const client = new ModelHttpClient(strict);
    for (const host of ['localhost', '127.0.0.1', '[::ffff:127.0.0.1]']) {
      const outcome = await client
        .postJson(new URL(`http://${host}:${port}/v1/chat/completions`), {}, {}, new AbortController().signal)
        .then(() => 'connected', refusedCode);
      expect([host, outcome]).toEqual([host, 'MODEL_ERR_ENDPOINT_REFUSED']);
    }
    expect(hits).toBe(0);
    await client.close();
  });

  it('connects when the address is allowed, by CIDR or by name', async () => {
    for (const allow of [['127.0.0.0/8'], ['localhost']]) {
      const client = new ModelHttpClient(new ModelEndpointPolicy({ allow, refuseInternal: true }));
      const response = await client.postJson(new URL(`http://localhost:${port}/`), {}, {}, new AbortController().signal);
      expect([allow, response.status]).toEqual([allow, 200]);
      await client.close();
    }
    expect(hits).toBe(2);
  });

  it('the request loop records MODEL_ERR_ENDPOINT_REFUSED once, without retrying', async () => {
    const client = new ModelHttpClient(strict);
    const before = hits;
    const error = await requestChatCompletion(
      client,
      { model: 'm', messages: [] },
      {
        policy: { maxRetries: 3, requestTimeoutMs: 10_000, backoff: { baseMs: 1, maxMs: 1 } },
        model: 'm',
        baseURL: `http://localhost:${port}/v1`,
        apiKey: 'x',
        abortSignal: new AbortController().signal,
      },
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MODEL_ERR_ENDPOINT_REFUSED', details: { attempts: 1 } });
    expect(hits).toBe(before);
  });

  it('refuses allowlist entries that are not a host, an address or a CIDR', () => {
    for (const entry of ['10.0.0.0/33', 'host:8000', '10.0.0.0/8/1', 'http://x']) {
      expect(() => new ModelEndpointPolicy({ allow: [entry], refuseInternal: true }), entry).toThrow(/modelEndpointAllowlist/);
    }
    expect(new ModelEndpointPolicy({ allow: ['fd00::/8'], refuseInternal: true }).refusal('vllm', 'fd12::5')).toBeNull();
    expect(new ModelEndpointPolicy({ allow: [], refuseInternal: true }).refusal('metadata', '169.254.169.254')).toMatch(/refused/);
    expect(new ModelEndpointPolicy({ allow: [], refuseInternal: false }).refusal('local', '127.0.0.1')).toBeNull();
  });
});
