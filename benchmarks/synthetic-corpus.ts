/**
 * A large synthetic corpus made from real pages, to measure search at scale (100,000 pages) without
 * shipping such a corpus. Each synthetic page takes a made-up title from words of two real titles and
 * 1–3 real paragraphs drawn at random, some under a real section heading, so term statistics stay
 * those of real Wikipedia text. A seeded generator makes every run produce the same corpus.
 */
import type { SectionedPage, WikiPage } from '../src/wiki-search/wiki-page.js';

export interface SyntheticCorpusOptions {
  readonly pageCount: number;
  /** Seed of the pseudo-random generator (default 1). */
  readonly seed?: number;
  /**
   * Made-up words added to each page, drawn from a Zipf-like distribution over `longTailVocabulary` words (default
   * 0: none, the corpus the in-memory index was measured on). Real Wikipedia's vocabulary keeps growing with its
   * size (names, places, species); copies of a few thousand real paragraphs alone do not, so the scale benchmark
   * adds this long tail to give the index the term dictionary a real dump would.
   */
  readonly longTailWordsPerPage?: number;
  readonly longTailVocabulary?: number;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'nu', 're', 'sa', 'ti', 'vo', 'ze', 'dra', 'kel', 'mor', 'tan', 'vik', 'bel', 'gor'];

/** The n-th made-up word: its number written in syllables, so words are pronounceable and distinct. */
function madeUpWord(number: number): string {
  let word = '';
  for (let rest = number + SYLLABLES.length; rest > 0; rest = Math.floor(rest / SYLLABLES.length)) word += SYLLABLES[rest % SYLLABLES.length];
  return word;
}

/** A rank in [0, size) with probability falling as 1/rank (inverse transform of the continuous Zipf s = 1 law). */
function zipfRank(random: () => number, size: number): number {
  return Math.min(size - 1, Math.floor(Math.exp(random() * Math.log(size + 1)) - 1));
}

/** mulberry32: tiny, fast, good enough to shuffle text; not for anything secret. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** Paragraphs of every section, without heading lines. */
function collectParagraphs(pages: readonly SectionedPage[]): string[] {
  const paragraphs: string[] = [];
  for (const page of pages) {
    for (const section of page.sections) {
      for (const paragraph of section.text.split(/\n\s*\n/)) {
        const trimmed = paragraph.trim();
        if (trimmed !== '' && !trimmed.startsWith('#')) paragraphs.push(trimmed);
      }
    }
  }
  return paragraphs;
}

/** Synthetic pages (ids `synthetic_<n>`) one at a time, made from the paragraphs and titles of `pages`. */
export function* syntheticPages(pages: readonly SectionedPage[], options: SyntheticCorpusOptions): Generator<WikiPage> {
  const random = seededRandom(options.seed ?? 1);
  const paragraphs = collectParagraphs(pages);
  const titleWords = pages.map((page) => page.title.split(/\s+/).filter((word) => word !== '')).filter((words) => words.length > 0);
  const headings = pages.flatMap((page) => page.sections.filter((section) => section.origin === 'heading').map((section) => section.sectionName));
  for (let number = 1; number <= options.pageCount; number += 1) {
    const title = `${pick(titleWords, random).join(' ')} ${pick(pick(titleWords, random), random)} ${number}`;
    const parts = [`# ${title}`];
    const paragraphCount = 1 + Math.floor(random() * 3);
    for (let index = 0; index < paragraphCount; index += 1) {
      if (index > 0 && headings.length > 0 && random() < 0.5) parts.push(`## ${pick(headings, random)}`);
      parts.push(pick(paragraphs, random));
    }
    const tailWords = options.longTailWordsPerPage ?? 0;
    if (tailWords > 0) {
      const vocabulary = options.longTailVocabulary ?? 1_000_000;
      const words = Array.from({ length: tailWords }, () => madeUpWord(zipfRank(random, vocabulary)));
      parts.push(`${words.join(' ')}.`);
    }
    yield { id: `synthetic_${number}`, title, content: parts.join('\n\n') };
  }
}
