/**
 * Passages are the units the search engine ranks; pages are scored by their best passage. Ranking
 * passages rather than whole pages keeps one long page from winning on sheer length, and the best
 * passage is where the snippet comes from. A section from a heading is one passage; a section that
 * groups unheaded paragraphs yields one passage per paragraph (measured on the dev split: paragraph
 * passages beat 3-paragraph groups and whole pages at recall@1; see README.md).
 * Passages are derived, never stored: the same page always yields the same passages, each a slice of
 * the page's content (the disk index keeps only a passage's offsets, to read its text without the page).
 */
import type { SectionedPage } from './wiki-page.js';

const SUBSECTION_HEADING = /\n(?=#{1,6}\s)/;
const PARAGRAPH_BREAK = /\n\s*\n/g;
const LEADING_SPACE = /^\s*/;
const TRAILING_SPACE = /\s*$/;

export interface Passage {
  readonly pageIndex: number;
  readonly sectionIndex: number;
  readonly text: string;
  /** Where the text is in the page's content: content.slice(start, end) === text. */
  readonly start: number;
  readonly end: number;
}

/** [start, end) of `text` within `base` once trimmed as String.prototype.trim does; null when nothing is left. */
function trimmedSpan(text: string, base: number): [number, number] | null {
  const leading = LEADING_SPACE.exec(text)?.[0].length ?? 0;
  if (leading === text.length) return null;
  const trailing = TRAILING_SPACE.exec(text)?.[0].length ?? 0;
  return [base + leading, base + text.length - trailing];
}

export function passagesOf(page: SectionedPage, pageIndex: number): Passage[] {
  const passages: Passage[] = [];
  const push = (sectionIndex: number, start: number, end: number) =>
    passages.push({ pageIndex, sectionIndex, text: page.content.slice(start, end), start, end });
  page.sections.forEach((section, sectionIndex) => {
    if (section.origin === 'heading') {
      // Only the section's own text: its subsections are sections of their own, indexed separately.
      const ownText = section.text.split(SUBSECTION_HEADING)[0] ?? '';
      push(sectionIndex, section.start, section.start + ownText.length);
      return;
    }
    let from = 0;
    const addParagraph = (to: number) => {
      const span = trimmedSpan(section.text.slice(from, to), section.start + from);
      if (span !== null) push(sectionIndex, span[0], span[1]);
    };
    for (const breakMatch of section.text.matchAll(PARAGRAPH_BREAK)) {
      addParagraph(breakMatch.index);
      from = breakMatch.index + breakMatch[0].length;
    }
    addParagraph(section.text.length);
  });
  return passages;
}
