/** A three-page WikiLookup for MCP wiring tests (ranking itself is tested with the wiki library). */
import type { WikiLookup } from '../../src/tools/wiki-tools/wiki-lookup.js';

const PAGES = [
  { id: 'nile', title: 'Nile', sections: { intro: 'The Nile is a river in Africa that flows through Cairo.', history: 'Ancient Egypt grew along the Nile.' } },
  { id: 'amazon', title: 'Amazon River', sections: { intro: 'The Amazon is a river in South America.' } },
  { id: 'python', title: 'Python (programming language)', sections: { intro: 'Python is a programming language.' } },
];

export function smallWikiLookup(): WikiLookup {
  return {
    search(query, { limit }) {
      const words = query.toLowerCase().split(/\W+/).filter(Boolean);
      return PAGES.map((page) => {
        const text = `${page.title} ${Object.values(page.sections).join(' ')}`.toLowerCase();
        const score = words.filter((word) => text.includes(word)).length;
        return { page_id: page.id, title: page.title, score, snippet: Object.values(page.sections)[0] ?? '' };
      })
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
    },
    viewSections(pageId) {
      const page = PAGES.find((candidate) => candidate.id === pageId);
      return page ? Object.keys(page.sections).map((name) => ({ section_id: `${page.id}:${name}`, section_name: name })) : null;
    },
    readSection(sectionId) {
      const [pageId, name] = sectionId.split(':');
      const page = PAGES.find((candidate) => candidate.id === pageId);
      return (page?.sections as Record<string, string> | undefined)?.[name ?? ''] ?? null;
    },
  };
}
