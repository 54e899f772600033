/**
 * The contract types of the wiki search library. A page is what a corpus loader yields; a section is
 * what `view_sections` lists and `read_section` returns. Everything here is plain data so it can be
 * serialised into the index file and shared by every session without copying.
 */

/** One page as loaded from a corpus, before normalisation. `content` is markdown. */
export interface WikiPage {
  readonly id: string;
  readonly title: string;
  readonly content: string;
}

/** How a section came to exist: from a markdown heading, or our own grouping of unheaded paragraphs. */
export type SectionOrigin = 'heading' | 'paragraphs';

export interface WikiSection {
  /** `<page_id>:<slug>`; stable across rebuilds of the same page text. */
  readonly sectionId: string;
  readonly sectionName: string;
  readonly origin: SectionOrigin;
  /** Where the section lies in its page's normalised content: `content.slice(start, end)` is `text`. */
  readonly start: number;
  readonly end: number;
  /** Normalised section text including its heading line (what `read_section` returns). */
  readonly text: string;
}

/** A page after normalisation and sectioning: what the index keeps in its page store. */
export interface SectionedPage {
  readonly id: string;
  readonly title: string;
  /** Normalised full page text (what `read_section('<id>:full')` returns). */
  readonly content: string;
  readonly sections: readonly WikiSection[];
}

/** One `search_pages` hit, in the prime-environments WikiSearch shape. */
export interface PageHit {
  readonly page_id: string;
  readonly title: string;
  /** Relevance score; only the order within one result list is meaningful. */
  readonly score: number;
  /** A short extract (about 200 characters) of the best-matching passage. */
  readonly snippet: string;
}

/** One `view_sections` entry. */
export interface SectionListing {
  readonly section_id: string;
  readonly section_name: string;
}

/** Section-id suffix that `read_section` resolves to the whole page. */
export const FULL_PAGE_SECTION = 'full';
