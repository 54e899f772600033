/** A real WikiIndex over three small pages, for MCP wiring tests (ranking quality is the wiki library's to test). */
import { WikiIndex } from '../wiki-search/wiki-index.js';

export function smallWikiIndex(): WikiIndex {
  return WikiIndex.build([
    { id: 'nile', title: 'Nile', content: 'The Nile is a river in Africa that flows through Cairo.\n\n## History\n\nAncient Egypt grew along the Nile.' },
    { id: 'amazon', title: 'Amazon River', content: 'The Amazon is a river in South America.' },
    { id: 'python', title: 'Python (programming language)', content: 'Python is a programming language.' },
  ]);
}
