/**
 * Issue 21: a trainer on one host starts 1,000 MCP sessions at once (prime-rl runs 1,024 rollouts). Each Streamable
 * HTTP session holds about two connections (POST keep-alive + the standalone GET stream), so with the old default
 * per-address cap (1,024) the server evicted kept-alive connections that clients were about to reuse: hundreds of
 * requests, closing DELETEs included, died with a bare connection reset and their sessions were left behind.
 * A real `corral serve` with its DEFAULT connection settings (idle TTL ten minutes, so the TTL cannot clean up),
 * 1,000 SDK clients started together: every request either succeeds or gets a typed refusal (an HTTP status with a
 * corral error code), never a bare socket error, and the server's legacy session count comes back to 0.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type ServeProcess, startServe } from './serve-cli-process.js';

const SESSIONS = 1_000;
const CORRAL_CODE = /"(?:code|corralCode)":"[A-Z]+_ERR_[A-Z_]+"/;

let serve: ServeProcess;
beforeAll(async () => {
  serve = startServe(['--port', '0', '--backend', 'process', '--idle-ttl-ms', '600000']);
  await vi.waitFor(() => expect(serve.address()).toBeDefined(), { timeout: 60_000, interval: 200 });
}, 90_000);
afterAll(() => serve?.child.kill('SIGTERM'));

async function legacySessions(): Promise<number> {
  const metrics = await (await fetch(`${serve.address()}/metrics`)).text();
  return Number(/^corral_mcp_active\{kind="legacySessions"\} (\d+)$/m.exec(metrics)?.[1] ?? NaN);
}

/** Requests that failed without a typed refusal: a socket error, or an error status whose body names no corral code. */
const untyped: string[] = [];
let typedRefusals = 0;

/** The client's fetch, recording how each request ended. A request the client itself aborted (closing its stream) is neither. */
const recordingFetch: typeof fetch = async (input, init) => {
  const method = init?.method ?? 'GET';
  try {
    const response = await fetch(input, init);
    if (response.status >= 400 && response.status !== 404) {
      const body = await response.clone().text();
      if (CORRAL_CODE.test(body)) typedRefusals++;
      else untyped.push(`${method} ${response.status} ${body.slice(0, 200)}`);
    }
    return response;
  } catch (error) {
    if (!init?.signal?.aborted) untyped.push(`${method} ${String((error as Error).cause ?? error)}`);
    throw error;
  }
};

async function oneSession(url: string, index: number): Promise<'done' | 'refused'> {
  const client = new Client({ name: 'trainer-rollout', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'search_pages', arguments: { query: `river ${index}` } });
    expect(result.isError).toBeFalsy();
    await transport.terminateSession();
    return 'done';
  } catch {
    return 'refused';
  } finally {
    await client.close();
  }
}

describe('1,000 MCP sessions from one trainer, all at once', () => {
  it(`serves or types-refuses every request of ${SESSIONS} simultaneous sessions and leaves none behind`, { timeout: 300_000 }, async () => {
    const url = `${serve.address()}/mcp/wiki`;
    const outcomes = await Promise.all(Array.from({ length: SESSIONS }, (_, index) => oneSession(url, index)));
    expect(untyped).toEqual([]);
    // A session that failed did so on a typed refusal (counted above), never silently.
    expect(outcomes.filter((outcome) => outcome === 'refused').length).toBeLessThanOrEqual(typedRefusals);
    await expect.poll(legacySessions, { timeout: 60_000, interval: 500 }).toBe(0);
  });
});
