/**
 * The one builder of JSON-RPC error bodies outside the SDK: refusals at the HTTP edge and on WebSocket upgrades,
 * the tools/call fast path, and frames the WebSocket transport cannot parse. One shape, so a client reads every
 * refusal the same way whichever path produced it.
 */
import { INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR } from '@modelcontextprotocol/server';
import { toProtocolError } from './protocol-error-mapping.js';

export type JsonRpcId = string | number | null;

export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data?: unknown };
}

/** JSON-RPC error codes used at the edges (the SDK uses the same for the same conditions). */
export const EDGE_ERROR_CODES = {
  /** Server-defined: request refused at the edge (missing session header, too large, over a quota). */
  requestRefused: -32000,
  /** Streamable HTTP: unknown or expired session. */
  sessionNotFound: -32001,
  parseError: PARSE_ERROR,
  invalidRequest: INVALID_REQUEST,
  internalError: INTERNAL_ERROR,
} as const;

/** `data` carries structured details such as a corral error code; `id` is null when the request's id is unknown. */
export function jsonRpcErrorBody(message: string, code: number = EDGE_ERROR_CODES.requestRefused, data?: unknown, id: JsonRpcId = null): JsonRpcErrorBody {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** A fault thrown by a request's handler, as the SDK would answer it (CorralError code in `data`). */
export function jsonRpcFaultBody(id: JsonRpcId, fault: unknown): JsonRpcErrorBody {
  const error = toProtocolError(fault);
  return jsonRpcErrorBody(error.message, error.code, error.data, id);
}

/** A JSON-RPC error as a web Response, for answers given before any MCP server sees the request. */
export function jsonRpcErrorResponse(status: number, code: number, message: string, id: JsonRpcId = null): Response {
  return new Response(JSON.stringify(jsonRpcErrorBody(message, code, undefined, id)), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
