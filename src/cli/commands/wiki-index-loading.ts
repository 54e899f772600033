/**
 * Opens the shared wiki index once per process, choosing the backend:
 * - a disk index (`corral wiki index <corpus> --out <dir>`) named by --corpus <dir> is opened read-only: every
 *   process (serve, workers) shares the one file and none loads it into its heap;
 * - corpora larger than DISK_INDEX_THRESHOLD_BYTES are indexed on disk in the cache directory (once, resumable,
 *   rebuilt when the corpus files change) and opened the same way: in memory they would cost about six times their
 *   size in heap in every process and a long build at every start;
 * - smaller corpora (the 629 evaluation pages) are indexed in memory: that needs no native module (better-sqlite3
 *   is optional) and is fastest. If better-sqlite3 is missing, large corpora fall back to memory with a warning.
 * No corpus configured is not an error: the server then offers no wiki environment. A corpus that was named but
 * cannot be read is an error.
 */
import { CorralError } from '../../core/errors.js';
import { mkdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stableHash } from '../../core/stable-hash.js';
import type { WikiLookup } from '../../tools/wiki/wiki-lookup.js';
import { type CorpusSource, corpusSourceFromPath, discoverCorpusSources } from '../../wiki-search/corpus-sources.js';
import { listMarkdownFiles } from '../../wiki-search/markdown-folder-loader.js';
import { openWikiIndex } from '../../wiki-search/open-wiki-index.js';

export interface WikiLoadingOptions {
  corpusPaths?: readonly string[] | undefined;
  dataDir?: string | undefined;
  log: (line: string) => void;
  /** Where built indexes are kept so a restart reuses them (default: the OS temp dir). */
  cacheDir?: string;
  /** Corpora above this many bytes are indexed on disk (default DISK_INDEX_THRESHOLD_BYTES). */
  diskThresholdBytes?: number;
}

export type LoadedWikiIndex = WikiLookup & { readonly pageCount: number };

/**
 * 8 MiB of corpus is about 5,000 Wikipedia-sized pages; the evaluation corpora (3.6 MB together) stay in memory.
 * Above it memory loses on speed too: at 40,000 synthetic pages (62 MB) the in-memory index's median query took 52 ms
 * and a 1,000-character query 0.58 s, where the disk index answers a million pages in ~4 ms; at 5,000 pages 4.7 ms.
 */
export const DISK_INDEX_THRESHOLD_BYTES = 8 * 2 ** 20;

async function corpusBytes(sources: readonly CorpusSource[]): Promise<number> {
  let total = 0;
  for (const source of sources) {
    const files = source.kind === 'pages-jsonl' ? [source.path] : await listMarkdownFiles(source.path);
    for (const file of files) total += (await stat(file)).size;
  }
  return total;
}

async function openPrebuilt(paths: readonly string[], log: (line: string) => void): Promise<LoadedWikiIndex> {
  if (paths.length !== 1) {
    throw new CorralError(
      'WIKI_ERR_CORPUS_INVALID',
      `a disk wiki index must be the only --corpus (got ${paths.join(', ')}); index several corpora into one with \`corral wiki index\``,
      {
        details: { paths },
      },
    );
  }
  const { DiskWikiIndex } = await import('../../wiki-search/disk/disk-wiki-index.js');
  const startedAt = performance.now();
  const index = await DiskWikiIndex.open(paths[0] ?? '');
  log(`wiki: disk index of ${index.pageCount} pages opened from ${index.path} in ${Math.round(performance.now() - startedAt)} ms`);
  return index;
}

/** Builds (or resumes, or reuses) a disk index of `sources` under the cache, then opens it; null without better-sqlite3. */
async function openCachedDiskIndex(sources: readonly CorpusSource[], cacheRoot: string, log: (line: string) => void): Promise<LoadedWikiIndex | null> {
  const { DiskWikiIndex } = await import('../../wiki-search/disk/disk-wiki-index.js');
  const { buildDiskIndex } = await import('../../wiki-search/disk/disk-index-builder.js');
  const { sourceIdentity } = await import('../../wiki-search/disk/corpus-page-stream.js');
  const directory = join(cacheRoot, `wiki-disk-${stableHash(sources.map((source) => [source.path, source.idPrefix ?? null]))}`);
  const identity = await sourceIdentity(sources);
  try {
    const cached = await DiskWikiIndex.open(directory).catch((error: unknown) => {
      if (CorralError.hasCode(error, 'WIKI_ERR_SQLITE_UNAVAILABLE')) throw error;
      return null;
    });
    if (cached !== null && cached.sourceIdentity === identity) return cached;
    cached?.close();
    // Another process may be building this very index: buildDiskIndex waits for it, then reuses what it built.
    log(`wiki: large corpus; its disk index in ${directory} is missing or stale: building it (or waiting for the process building it)`);
    await buildDiskIndex({ sources, outDir: directory, log, reuseFinished: true });
    return await DiskWikiIndex.open(directory);
  } catch (error) {
    if (!CorralError.hasCode(error, 'WIKI_ERR_SQLITE_UNAVAILABLE')) throw error;
    log(`wiki: ${error.message}; indexing the large corpus in memory instead`);
    return null;
  }
}

export async function loadWikiIndex(options: WikiLoadingOptions): Promise<LoadedWikiIndex | undefined> {
  let sources;
  if (options.corpusPaths?.length) {
    const { isDiskIndexPath } = await import('../../wiki-search/disk/disk-index-location.js');
    if (options.corpusPaths.some((path) => isDiskIndexPath(path))) return openPrebuilt(options.corpusPaths, options.log);
    sources = await Promise.all(options.corpusPaths.map((path) => corpusSourceFromPath(path)));
  } else if (options.dataDir) {
    try {
      sources = await discoverCorpusSources(options.dataDir);
    } catch (error) {
      if (!CorralError.hasCode(error, 'WIKI_ERR_CORPUS_NOT_FOUND')) throw error;
      options.log(`wiki: ${error.message}; the wiki environment is off`);
      return undefined;
    }
  } else {
    options.log('wiki: no --corpus and no data directory (CORRAL_DATA_DIR); the wiki environment is off');
    return undefined;
  }
  const cacheRoot = options.cacheDir ?? join(tmpdir(), 'corral-cache');
  if ((await corpusBytes(sources)) > (options.diskThresholdBytes ?? DISK_INDEX_THRESHOLD_BYTES)) {
    const disk = await openCachedDiskIndex(sources, cacheRoot, options.log);
    if (disk !== null) return disk;
  }
  // Saved beside other caches, keyed by the corpus paths; the file's own fingerprint check rebuilds it when stale.
  const indexPath = join(cacheRoot, `wiki-index-${stableHash(sources.map((source) => source.path))}.json`);
  mkdirSync(dirname(indexPath), { recursive: true });
  const opened = await openWikiIndex({ sources, indexPath, log: options.log });
  options.log(`wiki: ${opened.source} index of ${opened.index.pageCount} pages from ${sources.length} corpus file(s) in ${Math.round(opened.durationMs)} ms`);
  return opened.index;
}
