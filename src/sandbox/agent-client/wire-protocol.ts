/**
 * Shapes of the JSON-lines protocol spoken with the in-sandbox agent (sandboxes/agent/PROTOCOL.md). Version 1.
 * One JSON object per line each way; requests carry an integer id that the response echoes.
 */
export const AGENT_PROTOCOL_VERSION = 1;
/**
 * The agent never writes a longer line (MAX_LINE_BYTES in sandboxes/agent/wire.py: a whole 32 MiB file as
 * base64 plus the envelope fits; a bigger reply becomes a TOO_LARGE error), so a longer one is a broken stream.
 */
export const AGENT_MAX_LINE_BYTES = 48 * 1024 * 1024;

/** Wire error codes the agent reports; mapped to CorralError codes in wire-errors.ts. */
export type WireErrorCode = 'NOT_FOUND' | 'PERMISSION' | 'INVALID_ARGUMENT' | 'TIMEOUT' | 'TOO_LARGE' | 'UNSUPPORTED' | 'INTERNAL';

export type AgentOp =
  | 'ping'
  | 'extend'
  | 'cancel'
  | 'shutdown'
  | 'exec'
  | 'python'
  | 'python_reset'
  | 'read'
  | 'write'
  | 'edit'
  | 'list'
  | 'stat'
  | 'glob'
  | 'grep'
  | 'remove'
  | 'mkdir'
  | 'reset';

export interface WireError {
  code: string;
  message: string;
}

export interface ReadyEvent {
  event: 'ready';
  version: number;
  pid: number;
}

export type WireResponse = { id: number; ok: true; result: Record<string, unknown> } | { id: number | null; ok: false; error: WireError };

export interface WireResetResult {
  ok: boolean;
  leftovers: string[];
  durationMs: number;
}
