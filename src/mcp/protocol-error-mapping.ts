/**
 * Turns a fault thrown during tools/call into the JSON-RPC error a client sees (STYLE principle 9). The
 * CorralError code travels in `error.data`, so a runner can tell an infrastructure fault (mark the rollout
 * errored, maybe retry when transient) from misuse.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { CorralError } from '../core/errors.js';

export function toProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (CorralError.isInstance(error)) {
    const code = error.audience === 'caller' ? ProtocolErrorCode.InvalidRequest : ProtocolErrorCode.InternalError;
    return new ProtocolError(code, `${error.code}: ${error.message}`, {
      corralCode: error.code,
      audience: error.audience,
      transient: error.transient,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProtocolError(ProtocolErrorCode.InternalError, `internal error: ${message}`, {
    corralCode: 'INTERNAL',
    audience: 'infrastructure',
    transient: false,
  });
}

/** The code recorded in metrics for a thrown fault. */
export function errorCodeOf(error: unknown): string {
  if (CorralError.isInstance(error)) return error.code;
  if (error instanceof ProtocolError) return `JSONRPC_${error.code}`;
  return 'INTERNAL';
}
