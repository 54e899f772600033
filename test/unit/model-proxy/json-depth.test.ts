import { describe, expect, it } from 'vitest';
import { tooDeeplyNested } from '../../../src/model-proxy/json-depth.js';

const bytes = (text: string) => Buffer.from(text);

describe('tooDeeplyNested', () => {
  it('counts objects and arrays opened inside one another, up to the limit', () => {
    expect(tooDeeplyNested(bytes('{"a":[{"b":[1]}]}'), 4)).toBeNull();
    expect(tooDeeplyNested(bytes('{"a":[{"b":[[1]]}]}'), 4)).toMatchObject({ status: 400, code: 'PROXY_ERR_BAD_REQUEST' });
    expect(tooDeeplyNested(bytes('[[],[],[],[],[]]'), 2)).toBeNull();
  });

  it('does not count brackets inside strings, escaped quotes and backslashes included', () => {
    expect(tooDeeplyNested(bytes(JSON.stringify({ text: '[[[[{{{{', quoted: 'say \\"[[[[\\" \\\\', more: '\\\\' })), 2)).toBeNull();
    expect(tooDeeplyNested(bytes(JSON.stringify({ a: 'x\\', b: [[['deep']]] })), 3)).toMatchObject({ status: 400 });
  });
});
