/**
 * Builds the shared wiki index once per process from --corpus paths, or from every wiki/*\/pages.jsonl
 * under the data directory. No corpus configured is not an error: the server then offers no wiki
 * environment. A corpus that was named but cannot be read is an error.
 */
import { CorralError } from '../../core/errors.js';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stableHash } from '../../core/stable-hash.js';
import { corpusSourceFromPath, discoverCorpusSources } from '../../wiki-search/corpus-sources.js';
import { openWikiIndex } from '../../wiki-search/open-wiki-index.js';
import { WikiIndex } from '../../wiki-search/wiki-index.js';

export interface WikiLoadingOptions {
  corpusPaths?: readonly string[] | undefined;
  dataDir?: string | undefined;
  log: (line: string) => void;
  /** Where the built index is saved so a restart loads it instead of rebuilding (default: the OS temp dir). */
  cacheDir?: string;
}

export async function loadWikiIndex(options: WikiLoadingOptions): Promise<WikiIndex | undefined> {
  let sources;
  if (options.corpusPaths?.length) {
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
  // Saved beside other caches, keyed by the corpus paths; the file's own fingerprint check rebuilds it when stale.
  const indexPath = join(options.cacheDir ?? join(tmpdir(), 'corral-cache'), `wiki-index-${stableHash(sources.map((source) => source.path))}.json`);
  mkdirSync(dirname(indexPath), { recursive: true });
  const opened = await openWikiIndex({ sources, indexPath, log: options.log });
  options.log(`wiki: ${opened.source} index of ${opened.index.pageCount} pages from ${sources.length} corpus file(s) in ${Math.round(opened.durationMs)} ms`);
  return opened.index;
}
