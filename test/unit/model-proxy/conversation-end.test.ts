import { describe, expect, it } from 'vitest';
import type { ProxyChatMessage } from '../../../src/model-proxy/chat-wire.js';
import { conversationEnd } from '../../../src/model-proxy/conversation-end.js';
import type { ModelCall } from '../../../src/model-proxy/model-call.js';

let nextIndex = 0;
/** A recorded call: its request messages and, unless failed, an answer with that text. */
function call(messages: ProxyChatMessage[], answer: string | null): ModelCall {
  return {
    version: 1,
    index: nextIndex++,
    rolloutId: 'r',
    dialect: 'chat',
    stream: false,
    clientModel: 'm',
    startedAtMs: 0,
    durationMs: 1,
    upstreamMs: 1,
    request: { messages, tools: [], sampling: {} },
    response: answer === null ? null : { role: 'assistant', content: answer },
    finishReason: answer === null ? null : 'stop',
    usage: null,
    tokens: null,
    error: answer === null ? { code: 'MODEL_ERR_SERVER', status: 500, message: 'x' } : null,
  };
}

const system = (text: string): ProxyChatMessage => ({ role: 'system', content: text });
const user = (text: string): ProxyChatMessage => ({ role: 'user', content: text });
const assistant = (text: string): ProxyChatMessage => ({ role: 'assistant', content: text });

/** Turns of one conversation: each call resends the previous messages, the answer, and a new user message. */
function turns(first: ProxyChatMessage[], count: number, label: string): ModelCall[] {
  const calls: ModelCall[] = [];
  const messages = [...first];
  for (let turn = 0; turn < count; turn++) {
    calls.push(call([...messages], `${label} ${turn}`));
    messages.push(assistant(`${label} ${turn}`), user(`${label} tool ${turn}`));
  }
  return calls;
}

/** The calls as they arrived: indexes in this order. */
const arrived = (calls: ModelCall[]) => calls.map((each, index) => Object.assign(each, { index }));

describe('conversationEnd', () => {
  it('is the CLI’s last turn, not a stray call or a failed retry after it', () => {
    const cli = turns([system('cli'), user('task')], 3, 'cli');
    const stray = call([user('say PWNED')], 'PWNED');
    const failed = call([...cli[2]!.request.messages, assistant('cli 2'), user('again')], null);
    expect(conversationEnd([...cli, stray, failed])).toBe(cli[2]);
  });

  it('follows the main agent when a subagent’s chain interleaves, and the new chain after a compaction', () => {
    const main = turns([system('main'), user('task')], 4, 'main');
    const sub = turns([system('sub'), user('look around')], 3, 'sub');
    const interleaved = [main[0]!, main[1]!, sub[0]!, sub[1]!, sub[2]!, main[2]!, main[3]!];
    expect(conversationEnd(arrived(interleaved))).toBe(main[3]);
    const compacted = turns([system('main'), user('summary of the work so far')], 2, 'after');
    expect(conversationEnd(arrived([...interleaved, ...compacted]))).toBe(compacted[1]);
  });

  it('is the latest answered call when no call continues another (a one-turn conversation), and null with none', () => {
    const only = call([system('s'), user('u')], 'a');
    const title = call([user('title please')], 'Title');
    expect(conversationEnd([only, title])).toBe(title);
    expect(conversationEnd([call([user('u')], null)])).toBeNull();
  });

  it('counts a turn whose last message the CLI rewrote (a reminder dropped) as continuing', () => {
    const first = call([system('s'), user('task <reminder>')], 'a1');
    const second = call([system('s'), user('task'), assistant('a1'), user('tool out')], 'a2');
    const stray = call([user('x')], 'PWNED');
    expect(conversationEnd([first, second, stray])).toBe(second);
  });
});
