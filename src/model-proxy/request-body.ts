/**
 * Reads a request body whole, up to a cap, so a CLI (or code in its sandbox) cannot make the proxy hold unbounded
 * memory. Parsing is the request cache's (request-cache.ts).
 */
import type { IncomingMessage } from 'node:http';
import { ProxyError } from './proxy-error.js';

export function readBodyBytes(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) return reject(tooLarge(maxBytes));
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the cap the rest is read and dropped (memory stays bounded) so the 413 can still be answered.
      if (size > maxBytes) {
        chunks.length = 0;
        return reject(tooLarge(maxBytes));
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > maxBytes) return;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    request.on('error', reject);
  });
}

const tooLarge = (maxBytes: number) =>
  new ProxyError(413, 'invalid_request', 'PROXY_ERR_BAD_REQUEST', `the request body is larger than the proxy's limit of ${maxBytes} bytes`);
