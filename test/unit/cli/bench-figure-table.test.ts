/** The human table `corral bench` prints: ratios keep their meaning below 1. */
import { describe, expect, it } from 'vitest';
import { formatFigures, ratioText } from '../../../benchmarks/figure.js';

describe('bench figure table', () => {
  it('prints ratios from 1 up with one decimal and below 1 with two significant digits, never x0 for a nonzero ratio', () => {
    expect(ratioText(78.349)).toBe('x78.3');
    expect(ratioText(1)).toBe('x1');
    expect(ratioText(0.0217)).toBe('x0.022');
    expect(ratioText(0.46)).toBe('x0.46');
    expect(ratioText(0)).toBe('x0');
    const table = formatFigures([{ name: 'search.query.p50', value: 1.265, unit: 'ms', peer: 'title-only matcher', peerValue: 0.029, ratio: 0.023 }]);
    expect(table).toContain('x0.023');
    expect(table).toMatch(/search\.query\.p50\s+1\.265 ms\s+title-only matcher: 0\.029 ms/);
  });
});
