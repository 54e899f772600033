/** A JSON-RPC error as a web Response, for answers given before any MCP server sees the request. */
export function jsonRpcErrorResponse(status: number, code: number, message: string, id: string | number | null = null): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** JSON-RPC error codes used at the HTTP edge (the SDK uses the same for the same conditions). */
export const EDGE_ERROR_CODES = {
  /** Server-defined: request refused at the edge (missing session header, too large). */
  requestRefused: -32000,
  /** Streamable HTTP: unknown or expired session. */
  sessionNotFound: -32001,
} as const;
