import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ServerEvent } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reloadableServedEnvironments } from '../../../../src/cli/runtime/environment-reload.js';
import { servedEnvironmentsOf } from '../../../../src/cli/runtime/served-environments.js';
import type { ToolCatalog } from '../../../../src/mcp/tool-catalog.js';
import { loadEnvironmentModule } from '../../../../src/runner/environments/load-environment.js';

const INDEX = resolve(import.meta.dirname, '../../../../src/index.ts');
const EMPTY_CATALOG: ToolCatalog = { get: () => undefined, names: () => [] };

/** An environment module named `name` with one tool per entry of `tools`. */
const moduleText = (name: string, tools: string[]) => `import { defineEnvironment, defineTool, z } from ${JSON.stringify(INDEX)};
export default defineEnvironment({
  name: ${JSON.stringify(name)},
  description: 'reloaded in a unit test',
  systemPrompt: '',
  toolsets: [],
  tools: ${JSON.stringify(tools)}.map((tool) => defineTool({ name: tool, description: tool, inputSchema: z.object({}), async execute() { return tool; } })),
  dataset: () => [{ id: 'a', prompt: 'p' }],
  rubric: [{ name: 'zero', weight: 1, score: () => 0 }],
});
`;

describe('reloadableServedEnvironments', () => {
  let work: string;
  let path: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'corral-reload-unit-'));
    path = join(work, 'env.ts');
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  async function serveModule(loadTimeoutMs?: number) {
    writeFileSync(path, moduleText('reloading', ['first']));
    const definition = await loadEnvironmentModule(path);
    const served = servedEnvironmentsOf(
      new Map([['reloading', { name: 'reloading', definition, source: { kind: 'module', path, sha256: '', package: null } }]]),
    );
    const lines: string[] = [];
    const reloadable = await reloadableServedEnvironments(EMPTY_CATALOG, served, { wiki: undefined, log: (line) => lines.push(line), loadTimeoutMs });
    const entry = reloadable.catalog.get('reloading')!;
    const events: ServerEvent[] = [];
    entry.changeEvents!.subscribe((event) => events.push(event));
    return { served, reloadable, entry, events, lines };
  }

  it('swaps the tools behind the same entry, publishes one tools_list_changed and rebinds episodes', async () => {
    const { served, reloadable, entry, events } = await serveModule();
    expect(entry.tools.map((tool) => tool.name)).toEqual(['first']);
    writeFileSync(path, moduleText('reloading', ['first', 'second']));
    expect(await reloadable.reload()).toEqual([{ name: 'reloading', reloaded: true, tools: ['first', 'second'] }]);
    expect(reloadable.catalog.get('reloading')).toBe(entry);
    expect(entry.tools.map((tool) => tool.name)).toEqual(['first', 'second']);
    expect(events).toEqual([{ kind: 'tools_list_changed' }]);
    expect((await served.bind('reloading', undefined)).tools.map((tool) => tool.name)).toEqual(['first', 'second']);
  });

  it('keeps the old definition, publishes nothing and logs the code when the new module is refused', async () => {
    const { reloadable, entry, events, lines } = await serveModule();
    for (const [text, reason] of [
      [moduleText('renamed', ['first']), "now defines environment 'renamed'"],
      [moduleText('reloading', ['twice', 'twice']), 'two tools are named twice'],
      [moduleText('reloading', []), 'it has no tools'],
      ['export default {', 'failed to load'],
    ] as const) {
      writeFileSync(path, text);
      const [outcome] = await reloadable.reload();
      expect(outcome).toMatchObject({ name: 'reloading', reloaded: false, code: 'ENV_ERR_INVALID_MODULE' });
      expect(outcome!.reloaded === false && outcome!.message).toContain(reason);
      expect(entry.tools.map((tool) => tool.name)).toEqual(['first']);
    }
    expect(events).toEqual([]);
    expect(lines.filter((line) => line.includes('failed [ENV_ERR_INVALID_MODULE]'))).toHaveLength(4);
  });

  it('a reload whose import never settles fails with ENV_ERR_LOAD_TIMEOUT and does not block the next reload', async () => {
    const { reloadable, entry, lines } = await serveModule(300);
    // A timer keeps the event loop alive, as a socket that never answers would.
    writeFileSync(path, `await new Promise(() => setInterval(() => {}, 60_000));\n${moduleText('reloading', ['hung'])}`);
    const [hung] = await reloadable.reload();
    expect(hung).toMatchObject({ name: 'reloading', reloaded: false, code: 'ENV_ERR_LOAD_TIMEOUT' });
    expect(entry.tools.map((tool) => tool.name)).toEqual(['first']);
    writeFileSync(path, moduleText('reloading', ['first', 'after']));
    expect(await reloadable.reload()).toEqual([{ name: 'reloading', reloaded: true, tools: ['first', 'after'] }]);
    expect(lines.some((line) => line.includes('failed [ENV_ERR_LOAD_TIMEOUT]'))).toBe(true);
  });
});
