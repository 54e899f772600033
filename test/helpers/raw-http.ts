/**
 * Plain HTTP requests with full control over headers (fetch will not send a custom Host), for the
 * edge-case tests. JSON and single-event SSE bodies are both decoded into `json`.
 */
import { request as httpRequest } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export const MCP_ACCEPT = 'application/json, text/event-stream';

export function rawHttp(port: number, options: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {} },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json: decodeBody(text) });
        });
      },
    );
    // The server may answer (413) and close before a large body is fully written; the response still arrives.
    request.on('error', reject);
    if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}

/** POSTs one JSON-RPC message to an MCP endpoint with the headers Streamable HTTP requires. */
export function postJsonRpc(port: number, path: string, message: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawHttp(port, {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, host: `127.0.0.1:${port}`, ...headers },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
}

function decodeBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .filter(Boolean);
    if (data.length === 0) return undefined;
    try {
      return JSON.parse(data[data.length - 1]!);
    } catch {
      return undefined;
    }
  }
}
