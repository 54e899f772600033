/**
 * A fetch for model endpoints built on node:http(s) with keep-alive agents. Chat completions are small JSON
 * exchanges; with ~1,000 rollouts in flight, the built-in fetch's web streams cost more CPU than the requests
 * themselves (measured: a fifth of the runner's time), so the body is read whole and handed over as a Response.
 * Streaming responses are not needed: the agent never asks for `stream: true`.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Fetch } from './nested-error-fetch.js';

/** Decides which addresses a fetch may connect to (see model-endpoint-policy.ts). */
export interface ConnectionGuard {
  /** The sockets' DNS lookup: it calls back an error for addresses that may not be reached. */
  lookup: LookupFunction;
  /** Literal IP hosts skip the lookup, so they are checked here first; the error to fail with, or null. */
  refuseLiteral(hostname: string): Error | null;
}

const agentOptions = { keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 1024 };

export const nodeHttpFetch: Fetch = createNodeHttpFetch();

/**
 * A fetch with its own keep-alive agents. With a guard, every connection goes through the guard's lookup
 * (a kept-alive socket was checked when it connected), and nothing falls back to the built-in fetch, which
 * would bypass it.
 */
export function createNodeHttpFetch(guard?: ConnectionGuard): Fetch {
  const extra = guard ? { lookup: guard.lookup } : {};
  const httpAgent = new HttpAgent({ ...agentOptions, ...extra });
  const httpsAgent = new HttpsAgent({ ...agentOptions, ...extra });
  return (input, init = {}) => {
    const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : null;
    if (input instanceof Request || body === null) {
      if (guard) return Promise.reject(new TypeError('a guarded model fetch sends string URLs and string bodies only'));
      // Anything but a string body (FormData, streams) goes to the built-in fetch, which handles every case.
      return globalThis.fetch(input, init);
    }
    const url = new URL(String(input));
    const refusal = guard?.refuseLiteral(url.hostname);
    if (refusal) return Promise.reject(refusal);
    return send(url, init, body, url.protocol === 'https:' ? httpsAgent : httpAgent);
  };
}

function send(url: URL, init: RequestInit, body: string | undefined, agent: HttpAgent): Promise<Response> {
  const secure = url.protocol === 'https:';
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  return new Promise<Response>((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(
      url,
      { method: init.method ?? 'GET', headers, agent, signal: init.signal ?? undefined },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const status = response.statusCode ?? 502;
          const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(payload, { status, statusText: response.statusMessage ?? '', headers: responseHeaders }));
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
