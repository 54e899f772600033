/**
 * Load-or-build: what a server calls at start. The saved file is used when its header matches the
 * corpus files' fingerprint and the requested settings; otherwise (missing, stale or damaged) the
 * index is rebuilt from the corpora and the file rewritten, so a restart never serves a stale index.
 */
import { CorralError } from '../core/errors.js';
import { fingerprintCorpusSources } from './corpus-fingerprint.js';
import { loadCorpora, type CorpusSource } from './corpus-sources.js';
import { WikiIndex, type WikiIndexOptions } from './wiki-index.js';

export interface OpenWikiIndexOptions extends Omit<WikiIndexOptions, 'corpusFingerprint'> {
  readonly sources: readonly CorpusSource[];
  /** Where the index is saved between runs; without it the index is always built and not saved. */
  readonly indexPath?: string;
  readonly log?: (line: string) => void;
}

export interface OpenedWikiIndex {
  readonly index: WikiIndex;
  readonly source: 'loaded' | 'built';
  readonly durationMs: number;
}

export async function openWikiIndex(options: OpenWikiIndexOptions): Promise<OpenedWikiIndex> {
  const startedAt = performance.now();
  const log = options.log ?? (() => undefined);
  const corpusFingerprint = await fingerprintCorpusSources(options.sources);
  const settings: WikiIndexOptions = { paragraphsPerGroup: options.paragraphsPerGroup, titleWeight: options.titleWeight, corpusFingerprint };
  if (options.indexPath !== undefined) {
    try {
      const loaded = WikiIndex.load(options.indexPath, settings);
      if (loaded !== null) return { index: loaded, source: 'loaded', durationMs: performance.now() - startedAt };
      log(`wiki: index file ${options.indexPath} is missing or stale; rebuilding`);
    } catch (error) {
      if (!CorralError.hasCode(error, 'WIKI_ERR_INDEX_FILE_INVALID')) throw error;
      log(`wiki: ${error.message}; rebuilding`);
    }
  }
  const index = WikiIndex.build(await loadCorpora(options.sources), settings);
  if (options.indexPath !== undefined) index.save(options.indexPath);
  return { index, source: 'built', durationMs: performance.now() - startedAt };
}
