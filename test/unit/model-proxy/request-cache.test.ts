// The per-rollout request cache: a CLI's resent tool list and system prompt are parsed and translated once, and
// cached bytes stand in only where they really are the request's top-level field.
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../src/model-proxy/dialects.js';
import { topLevelFieldSpans } from '../../../src/model-proxy/json-field-span.js';
import { RequestCache } from '../../../src/model-proxy/request-cache.js';
import { capturedRequest } from './upstream-answers.js';

const bytesOf = (body: unknown) => Buffer.from(JSON.stringify(body));
const tool = (name: string) => ({
  name,
  description: `runs ${name} "quoted" \\ → here`,
  input_schema: { type: 'object', properties: { tools: { type: 'string' } } },
});

describe('RequestCache', () => {
  it('reuses the translation of Claude Code’s tools and its system blocks while the bytes are the same, and reads the rest anew', () => {
    const cache = new RequestCache();
    const claude = capturedRequest('claude-code').body;
    const first = cache.read(bytesOf(claude), DIALECTS.anthropic);
    const later = { ...claude, messages: [...(claude['messages'] as unknown[]), { role: 'user', content: 'one more' }] };
    const second = cache.read(bytesOf(later), DIALECTS.anthropic);
    expect(second.tools).toBe(first.tools);
    expect(second.toolsJson).toBe(first.toolsJson);
    expect((second.body as Record<string, unknown>)['system']).toBe((first.body as Record<string, unknown>)['system']);
    // What the cache hands over reads exactly as a whole parse would.
    expect(second.body).toEqual(later);
    expect(DIALECTS.anthropic.translateRequest(second.body, { query: new URLSearchParams() }, second.tools)).toEqual(
      DIALECTS.anthropic.translateRequest(later, { query: new URLSearchParams() }),
    );
    expect(JSON.parse(`{${second.toolsJson!.toString().slice(1)}}`)).toEqual({ tools: second.tools.tools });
  });

  it('translates a changed tool list anew, and never takes cached bytes found below the top level for the request’s tools', () => {
    const cache = new RequestCache();
    const tools = [tool('a'), tool('b')];
    const first = cache.read(bytesOf({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools }), DIALECTS.anthropic);
    expect(first.tools.tools.map((entry) => entry.function.name)).toEqual(['a', 'b']);
    const changed = cache.read(bytesOf({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [tool('c')] }), DIALECTS.anthropic);
    expect(changed.tools.tools.map((entry) => entry.function.name)).toEqual(['c']);
    // The same `"tools":[...]` bytes nested in a message's tool input, and other tools at the top level.
    const nested = {
      model: 'm',
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: { tools } }] }],
      tools: [tool('d')],
    };
    const read = cache.read(bytesOf(nested), DIALECTS.anthropic);
    expect(read.tools.tools.map((entry) => entry.function.name)).toEqual(['d']);
    expect(read.body).toEqual(nested);
    // Duplicate keys: JSON.parse keeps the last, and so does the cache.
    const duplicated = Buffer.from(
      `{"model":"m","tools":${JSON.stringify(tools)},"messages":[{"role":"user","content":"x"}],"tools":${JSON.stringify([tool('e')])}}`,
    );
    expect(cache.read(duplicated, DIALECTS.anthropic).tools.tools.map((entry) => entry.function.name)).toEqual(['e']);
  });

  it('keeps Codex’s namespaces per cached list without letting one request’s calls leak into the next', () => {
    const cache = new RequestCache();
    const body = (input: unknown) =>
      bytesOf({ model: 'm', input, tools: [{ type: 'namespace', name: 'mcp__box', tools: [{ type: 'function', name: 'run', parameters: {} }] }] });
    const first = cache.read(body('x'), DIALECTS.responses);
    const translated = DIALECTS.responses.translateRequest(first.body, { query: new URLSearchParams() }, first.tools) as {
      state: { namespaced: Map<string, unknown> };
    };
    translated.state.namespaced.set('extra', { namespace: 'n', name: 'e' });
    const second = cache.read(body('y'), DIALECTS.responses);
    expect(second.tools).toBe(first.tools);
    expect([...second.tools.namespaced.keys()]).toEqual(['mcp__box__run']);
  });

  it('refuses a body that is not JSON with a 400', () => {
    expect(() => new RequestCache().read(Buffer.from('{"model":'), DIALECTS.chat)).toThrow(
      expect.objectContaining({ status: 400, code: 'PROXY_ERR_BAD_REQUEST' }),
    );
  });
});

describe('topLevelFieldSpans', () => {
  it('finds only depth-one keys, past strings with escaped quotes and keys of the same name deeper down', () => {
    const text = '{"a":"x\\"tools\\":[1]","nested":{"tools":[2]},"tools" : [ {"k":"}]"} ] ,"b":1}';
    const span = topLevelFieldSpans(Buffer.from(text), ['tools']).get('tools')!;
    expect(text.slice(span.start, span.end)).toBe('"tools" : [ {"k":"}]"} ] ');
    expect(topLevelFieldSpans(Buffer.from('{"tool":1,"x":{"tools":[]}}'), ['tools']).size).toBe(0);
  });
});
