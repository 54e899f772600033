/**
 * A page as the disk index stores it: normalised title and content, and its sections as offsets into the content
 * (their text is a slice of it), so `view_sections` and `read_section` read one row and store no text twice.
 */
import type { SectionedPage } from '../wiki-page.js';

type StoredSection = [sectionId: string, sectionName: string, origin: 'h' | 'p', start: number, end: number];

export interface PageRow {
  readonly ordinal: number;
  readonly id: string;
  readonly title: string;
  readonly content: string;
  readonly sections: string;
}

export function encodeSections(page: SectionedPage): string {
  return JSON.stringify(
    page.sections.map((section): StoredSection => [
      section.sectionId,
      section.sectionName,
      section.origin === 'heading' ? 'h' : 'p',
      section.start,
      section.end,
    ]),
  );
}

/** The row back as the sectioned page the in-memory index holds. Throws a plain Error on a shape it did not write. */
export function pageFromRow(row: PageRow): SectionedPage {
  const stored = JSON.parse(row.sections) as unknown;
  if (!Array.isArray(stored)) throw new Error(`page ${row.id}: sections are not a list`);
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    sections: (stored as StoredSection[]).map(([sectionId, sectionName, origin, start, end]) => ({
      sectionId,
      sectionName,
      origin: origin === 'h' ? 'heading' : 'paragraphs',
      start,
      end,
      text: row.content.slice(start, end),
    })),
  };
}
