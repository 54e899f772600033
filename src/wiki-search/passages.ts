/**
 * Passages are the units the search engine ranks; pages are scored by their best passage. Ranking
 * passages rather than whole pages keeps one long page from winning on sheer length, and the best
 * passage is where the snippet comes from. A section from a heading is one passage; a section that
 * groups unheaded paragraphs yields one passage per paragraph (measured on the dev split: paragraph
 * passages beat 3-paragraph groups and whole pages at recall@1; see README.md).
 * Passages are derived, never stored: the same page always yields the same passages.
 */
import type { SectionedPage } from './wiki-page.js';

const SUBSECTION_HEADING = /\n(?=#{1,6}\s)/;

export interface Passage {
  readonly pageIndex: number;
  readonly sectionIndex: number;
  readonly text: string;
}

export function passagesOf(page: SectionedPage, pageIndex: number): Passage[] {
  const passages: Passage[] = [];
  page.sections.forEach((section, sectionIndex) => {
    if (section.origin === 'heading') {
      // Only the section's own text: its subsections are sections of their own, indexed separately.
      const ownText = section.text.split(SUBSECTION_HEADING)[0] ?? '';
      passages.push({ pageIndex, sectionIndex, text: ownText });
      return;
    }
    for (const paragraph of section.text.split(/\n\s*\n/)) {
      const text = paragraph.trim();
      if (text !== '') passages.push({ pageIndex, sectionIndex, text });
    }
  });
  return passages;
}
