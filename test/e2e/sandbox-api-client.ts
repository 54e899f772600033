/** A small client for the /v1/sandboxes API in the sandbox-api-* tests: JSON in and out, one principal per name. */
import type { TestServer } from '../helpers/mcp-test-server.js';

export const SANDBOX_API_TOKEN = 'sandbox-api-token';

export interface ApiAnswer<Body = Record<string, unknown>> {
  status: number;
  body: Body;
}

export interface HandleBody {
  id: string;
  env: string;
  mcpUrl: string;
  wsUrl: string;
  expiresAt: string;
}

export interface ErrorBody {
  error: { code: string; message: string; fields?: string[]; path?: string };
}

export function sandboxApi(server: TestServer, client: string) {
  const headers = { authorization: `Bearer ${SANDBOX_API_TOKEN}`, 'x-test-client': client };
  const json = async <Body>(response: Response): Promise<ApiAnswer<Body>> => ({
    status: response.status,
    body: (response.status === 204 ? {} : await response.json()) as Body,
  });
  return {
    headers,
    create: async <Body = HandleBody>(body: unknown) =>
      json<Body>(
        await fetch(`${server.baseUrl}/v1/sandboxes`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      ),
    list: async () => json<{ sandboxes: HandleBody[] }>(await fetch(`${server.baseUrl}/v1/sandboxes`, { headers })),
    remove: async (id: string) => json(await fetch(`${server.baseUrl}/v1/sandboxes/${id}`, { method: 'DELETE', headers })),
    putFile: async (id: string, path: string, content: Uint8Array | string, contentType = 'application/octet-stream') =>
      fetch(`${server.baseUrl}/v1/sandboxes/${id}/files?path=${encodeURIComponent(path)}`, {
        method: 'PUT',
        headers: { ...headers, 'content-type': contentType },
        body: content,
      }),
    getFile: async (id: string, path: string) => fetch(`${server.baseUrl}/v1/sandboxes/${id}/files?path=${encodeURIComponent(path)}`, { headers }),
  };
}
