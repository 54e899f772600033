/**
 * Reads a request body whole, up to a cap, so a CLI (or code in its sandbox) cannot make the proxy hold unbounded
 * memory: each body is at most `maxBytes`, and with a budget, all bodies of one rollout being read or served at
 * once share one allowance (many connections cannot multiply the cap). Parsing is the request cache's.
 */
import type { IncomingMessage } from 'node:http';
import { ProxyError } from './proxy-error.js';

/** A rollout's allowance of body bytes held at once. */
export interface BodyBudget {
  take(bytes: number): boolean;
  give(bytes: number): void;
}

/**
 * Resolves with the body; its bytes stay taken from `budget` until the caller gives them back (when the call is
 * done). On any failure what was taken is given back here.
 */
export function readBodyBytes(request: IncomingMessage, maxBytes: number, budget?: BodyBudget): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) return reject(tooLarge(maxBytes));
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      chunks.length = 0;
      budget?.give(size);
      reject(error);
    };
    request.on('data', (chunk: Buffer) => {
      // Past a cap the rest is read and dropped (memory stays bounded) so the 413 can still be answered.
      if (failed) return;
      if (size + chunk.length > maxBytes) return fail(tooLarge(maxBytes));
      if (budget && !budget.take(chunk.length))
        return fail(
          new ProxyError(413, 'invalid_request', 'PROXY_ERR_BAD_REQUEST', "this rollout's requests in flight already hold the proxy's limit of body bytes"),
        );
      size += chunk.length;
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (failed) return;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    request.on('error', fail);
  });
}

const tooLarge = (maxBytes: number) =>
  new ProxyError(413, 'invalid_request', 'PROXY_ERR_BAD_REQUEST', `the request body is larger than the proxy's limit of ${maxBytes} bytes`);
