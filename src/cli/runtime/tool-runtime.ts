/**
 * What `corral serve` and `corral mcp` share: the backend choice, the sandbox pool with one spec per
 * sandbox kind, the wiki index and the tool catalog. Built once per process; close() releases it.
 */
import type { CorralConfig } from '../../config/load-config.js';
import { type ToolCatalog, buildToolCatalog } from '../../mcp/tool-catalog.js';
import { type SandboxSource, type SandboxSpecsByKind, poolSandboxSource } from '../../mcp/sandbox-source.js';
import { SandboxPool } from '../../sandbox/pool/sandbox-pool.js';
import { loadProvider } from '../../sandbox/registry.js';
import type { SandboxSpecInput } from '../../sandbox/spec.js';
import { chooseBackend } from '../commands/backend-choice.js';
import { type LoadedWikiIndex, loadWikiIndex } from '../commands/wiki-index-loading.js';

export interface ToolRuntime {
  backend: 'docker' | 'process';
  pool: SandboxPool;
  specs: SandboxSpecsByKind;
  sandboxSource: SandboxSource;
  catalog: ToolCatalog;
  /** The shared wiki index (in memory or on disk), when one was loaded. */
  wiki: LoadedWikiIndex | undefined;
  close(): Promise<void>;
}

export interface ToolRuntimeOptions {
  /** Wiki corpora (pages.jsonl files or markdown folders); default: every wiki/*\/pages.jsonl under the data dir. */
  corpusPaths?: readonly string[];
  /** Warm sandboxes kept ready for the general spec (serve: config.sandbox.minIdle; stdio: 0). */
  minIdle: number;
  /** Build the wiki index (about 1.5 s for the 629 evaluation pages); stdio skips it for non-wiki environments. */
  loadWiki: boolean;
  log: (line: string) => void;
  /** Sandbox spec fields an environment sets for its general sandboxes (e.g. python-code's reuse: 'reset'). */
  specOverrides?: Readonly<Record<string, unknown>>;
}

export async function startToolRuntime(config: CorralConfig, options: ToolRuntimeOptions): Promise<ToolRuntime> {
  const backend = await chooseBackend(config, options.log);
  const specs: SandboxSpecsByKind = {
    general: {
      ...(backend === 'docker' ? { backend, image: config.sandbox.image, reuse: config.sandbox.reuse } : { backend, reuse: config.sandbox.reuse }),
      ...(options.specOverrides as SandboxSpecInput | undefined),
    },
    javascript: { backend: 'isolate' },
  };
  const dockerSocketPath = config.sandbox.dockerSocketPath;
  const pool = new SandboxPool(
    { minIdle: 0, max: config.sandbox.max, acquireTimeoutMs: config.sandbox.acquireTimeoutMs, idleTimeoutMs: config.sandbox.idleTimeoutMs },
    { resolveProvider: (name) => loadProvider(name, { ...(dockerSocketPath ? { dockerSocketPath } : {}), sandboxUid: config.sandbox.sandboxUid }) },
  );
  if (options.minIdle > 0) void pool.warm(specs.general, options.minIdle).catch((error: Error) => options.log(`warm-up failed: ${error.message}`));
  const wiki = options.loadWiki ? await loadWikiIndex({ corpusPaths: options.corpusPaths, dataDir: config.data.dataDir, log: options.log }) : undefined;
  return {
    backend,
    pool,
    specs,
    sandboxSource: poolSandboxSource(pool, specs),
    catalog: buildToolCatalog(wiki ? { wiki } : {}),
    wiki,
    close: () => pool.close(),
  };
}
