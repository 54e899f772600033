import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MCP_REQUIREMENTS } from '../../e2e/mcp-requirements.js';

// Every MCP requirement is cited by at least one test (STYLE principle 8).
const TEST_ROOT = resolve(import.meta.dirname, '../..');

describe('MCP requirements coverage', () => {
  it('cites every requirement id in some test', () => {
    const sources = ['e2e', 'unit'].flatMap((folder) =>
      readdirSync(join(TEST_ROOT, folder))
        .filter((name) => name.endsWith('.test.ts'))
        .map((name) => readFileSync(join(TEST_ROOT, folder, name), 'utf8')),
    );
    const cited = new Set(
      sources.flatMap((text) => [...text.matchAll(/cites\(([^)]*)\)/g)].flatMap((match) => [...match[1]!.matchAll(/'([A-Z0-9-]+)'/g)].map((id) => id[1]!))),
    );
    expect(Object.keys(MCP_REQUIREMENTS).filter((id) => !cited.has(id))).toEqual([]);
  });
});
