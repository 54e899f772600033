/**
 * Builds the shared wiki index once per process from --corpus paths, or from every wiki/*\/pages.jsonl
 * under the data directory. No corpus anywhere is not an error: the server then offers no wiki environment.
 */
import type { WikiLookup } from '../../tools/wiki-tools/wiki-lookup.js';

export interface WikiLoadingOptions {
  corpusPaths?: readonly string[] | undefined;
  dataDir?: string | undefined;
  log: (line: string) => void;
}

export async function loadWikiLookup(options: WikiLoadingOptions): Promise<WikiLookup | undefined> {
  if (!options.corpusPaths?.length && !options.dataDir) {
    options.log('wiki: no --corpus and no data directory (CORRAL_DATA_DIR): the wiki environment is off');
    return undefined;
  }
  // TODO(wiki): build the WikiIndex from src/tools/wiki once it lands.
  options.log('wiki: the wiki index library is not available yet: the wiki environment is off');
  return undefined;
}
