/**
 * An in-memory stand-in for the wiki MCP server, for tests of wiki-search agents: search_pages (BM25 over title
 * and text), view_sections (headings, or groups of 3 paragraphs on pages without headings, as the real server
 * splits them) and read_section (`<page_id>:full` reads the whole page). Snippets come from the best-matching
 * paragraph, as the real server's do. `textOnly` drops structuredContent,
 * to test that agents cope with servers that only send text.
 */
import type { ToolAccess, ToolInfo, ToolOutcome } from '../../../../../src/runner/contract/tool-access.js';
import { termsOf } from '../../../../../src/text/terms.js';

export interface FakePage {
  id: string;
  title: string;
  content: string;
}

interface FakeSection {
  id: string;
  name: string;
  text: string;
}

const STOP = new Set(
  'a an the of in on at to for from by with and or is was were are be been what which who whom whose when where why how did do does that this as it its into than then there their'.split(
    ' ',
  ),
);
const terms = (text: string) =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((word) => !STOP.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word));

function sectionsOf(page: FakePage): FakeSection[] {
  const lines = page.content.split('\n');
  const headings = lines.flatMap((line, index) => (/^#{2,6}\s+/.test(line) ? [index] : []));
  const slug = (name: string) =>
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '');
  if (headings.length === 0) {
    const paragraphs = lines
      .filter((line) => !/^#\s/.test(line))
      .join('\n')
      .split(/\n\s*\n/)
      .map((text) => text.trim())
      .filter(Boolean);
    const sections: FakeSection[] = [];
    for (let start = 0; start < paragraphs.length; start += 3) {
      const group = paragraphs.slice(start, start + 3);
      const name = group.length === 1 ? `Paragraph ${start + 1}` : `Paragraphs ${start + 1}–${start + group.length}`;
      sections.push({ id: `${page.id}:${slug(name)}`, name, text: group.join('\n\n') });
    }
    return sections;
  }
  const bounds = [0, ...headings, lines.length];
  return bounds.slice(0, -1).flatMap((start, index) => {
    const text = lines
      .slice(start, bounds[index + 1])
      .join('\n')
      .trim();
    const name = index === 0 ? 'Introduction' : lines[start]!.replace(/^#+\s+/, '');
    return text === '' || (index === 0 && /^#\s[^\n]*$/.test(text)) ? [] : [{ id: `${page.id}:${slug(name)}_${index}`, name, text }];
  });
}

/**
 * As the real server's snippet: from the paragraph holding the most distinct query terms (its analyser's, first
 * on ties). Title terms do not count: the real index adds the title to every passage.
 */
function bestParagraph(page: FakePage, query: string): string {
  const titleTerms = new Set(termsOf(page.title));
  const queryTerms = [...new Set(termsOf(query))].filter((term) => !titleTerms.has(term));
  const paragraphs = page.content
    .split(/\n\s*\n/)
    .map((text) => text.trim())
    .filter((text) => text !== '' && !text.startsWith('#'));
  let best = paragraphs[0] ?? '';
  let bestCount = -1;
  for (const paragraph of paragraphs) {
    const paragraphTerms = new Set(termsOf(paragraph));
    const count = queryTerms.filter((term) => paragraphTerms.has(term)).length;
    if (count > bestCount) [best, bestCount] = [paragraph, count];
  }
  return best.replace(/\s+/g, ' ');
}

export class FakeWikiTools implements ToolAccess {
  readonly tools: ToolInfo[] = ['search_pages', 'view_sections', 'read_section'].map((name) => ({ name, description: name, inputSchema: {} }));
  readonly calls: { name: string; args: Record<string, unknown> }[] = [];
  private readonly pages = new Map<string, { page: FakePage; sections: FakeSection[]; termCounts: Map<string, number>; length: number }>();
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(
    pages: readonly FakePage[],
    private readonly options: { textOnly?: boolean; maxResults?: number } = {},
  ) {
    let totalLength = 0;
    for (const page of pages) {
      const pageTerms = [...terms(page.title), ...terms(page.title), ...terms(page.title), ...terms(page.content)];
      const termCounts = new Map<string, number>();
      for (const term of pageTerms) termCounts.set(term, (termCounts.get(term) ?? 0) + 1);
      for (const term of termCounts.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      this.pages.set(page.id, { page, sections: sectionsOf(page), termCounts, length: pageTerms.length });
      totalLength += pageTerms.length;
    }
    this.averageLength = totalLength / Math.max(1, pages.length);
  }

  async call(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    this.calls.push({ name, args });
    const outcome = this.dispatch(name, args);
    return this.options.textOnly ? { text: outcome.text, isError: outcome.isError } : outcome;
  }

  private dispatch(name: string, args: Record<string, unknown>): ToolOutcome {
    if (name === 'search_pages') return this.search(String(args.query ?? ''));
    if (name === 'view_sections') {
      const entry = this.pages.get(String(args.page_id ?? ''));
      if (!entry) return { text: `Error: no page with id ${String(args.page_id)}`, isError: true };
      const sections = entry.sections.map((section) => ({ section_id: section.id, section_name: section.name }));
      return {
        text: sections.map((section) => `- ${section.section_name} (section_id: ${section.section_id})`).join('\n'),
        structuredContent: { sections },
        isError: false,
      };
    }
    if (name === 'read_section') {
      const sectionId = String(args.section_id ?? '');
      const entry = this.pages.get(sectionId.slice(0, sectionId.lastIndexOf(':')));
      const text = sectionId.endsWith(':full') ? entry?.page.content : entry?.sections.find((section) => section.id === sectionId)?.text;
      return text === undefined
        ? { text: `Error: no section ${sectionId}`, isError: true }
        : { text, structuredContent: { section_id: sectionId, content: text }, isError: false };
    }
    return { text: `Error: unknown tool ${name}`, isError: true };
  }

  private search(query: string): ToolOutcome {
    const queryTerms = [...new Set(terms(query))];
    const pageCount = this.pages.size;
    const scored = [...this.pages.values()].map((entry) => {
      let score = 0;
      for (const term of queryTerms) {
        const frequency = entry.termCounts.get(term) ?? 0;
        if (frequency === 0) continue;
        const documents = this.documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (pageCount - documents + 0.5) / (documents + 0.5));
        score += (idf * frequency * 2.2) / (frequency + 1.2 * (0.25 + (0.75 * entry.length) / this.averageLength));
      }
      return { entry, score };
    });
    const results = scored
      .filter((item) => item.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, this.options.maxResults ?? 5)
      .map(({ entry, score }) => ({
        page_id: entry.page.id,
        title: entry.page.title,
        score: Math.round(score * 1000) / 1000,
        snippet: bestParagraph(entry.page, query).slice(0, 200),
      }));
    const text =
      results.length === 0
        ? 'No pages found.'
        : results
            .map(
              (result, index) => `${index + 1}. ${result.title} (page_id: ${result.page_id}, score: ${result.score})\n   ${result.snippet.replace(/\n/g, ' ')}`,
            )
            .join('\n');
    return { text, structuredContent: { results }, isError: false };
  }
}
