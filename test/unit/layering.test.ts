import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Re-derives STYLE.md's import table from the source, independent of the eslint config: arrows point toward core/.
const SRC = resolve(import.meta.dirname, '../../src');

/** folder prefix (relative to src) -> folders it must not import from. Most specific prefix wins. */
const FORBIDDEN: [string, string[]][] = [
  ['core/', ['config/', 'sandbox/', 'tools/', 'mcp/', 'http/', 'runner/', 'cli/', 'bench/']],
  ['config/', ['sandbox/', 'tools/', 'mcp/', 'http/', 'runner/', 'cli/', 'bench/']],
  ['sandbox/docker/', ['sandbox/pool/', 'sandbox/process/', 'sandbox/isolate/', 'tools/', 'mcp/', 'http/', 'runner/', 'cli/']],
  ['sandbox/process/', ['sandbox/pool/', 'sandbox/docker/', 'sandbox/isolate/', 'tools/', 'mcp/', 'http/', 'runner/', 'cli/']],
  ['sandbox/isolate/', ['sandbox/pool/', 'sandbox/docker/', 'sandbox/process/', 'tools/', 'mcp/', 'http/', 'runner/', 'cli/']],
  ['sandbox/', ['sandbox/docker/', 'sandbox/process/', 'sandbox/isolate/', 'tools/', 'mcp/', 'http/', 'runner/', 'cli/']],
  ['tools/', ['sandbox/pool/', 'sandbox/docker/', 'sandbox/process/', 'sandbox/isolate/', 'sandbox/registry', 'mcp/', 'http/', 'runner/', 'cli/']],
  ['mcp/', ['sandbox/docker/', 'sandbox/process/', 'sandbox/isolate/', 'http/', 'runner/', 'cli/']],
  ['http/', ['sandbox/docker/', 'sandbox/process/', 'sandbox/isolate/', 'runner/', 'cli/']],
  ['runner/', ['tools/', 'mcp/', 'http/', 'sandbox/', 'cli/']],
];
/** Dynamic imports allowed across the line: the registry is the one place that loads concrete backends. */
const DYNAMIC_EXCEPTIONS = new Set(['sandbox/registry.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): { target: string; dynamic: boolean }[] {
  const text = readFileSync(file, 'utf8');
  const found: { target: string; dynamic: boolean }[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) found.push({ target: match[1]!, dynamic: false });
  for (const match of text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) found.push({ target: match[1]!, dynamic: true });
  return found;
}

describe('layering', () => {
  it('every import in src/ points the allowed way', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = relative(SRC, file);
      const rule = FORBIDDEN.filter(([prefix]) => from.startsWith(prefix)).sort((a, b) => b[0].length - a[0].length)[0];
      if (!rule) continue;
      for (const { target, dynamic } of importsOf(file)) {
        const to = relative(SRC, resolve(dirname(file), target));
        if (dynamic && DYNAMIC_EXCEPTIONS.has(from)) continue;
        const own = rule[0];
        const bad = rule[1].find((prefix) => to.startsWith(prefix) && !to.startsWith(own));
        if (bad) violations.push(`${from} imports ${to}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('the public seam uses named exports only', () => {
    const index = readFileSync(join(SRC, 'index.ts'), 'utf8');
    expect(index).not.toMatch(/export \*/);
  });
});
