/**
 * The pages an index serves, with the lookups `view_sections` and `read_section` need and the
 * passage list whose positions are the search engine's document ids. Built once; read-only after.
 * Throws WIKI_ERR_DUPLICATE_PAGE_ID when two pages share an id (a lookup could reach only one).
 */
import { CorralError } from '../core/errors.js';
import { passagesOf, type Passage } from './passages.js';
import type { SectionedPage, WikiSection } from './wiki-page.js';
import { FULL_PAGE_SECTION } from './wiki-page.js';

const FULL_SUFFIX = `:${FULL_PAGE_SECTION}`;

export class PageStore {
  readonly pages: readonly SectionedPage[];
  /** Position = the passage's document id in the search engine. */
  readonly passages: readonly Passage[];
  private readonly pageIndexById = new Map<string, number>();
  private readonly sectionById = new Map<string, WikiSection>();

  constructor(pages: readonly SectionedPage[]) {
    this.pages = pages;
    const passages: Passage[] = [];
    pages.forEach((page, pageIndex) => {
      if (this.pageIndexById.has(page.id)) {
        throw new CorralError('WIKI_ERR_DUPLICATE_PAGE_ID', `page id "${page.id}" occurs twice in the pages given to the index`, {
          details: { pageId: page.id },
        });
      }
      this.pageIndexById.set(page.id, pageIndex);
      for (const section of page.sections) this.sectionById.set(section.sectionId, section);
      for (const passage of passagesOf(page, pageIndex)) passages.push(passage);
    });
    this.passages = passages;
  }

  page(pageId: string): SectionedPage | undefined {
    const index = this.pageIndexById.get(pageId);
    return index === undefined ? undefined : this.pages[index];
  }

  /** Section text, the whole page for `<page_id>:full`, or null for an unknown id. */
  sectionText(sectionId: string): string | null {
    const section = this.sectionById.get(sectionId);
    if (section !== undefined) return section.text;
    if (!sectionId.endsWith(FULL_SUFFIX)) return null;
    return this.page(sectionId.slice(0, -FULL_SUFFIX.length))?.content ?? null;
  }
}
