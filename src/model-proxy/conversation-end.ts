/**
 * Which recorded call ends the CLI's own conversation. Any process in the sandbox can call the model socket with the
 * rollout's key (it is in the CLI's environment), so "the last call the proxy saw" is not the CLI's last turn: a
 * background process calling after the CLI's final answer would become the completion. A CLI's turn resends the
 * conversation so far, so its calls extend one another; a stray call does not. The end is the latest answered call
 * that continues an earlier answered call (holds all of that call's messages but its last, which CLIs may rewrite,
 * and more); a CLI that compacts starts a new chain whose later turns qualify again. With no such call (a one-turn
 * conversation), the latest answered call.
 */
import type { ModelCall } from './model-call.js';

export function conversationEnd(calls: readonly ModelCall[]): ModelCall | null {
  const answered = calls.filter((call) => call.response !== null).sort((left, right) => left.index - right.index);
  const ids = new MessageIds();
  /** Prefix keys (length and hash of all but the last message) of the answered calls seen so far. */
  const prefixes = new Set<string>();
  let end: ModelCall | null = null;
  let continuing: ModelCall | null = null;
  for (const call of answered) {
    const keys = prefixKeys(call.request.messages.map((message) => ids.of(message)));
    // Continues an earlier call whose messages but its last are this call's first k, for some k ≤ length − 2.
    if (keys.slice(1, -2).some((key) => prefixes.has(key))) continuing = call;
    if (keys.length >= 3) prefixes.add(keys[keys.length - 2]!);
    end = call;
  }
  return continuing ?? end;
}

/** `k:hash` of each prefix of length k = 0..n, over message ids. */
function prefixKeys(messageIds: number[]): string[] {
  const keys = ['0:0:0'];
  let first = 0;
  let second = 0;
  messageIds.forEach((id, position) => {
    first = (first * 1_000_003 + id) % 2_147_483_647;
    second = (second * 31_337 + id + 1) % 1_000_000_007;
    keys.push(`${position + 1}:${first}:${second}`);
  });
  return keys;
}

/** One small number per distinct message: by object first (the proxy shares unchanged prefixes), else by value. */
class MessageIds {
  private readonly byObject = new Map<object, number>();
  private readonly byJson = new Map<string, number>();

  of(message: object): number {
    let id = this.byObject.get(message);
    if (id !== undefined) return id;
    const json = JSON.stringify(message);
    id = this.byJson.get(json);
    if (id === undefined) this.byJson.set(json, (id = this.byJson.size + 1));
    this.byObject.set(message, id);
    return id;
  }
}
