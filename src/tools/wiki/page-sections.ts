/**
 * Split a page into the sections `view_sections` lists. Markdown headings of any level start a
 * section. A page whose only heading is its leading `# Title` (SQuAD and HotpotQA pages) has no real
 * structure, so its paragraphs are grouped a few at a time into sections labelled as our own grouping
 * ("Paragraphs 1–3"), which keeps `read_section` answers short and gives search a passage to point at.
 */
import type { SectionedPage, WikiPage, WikiSection } from './wiki-page.js';
import { FULL_PAGE_SECTION } from './wiki-page.js';
import { looksTokenised, normaliseWikiText } from './wikitext-normalise.js';

export interface SectioningOptions {
  /** Paragraphs per group on pages without headings (default 3). */
  readonly paragraphsPerGroup?: number;
}

export const DEFAULT_PARAGRAPHS_PER_GROUP = 3;

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;

interface HeadingLine {
  readonly lineIndex: number;
  readonly level: number;
  readonly name: string;
}

/** Lower-case, non-alphanumerics collapsed to `_`, like the page ids of the corpora. */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return slug === '' ? 'section' : slug;
}

function findHeadings(lines: readonly string[]): HeadingLine[] {
  const headings: HeadingLine[] = [];
  let insideFence = false;
  lines.forEach((line, lineIndex) => {
    if (FENCE.test(line)) insideFence = !insideFence;
    if (insideFence) return;
    const match = HEADING.exec(line);
    if (match !== null && (match[2] ?? '') !== '') headings.push({ lineIndex, level: (match[1] ?? '#').length, name: match[2] ?? '' });
  });
  return headings;
}

/** Hands out `<page_id>:<slug>` ids, suffixing repeats (`_2`) and never reusing `full`. */
function sectionIdAllocator(pageId: string): (name: string) => string {
  const taken = new Set<string>([FULL_PAGE_SECTION]);
  return (name) => {
    const base = slugify(name);
    let slug = base;
    for (let suffix = 2; taken.has(slug); suffix += 1) slug = `${base}_${suffix}`;
    taken.add(slug);
    return `${pageId}:${slug}`;
  };
}

function paragraphsOf(lines: readonly string[]): string[] {
  return lines
    .join('\n')
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
}

function paragraphGroupSections(pageId: string, paragraphs: readonly string[], perGroup: number): WikiSection[] {
  const allocate = sectionIdAllocator(pageId);
  const sections: WikiSection[] = [];
  for (let start = 0; start < paragraphs.length; start += perGroup) {
    const group = paragraphs.slice(start, start + perGroup);
    const first = start + 1;
    const last = start + group.length;
    const sectionName = first === last ? `Paragraph ${first}` : `Paragraphs ${first}–${last}`;
    sections.push({ sectionId: allocate(sectionName), sectionName, origin: 'paragraphs', text: group.join('\n\n') });
  }
  return sections;
}

function headingSections(pageId: string, lines: readonly string[], headings: readonly HeadingLine[]): WikiSection[] {
  const allocate = sectionIdAllocator(pageId);
  const sections: WikiSection[] = [];
  const firstHeadingLine = headings[0]?.lineIndex ?? lines.length;
  const preamble = lines.slice(0, firstHeadingLine).join('\n').trim();
  if (preamble !== '') sections.push({ sectionId: allocate('Introduction'), sectionName: 'Introduction', origin: 'paragraphs', text: preamble });
  headings.forEach((heading, index) => {
    const end = headings[index + 1]?.lineIndex ?? lines.length;
    const text = lines.slice(heading.lineIndex, end).join('\n').trim();
    sections.push({ sectionId: allocate(heading.name), sectionName: heading.name, origin: 'heading', text });
  });
  return sections;
}

/** Normalise a page (WikiText artefacts) and split it into sections. */
export function sectionPage(page: WikiPage, options: SectioningOptions = {}): SectionedPage {
  const perGroup = Math.max(1, options.paragraphsPerGroup ?? DEFAULT_PARAGRAPHS_PER_GROUP);
  const tokenised = looksTokenised(page.content);
  const content = normaliseWikiText(page.content, tokenised).trim();
  const title = normaliseWikiText(page.title, tokenised).trim();
  const lines = content.split('\n');
  const headings = findHeadings(lines);
  const firstTextLine = lines.findIndex((line) => line.trim() !== '');
  const onlyTitleHeading = headings.length === 1 && headings[0]?.level === 1 && headings[0].lineIndex === firstTextLine;
  if (headings.length === 0 || onlyTitleHeading) {
    const body = onlyTitleHeading ? lines.slice(firstTextLine + 1) : lines;
    return { id: page.id, title, content, sections: paragraphGroupSections(page.id, paragraphsOf(body), perGroup) };
  }
  return { id: page.id, title, content, sections: headingSections(page.id, lines, headings) };
}
