/**
 * A three-page wiki index, so `search_pages` is a real corral tool whose own work is a few microseconds: the
 * throughput figures then measure the MCP and HTTP layers, not search ranking (`corral bench search` does that).
 */
import { WikiIndex } from '../../src/tools/wiki/wiki-index.js';

export function tinyWikiIndex(): WikiIndex {
  return WikiIndex.build([
    { id: 'nile', title: 'Nile', content: 'The Nile is a river in Africa that flows through Cairo.\n\n## History\n\nAncient Egypt grew along the Nile.' },
    { id: 'amazon', title: 'Amazon River', content: 'The Amazon is a river in South America.' },
    { id: 'python', title: 'Python (programming language)', content: 'Python is a programming language.' },
  ]);
}

/** The call every throughput figure makes. */
export const TRIVIAL_TOOL = { name: 'search_pages', arguments: { query: 'river Cairo' } } as const;
