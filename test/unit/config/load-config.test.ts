import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { CorralError } from '../../../src/core/errors.js';

describe('loadConfig', () => {
  it('applies defaults and freezes the result', () => {
    const config = loadConfig({ env: {} });
    expect(config.server.host).toBe('127.0.0.1');
    expect(config.sandbox.backend).toBe('auto');
    expect(Object.isFrozen(config.server)).toBe(true);
  });

  it('prefers flags over environment', () => {
    const config = loadConfig({ flags: { port: 9000 }, env: { CORRAL_PORT: '8000', CORRAL_BACKEND: 'process' } });
    expect(config.server.port).toBe(9000);
    expect(config.sandbox.backend).toBe('process');
  });

  it('names the flag and variable to fix in its error', () => {
    let caught: unknown;
    try {
      loadConfig({ env: { CORRAL_BACKEND: 'kubernetes' } });
    } catch (error) {
      caught = error;
    }
    expect(CorralError.hasCode(caught, 'CFG_ERR_INVALID')).toBe(true);
    expect((caught as Error).message).toContain('--backend');
    expect((caught as Error).message).toContain('CORRAL_BACKEND');
  });
});
