/**
 * The page store as it is saved: compact arrays, and sections as offsets into the page content
 * (their text is a slice of it, so saving it again would double the file).
 */
import type { SectionedPage, SectionOrigin } from './wiki-page.js';

type SavedSection = [sectionId: string, sectionName: string, origin: 'h' | 'p', start: number, end: number];
type SavedPage = [id: string, title: string, content: string, sections: SavedSection[]];

export function encodePages(pages: readonly SectionedPage[]): string {
  const saved: SavedPage[] = pages.map((page) => [
    page.id,
    page.title,
    page.content,
    page.sections.map((section): SavedSection => [
      section.sectionId,
      section.sectionName,
      section.origin === 'heading' ? 'h' : 'p',
      section.start,
      section.end,
    ]),
  ]);
  return JSON.stringify(saved);
}

/** Inverse of encodePages. Throws a plain Error on a shape it did not write (the caller wraps it). */
export function decodePages(json: string): SectionedPage[] {
  const saved = JSON.parse(json) as unknown;
  if (!Array.isArray(saved)) throw new Error('page store is not an array');
  return (saved as SavedPage[]).map(([id, title, content, sections]) => {
    if (typeof id !== 'string' || typeof title !== 'string' || typeof content !== 'string' || !Array.isArray(sections)) {
      throw new Error('page store entry has the wrong shape');
    }
    return {
      id,
      title,
      content,
      sections: sections.map(([sectionId, sectionName, origin, start, end]) => ({
        sectionId,
        sectionName,
        origin: (origin === 'h' ? 'heading' : 'paragraphs') satisfies SectionOrigin,
        start,
        end,
        text: content.slice(start, end),
      })),
    };
  });
}
