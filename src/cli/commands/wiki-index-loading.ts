/**
 * Builds the shared wiki index once per process from --corpus paths, or from every wiki/*\/pages.jsonl
 * under the data directory. No corpus configured is not an error: the server then offers no wiki
 * environment. A corpus that was named but cannot be read is an error.
 */
import { CorralError } from '../../core/errors.js';
import { corpusSourceFromPath, discoverCorpusSources, loadCorpora } from '../../tools/wiki/corpus-sources.js';
import { WikiIndex } from '../../tools/wiki/wiki-index.js';

export interface WikiLoadingOptions {
  corpusPaths?: readonly string[] | undefined;
  dataDir?: string | undefined;
  log: (line: string) => void;
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
  const startedAt = performance.now();
  const index = WikiIndex.build(await loadCorpora(sources));
  options.log(`wiki: indexed ${index.pageCount} pages from ${sources.length} corpus file(s) in ${Math.round(performance.now() - startedAt)} ms`);
  return index;
}
