/**
 * The MCP messages the load generators send by hand. They speak the 2025-era Streamable HTTP dialect (initialize,
 * then Mcp-Session-Id and MCP-Protocol-Version on every request) because that is what a session-holding client
 * does, and it is the era whose per-session state the servers keep. Raw JSON-RPC, not the SDK Client, so the
 * generator spends as little CPU as possible per call.
 */

export const LOAD_PROTOCOL_VERSION = '2025-11-25';

export const MCP_POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;

export function initializeMessage(id: number | string, clientName = 'corral-bench'): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: LOAD_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } },
  });
}

export const INITIALIZED_NOTIFICATION = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

export function toolCallMessage(id: number, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

/** Headers for every request after initialize in a 2025-era session. */
export function sessionHeaders(sessionId: string): Record<string, string> {
  return { ...MCP_POST_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': LOAD_PROTOCOL_VERSION };
}

export interface JsonRpcReply {
  id?: number | string | null;
  result?: { isError?: boolean; [field: string]: unknown };
  error?: { code: number; message: string };
}

/** A response body as either plain JSON or an SSE stream of one or more `data:` events; returns the last message. */
export function decodeReply(body: string): JsonRpcReply | undefined {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed) as JsonRpcReply;
  let last: string | undefined;
  for (const line of body.split('\n')) if (line.startsWith('data:')) last = line.slice(5).trim() || last;
  return last === undefined ? undefined : (JSON.parse(last) as JsonRpcReply);
}

/** True for a JSON-RPC result that is not a tool-level error. */
export function isSuccessfulCall(reply: JsonRpcReply | undefined): boolean {
  return reply !== undefined && reply.error === undefined && reply.result !== undefined && reply.result.isError !== true;
}
