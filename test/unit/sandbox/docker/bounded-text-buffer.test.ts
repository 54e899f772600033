import { describe, expect, it } from 'vitest';
import { BoundedTextBuffer } from '../../../../src/sandbox/docker/bounded-text-buffer.js';

describe('BoundedTextBuffer', () => {
  it('keeps everything under the limit', () => {
    const buffer = new BoundedTextBuffer(10);
    buffer.append('abc');
    buffer.append('def');
    expect(buffer.text()).toBe('abcdef');
  });

  it('keeps only the last maxChars and says how much it dropped', () => {
    const buffer = new BoundedTextBuffer(5);
    buffer.append('0123');
    buffer.append('456789');
    expect(buffer.text()).toBe('[…5 earlier chars dropped]\n56789');
  });
});
