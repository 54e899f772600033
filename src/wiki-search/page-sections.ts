/**
 * Split a page into the sections `view_sections` lists. Markdown headings of any level start a
 * section, which extends over its subsections. A page whose only heading is its leading `# Title` (SQuAD and HotpotQA pages) has no real
 * structure, so its paragraphs are grouped a few at a time into sections labelled as our own grouping
 * ("Paragraphs 1–3"), which keeps `read_section` answers short. Each section is a contiguous span of
 * the normalised page, so the index file stores offsets instead of a second copy of the text.
 */
import type { SectionedPage, SectionOrigin, WikiPage, WikiSection } from './wiki-page.js';
import { FULL_PAGE_SECTION } from './wiki-page.js';
import { looksTokenised, normaliseWikiText } from './wikitext-normalise.js';

export interface SectioningOptions {
  /** Paragraphs per group on pages without headings (default 3). */
  readonly paragraphsPerGroup?: number;
}

export const DEFAULT_PARAGRAPHS_PER_GROUP = 3;

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;
const BLANK_LINES = /\n[ \t]*\n\s*/g;

interface HeadingLine {
  readonly start: number;
  readonly level: number;
  readonly name: string;
}

type Span = readonly [start: number, end: number];

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

/** Narrow [start, end) so it neither starts nor ends with whitespace. */
function trimSpan(content: string, start: number, end: number): Span {
  while (start < end && /\s/.test(content[start] ?? '')) start += 1;
  while (end > start && /\s/.test(content[end - 1] ?? '')) end -= 1;
  return [start, end];
}

function findHeadings(content: string): HeadingLine[] {
  const headings: HeadingLine[] = [];
  let insideFence = false;
  let start = 0;
  for (const line of content.split('\n')) {
    if (FENCE.test(line)) insideFence = !insideFence;
    const match = insideFence ? null : HEADING.exec(line);
    if (match !== null && (match[2] ?? '') !== '') headings.push({ start, level: (match[1] ?? '#').length, name: match[2] ?? '' });
    start += line.length + 1;
  }
  return headings;
}

/** Non-empty paragraphs (blank-line separated) of content[from, to), as trimmed spans. */
function paragraphSpans(content: string, from: number, to: number): Span[] {
  const spans: Span[] = [];
  const region = content.slice(from, to);
  let paragraphStart = 0;
  const push = (end: number) => {
    const span = trimSpan(content, from + paragraphStart, from + end);
    if (span[1] > span[0]) spans.push(span);
  };
  for (const separator of region.matchAll(BLANK_LINES)) {
    push(separator.index);
    paragraphStart = separator.index + separator[0].length;
  }
  push(region.length);
  return spans;
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

function paragraphGroupSpans(paragraphs: readonly Span[], perGroup: number): { name: string; span: Span }[] {
  const groups: { name: string; span: Span }[] = [];
  for (let first = 0; first < paragraphs.length; first += perGroup) {
    const last = Math.min(first + perGroup, paragraphs.length) - 1;
    const name = first === last ? `Paragraph ${first + 1}` : `Paragraphs ${first + 1}–${last + 1}`;
    groups.push({ name, span: [paragraphs[first]?.[0] ?? 0, paragraphs[last]?.[1] ?? 0] });
  }
  return groups;
}

function headingSpans(content: string, headings: readonly HeadingLine[]): { name: string; origin: SectionOrigin; span: Span }[] {
  const sections: { name: string; origin: SectionOrigin; span: Span }[] = [];
  const preamble = trimSpan(content, 0, headings[0]?.start ?? content.length);
  if (preamble[1] > preamble[0]) sections.push({ name: 'Introduction', origin: 'paragraphs', span: preamble });
  headings.forEach((heading, index) => {
    // A section runs to the next heading of its own level or above, so reading "Career" also gives its
    // subsections instead of a bare heading line.
    const next = headings.slice(index + 1).find((later) => later.level <= heading.level);
    sections.push({ name: heading.name, origin: 'heading', span: trimSpan(content, heading.start, next?.start ?? content.length) });
  });
  return sections;
}

function endOfFirstLine(content: string): number {
  const newline = content.indexOf('\n');
  return newline < 0 ? content.length : newline + 1;
}

/** Normalise a page (WikiText artefacts) and split it into sections. */
export function sectionPage(page: WikiPage, options: SectioningOptions = {}): SectionedPage {
  const perGroup = Math.max(1, Math.floor(options.paragraphsPerGroup ?? DEFAULT_PARAGRAPHS_PER_GROUP));
  const tokenised = looksTokenised(page.content);
  const content = normaliseWikiText(page.content, tokenised).trim();
  const title = normaliseWikiText(page.title, tokenised).trim();
  const headings = findHeadings(content);
  const onlyTitleHeading = headings.length === 1 && headings[0]?.level === 1 && headings[0].start === 0;
  const spans =
    headings.length === 0 || onlyTitleHeading
      ? paragraphGroupSpans(paragraphSpans(content, onlyTitleHeading ? endOfFirstLine(content) : 0, content.length), perGroup).map((group) => ({
          ...group,
          origin: 'paragraphs' as const,
        }))
      : headingSpans(content, headings);
  const allocate = sectionIdAllocator(page.id);
  const sections: WikiSection[] = spans.map(({ name, origin, span: [start, end] }) => ({
    sectionId: allocate(name),
    sectionName: name,
    origin,
    start,
    end,
    text: content.slice(start, end),
  }));
  return { id: page.id, title, content, sections };
}
