/**
 * CLIs resend the whole conversation on every call, so recording each request as parsed would keep O(turns²)
 * messages per rollout. A call's messages that equal the previous call's (its request, then its answer) at the same
 * positions are replaced by those same objects: the record reads the same and serialises the same, and memory
 * grows with what is new.
 */
import type { ChatMessage } from '../runner/trajectory/messages.js';
import type { ProxyChatMessage } from './chat-wire.js';

type Message = ProxyChatMessage | ChatMessage;

/** Returns how many leading messages of `current` are now `previous`'s objects. */
export function shareRecordedPrefix(previous: readonly Message[], current: Message[]): number {
  const length = Math.min(previous.length, current.length);
  for (let index = 0; index < length; index++) {
    if (current[index] === previous[index]) continue;
    if (!sameJson(previous[index], current[index])) return index;
    current[index] = previous[index]!;
  }
  return length;
}

function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left)) return Array.isArray(right) && left.length === right.length && left.every((item, index) => sameJson(item, right[index]));
  if (Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => sameJson((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]));
}
