/**
 * The bytes sent upstream, assembled from pieces serialised once: each message's JSON is kept until the next call
 * (CLIs resend the conversation, and the rollout's shared prefix makes a resent message the same object), and the
 * tool list comes from the request cache's serialisation. Only what is new in a call is serialised.
 */
import type { ProxyChatMessage } from './chat-wire.js';

const COMMA = Buffer.from(',');

export class MessageBytes {
  private previous = new Map<object, Buffer>();

  /** Each message's JSON, reusing the last call's for messages that are the same objects. */
  serialise(messages: readonly ProxyChatMessage[]): Buffer[] {
    const current = new Map<object, Buffer>();
    const parts = messages.map((message) => {
      const bytes = current.get(message) ?? this.previous.get(message) ?? Buffer.from(JSON.stringify(message));
      current.set(message, bytes);
      return bytes;
    });
    this.previous = current;
    return parts;
  }
}

/** `{"messages":[...], ...fields, "tools":[...]}`; `toolsJson` is `,"tools":[...]`, or null without tools. */
export function upstreamBytes(messages: Buffer[], fields: Record<string, unknown>, toolsJson: Buffer | null): Buffer {
  const rest = JSON.stringify(fields);
  const pieces: Buffer[] = [Buffer.from('{"messages":[')];
  messages.forEach((message, index) => pieces.push(...(index === 0 ? [message] : [COMMA, message])));
  pieces.push(Buffer.from(rest === '{}' ? ']' : `],${rest.slice(1, -1)}`));
  if (toolsJson) pieces.push(toolsJson);
  pieces.push(Buffer.from('}'));
  return Buffer.concat(pieces);
}
