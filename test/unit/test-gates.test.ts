import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { dataDirectoryWith, gate, python3Available } from '../helpers/test-gates.js';

const TEST_ROOT = resolve(import.meta.dirname, '..');

function testSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : testSources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('test gates: skip loudly on a laptop, fail under CI=true', () => {
  it('gate passes what is there, skips with a warning without CI, and throws under CI', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(gate('thing', null, { CI: 'true' })).toBe(true);
      expect(gate('thing', 'not installed', {})).toBe(false);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('thing unavailable: not installed; SKIPPING'));
      expect(() => gate('thing', 'not installed', { CI: 'true' })).toThrow(/thing unavailable: not installed \(CI=true: refusing to skip\)/);
    } finally {
      warn.mockRestore();
    }
  });

  it('the data gate needs CORRAL_DATA_DIR and every named path in it', () => {
    const directory = mkdtempSync(join(tmpdir(), 'corral-gate-'));
    mkdirSync(join(directory, 'qa'));
    writeFileSync(join(directory, 'qa', 'dev.jsonl'), '');
    expect(dataDirectoryWith(['qa/dev.jsonl'], { CI: 'true', CORRAL_DATA_DIR: directory })).toBe(directory);
    expect(() => dataDirectoryWith(['qa/dev.jsonl'], { CI: 'true' })).toThrow(/CORRAL_DATA_DIR is not set.*refusing to skip/);
    expect(() => dataDirectoryWith(['qa/dev.jsonl', 'wiki'], { CI: 'true', CORRAL_DATA_DIR: directory })).toThrow(`${join(directory, 'wiki')} does not exist`);
  });

  it('the python3 gate throws under CI when python3 cannot run (here: an empty PATH)', () => {
    expect(() => python3Available({ CI: 'true', PATH: join(tmpdir(), 'corral-no-such-bin') })).toThrow(
      /local python3 with GNU timeout unavailable.*refusing to skip/,
    );
  });

  it('no test reads CORRAL_DATA_DIR or probes python3 itself: every such gate goes through test-gates.ts', () => {
    const direct = testSources(TEST_ROOT)
      .filter((path) => !path.endsWith('test-gates.ts') && !path.endsWith('test-gates.test.ts'))
      .filter((path) => /process\.env\.CORRAL_DATA_DIR|python3 --version/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(TEST_ROOT, path));
    expect(direct).toEqual([]);
  });
});
