import type { WireError } from './wire-protocol.js';

/** One line from the agent, classified. `invalid` means the stream can no longer be trusted. */
export type AgentMessage =
  | { kind: 'ready'; version: unknown; pid: number }
  | { kind: 'result'; id: number; result: Record<string, unknown> }
  | { kind: 'error'; id: number; error: WireError }
  | { kind: 'invalid'; reason: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseAgentLine(line: string): AgentMessage {
  const excerpt = line.slice(0, 200);
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { kind: 'invalid', reason: `a line that is not JSON: ${excerpt}` };
  }
  if (!isObject(message)) return { kind: 'invalid', reason: `a line that is not a JSON object: ${excerpt}` };
  if (message.event === 'ready') return { kind: 'ready', version: message.version, pid: Number(message.pid) };
  if (typeof message.id !== 'number') {
    // The agent answers a request it could not parse with id null: we sent something broken.
    const detail = isObject(message.error) ? JSON.stringify(message.error) : excerpt;
    return { kind: 'invalid', reason: `a message without a request id: ${detail}` };
  }
  if (message.ok === true && isObject(message.result)) return { kind: 'result', id: message.id, result: message.result };
  if (message.ok === false && isObject(message.error)) {
    return { kind: 'error', id: message.id, error: { code: String(message.error.code), message: String(message.error.message) } };
  }
  return { kind: 'invalid', reason: `a malformed response: ${excerpt}` };
}
