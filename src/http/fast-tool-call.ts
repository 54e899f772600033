/**
 * Recognises the hottest request, one plain JSON-RPC tools/call on an existing 2025 session (/mcp/:env) or on a
 * handle (/mcp/:env/:id), so it can be answered with a plain JSON body (which Streamable HTTP allows when the
 * client accepts application/json) without rebuilding a web Request and running the SDK transport: ~half of the
 * server's CPU per call went there. Anything unusual (batches, progress tokens, unknown or 2026-era protocol
 * versions, other media types) takes the normal path. The call itself runs on the tool server assembly's fast path.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import type { FastCallTarget } from '../mcp/tool-server-host.js';
import type { ToolCallMessage } from '../mcp/tool-server-assembly.js';

export interface FastToolCallRequest {
  target: FastCallTarget;
  message: ToolCallMessage;
}

/** `handleId` when the request came to /mcp/:env/:id; then it must carry no session id (handles are stateless). */
export function fastToolCallRequest(request: FastifyRequest, handleId?: string): FastToolCallRequest | undefined {
  if (request.method !== 'POST' || typeof request.body !== 'string') return undefined;
  const sessionId = request.headers['mcp-session-id'];
  const version = request.headers['mcp-protocol-version'];
  const target = handleId === undefined ? (typeof sessionId === 'string' ? { sessionId } : undefined) : sessionId === undefined ? { handleId } : undefined;
  if (!target || (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))) return undefined;
  if (!String(request.headers.accept ?? '').includes('application/json') || !String(request.headers['content-type'] ?? '').includes('application/json'))
    return undefined;
  let message: unknown;
  try {
    message = JSON.parse(request.body);
  } catch {
    return undefined;
  }
  if (!isToolCall(message)) return undefined;
  return { target, message: { id: message.id, params: message.params } };
}

function isToolCall(value: unknown): value is ToolCallMessage & { jsonrpc: '2.0'; method: 'tools/call' } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown };
  if (message.jsonrpc !== '2.0' || message.method !== 'tools/call' || (typeof message.id !== 'string' && typeof message.id !== 'number')) return false;
  const params = message.params as { name?: unknown; arguments?: unknown; _meta?: unknown } | undefined;
  if (typeof params !== 'object' || params === null || typeof params.name !== 'string' || params._meta !== undefined) return false;
  return params.arguments === undefined || (typeof params.arguments === 'object' && params.arguments !== null && !Array.isArray(params.arguments));
}
