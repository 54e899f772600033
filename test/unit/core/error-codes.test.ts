import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CorralError, ERROR_CODES } from '../../../src/core/errors.js';

describe('error codes', () => {
  it('every code is documented in docs/errors.md', () => {
    const doc = readFileSync(resolve(import.meta.dirname, '../../../docs/errors.md'), 'utf8');
    const missing = Object.keys(ERROR_CODES).filter((code) => !doc.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });

  it('isInstance works across copies through the Symbol.for marker', () => {
    const error = new CorralError('SBX_ERR_TIMEOUT', 'slow');
    const copy = JSON.parse(JSON.stringify({})) as Record<symbol, unknown>;
    copy[Symbol.for('corral.error')] = true;
    expect(CorralError.isInstance(error)).toBe(true);
    expect(CorralError.isInstance(copy)).toBe(true);
    expect(CorralError.isInstance(new Error('plain'))).toBe(false);
    expect(error.audience).toBe('model');
    expect(new CorralError('POOL_ERR_ACQUIRE_TIMEOUT', 'x').transient).toBe(true);
  });
});
