/**
 * A fetch for model endpoints built on node:http(s) with keep-alive agents. Chat completions are small JSON
 * exchanges; with ~1,000 rollouts in flight, the built-in fetch's web streams cost more CPU than the requests
 * themselves (measured: a fifth of the runner's time), so the body is read whole and handed over as a Response.
 * Streaming responses are not needed: the agent never asks for `stream: true`.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Fetch } from './nested-error-fetch.js';

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 1024 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 1024 });

export const nodeHttpFetch: Fetch = (input, init = {}) => {
  if (input instanceof Request) return globalThis.fetch(input, init);
  const url = new URL(String(input));
  const secure = url.protocol === 'https:';
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : null;
  // Anything but a string body (FormData, streams) goes to the built-in fetch, which handles every case.
  if (body === null) return globalThis.fetch(input, init);
  return new Promise<Response>((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(
      url,
      { method: init.method ?? 'GET', headers, agent: secure ? httpsAgent : httpAgent, signal: init.signal ?? undefined },
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
};
