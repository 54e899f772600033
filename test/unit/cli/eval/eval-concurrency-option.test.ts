import { describe, expect, it } from 'vitest';
import { parseEvalOptions } from '../../../../src/cli/eval/eval-options.js';

describe('corral eval -c', () => {
  it('is auto by default with a ceiling of 256, takes a fixed number, and refuses anything else naming the flag', () => {
    expect(parseEvalOptions({})).toMatchObject({ concurrency: 'auto', maxConcurrency: 256 });
    expect(parseEvalOptions({ concurrency: '8' })).toMatchObject({ concurrency: 8 });
    expect(parseEvalOptions({ concurrency: 'auto', maxConcurrency: '64' })).toMatchObject({ concurrency: 'auto', maxConcurrency: 64 });
    expect(() => parseEvalOptions({ concurrency: 'lots' })).toThrow(/--concurrency: 'auto' or a whole number >= 1/);
    expect(() => parseEvalOptions({ maxConcurrency: '0' })).toThrow(/--max-concurrency/);
  });
});
