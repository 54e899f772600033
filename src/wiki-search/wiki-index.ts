/**
 * One searchable index per corpus set, shared by every session: plain synchronous methods over data
 * that never changes after build, so concurrent tool calls need no coordination.
 * Ranking: BM25 (MiniSearch) over passages (see passages.ts), page score = best passage score.
 */
import { CorralError } from '../core/errors.js';
import { fingerprintPages } from './corpus-fingerprint.js';
import { INDEX_FILE_FORMAT, INDEX_FILE_FORMAT_VERSION, readIndexFile, readIndexFileHeader, writeIndexFile, type IndexSettings } from './index-file.js';
import { DEFAULT_PARAGRAPHS_PER_GROUP, sectionPage } from './page-sections.js';
import { PageStore } from './page-store.js';
import { decodePages, encodePages } from './page-store-json.js';
import { addPassage, createPassageEngine, loadPassageEngine, scorePassages, type PassageEngine } from './passage-engine.js';
import { ANALYSER_VERSION, termsOf } from '../text/terms.js';
import { snippetMaker } from './snippet.js';
import type { PageHit, SectionListing, WikiPage } from './wiki-page.js';

export interface WikiIndexOptions {
  /** Paragraphs per listed section on pages without headings (default 3). */
  readonly paragraphsPerGroup?: number;
  /** How many times a title term counts in each of its page's passages (BM25F weight, default 2). */
  readonly titleWeight?: number;
  /** Identifies the corpus for stale-file checks; default: a hash of the pages. */
  readonly corpusFingerprint?: string;
}

export interface WikiSearchOptions {
  /** Most pages to return (default 10). */
  readonly limit?: number;
}

/** The settings the caller expects; when `corpusFingerprint` is given, a file of another corpus is stale. */
export type WikiIndexLoadOptions = WikiIndexOptions;

export const DEFAULT_TITLE_WEIGHT = 2;
export const DEFAULT_SEARCH_LIMIT = 10;

function settingsOf(options: WikiIndexOptions): IndexSettings {
  return {
    analyserVersion: ANALYSER_VERSION,
    paragraphsPerGroup: options.paragraphsPerGroup ?? DEFAULT_PARAGRAPHS_PER_GROUP,
    titleWeight: options.titleWeight ?? DEFAULT_TITLE_WEIGHT,
  };
}

const sameSettings = (left: IndexSettings, right: IndexSettings) =>
  left.analyserVersion === right.analyserVersion && left.paragraphsPerGroup === right.paragraphsPerGroup && left.titleWeight === right.titleWeight;

export class WikiIndex {
  private constructor(
    private readonly store: PageStore,
    private readonly engine: PassageEngine,
    readonly settings: IndexSettings,
    readonly corpusFingerprint: string,
  ) {}

  /** Normalise, section and index `pages`. Ids must be unique (the corpus loaders guarantee it). */
  static build(pages: readonly WikiPage[], options: WikiIndexOptions = {}): WikiIndex {
    const settings = settingsOf(options);
    const store = new PageStore(pages.map((page) => sectionPage(page, settings)));
    const engine = createPassageEngine();
    const titleTerms = store.pages.map((page) => termsOf(page.title));
    store.passages.forEach((passage, passageNumber) => {
      addPassage(engine, passageNumber, titleTerms[passage.pageIndex] ?? [], settings.titleWeight, termsOf(passage.text));
    });
    return new WikiIndex(store, engine, settings, options.corpusFingerprint ?? fingerprintPages(pages));
  }

  get pageCount(): number {
    return this.store.pages.length;
  }

  /** Pages ranked by their best passage; an empty list when nothing matches (or only stop words were given). */
  search(query: string, options: WikiSearchOptions = {}): PageHit[] {
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT));
    const queryTerms = [...new Set(termsOf(query))];
    const best = new Map<number, { score: number; passageNumber: number }>();
    for (const { passageNumber, score } of scorePassages(this.engine, queryTerms)) {
      const pageIndex = this.store.passages[passageNumber]?.pageIndex;
      if (pageIndex === undefined) continue;
      const current = best.get(pageIndex);
      if (current === undefined || score > current.score) best.set(pageIndex, { score, passageNumber });
    }
    const ranked = [...best.entries()].sort(([leftPage, left], [rightPage, right]) => right.score - left.score || leftPage - rightPage).slice(0, limit);
    const snippetOf = snippetMaker(queryTerms);
    return ranked.map(([pageIndex, { score, passageNumber }]) => {
      const page = this.store.pages[pageIndex];
      const passage = this.store.passages[passageNumber];
      return {
        page_id: page?.id ?? '',
        title: page?.title ?? '',
        score: Number(score.toFixed(4)),
        snippet: passage === undefined ? '' : snippetOf(passage.text),
      };
    });
  }

  /** Sections of a page in order, or null for an unknown page id. */
  viewSections(pageId: string): SectionListing[] | null {
    const page = this.store.page(pageId);
    return page === undefined ? null : page.sections.map((section) => ({ section_id: section.sectionId, section_name: section.sectionName }));
  }

  /** Section text; `<page_id>:full` is the whole page; null for an unknown id. */
  readSection(sectionId: string): string | null {
    return this.store.sectionText(sectionId);
  }

  /** Write the index to `path` (atomically), so a restart can `load` instead of rebuilding. */
  save(path: string): void {
    const header = {
      format: INDEX_FILE_FORMAT,
      formatVersion: INDEX_FILE_FORMAT_VERSION,
      corpusFingerprint: this.corpusFingerprint,
      settings: this.settings,
      pageCount: this.pageCount,
    } as const;
    writeIndexFile(path, header, encodePages(this.store.pages), JSON.stringify(this.engine));
  }

  /**
   * Read an index saved by `save`. Returns null when there is no file, or when it is stale: another
   * format version, other settings than `options` ask for, or (if given) another corpus fingerprint.
   * Throws WIKI_ERR_INDEX_FILE_INVALID when the file is damaged.
   */
  static load(path: string, options: WikiIndexLoadOptions = {}): WikiIndex | null {
    const header = readIndexFileHeader(path);
    if (header === null || header.formatVersion !== INDEX_FILE_FORMAT_VERSION || !sameSettings(header.settings, settingsOf(options))) return null;
    if (options.corpusFingerprint !== undefined && header.corpusFingerprint !== options.corpusFingerprint) return null;
    const contents = readIndexFile(path);
    try {
      const store = new PageStore(decodePages(contents.pagesJson));
      const engine = loadPassageEngine(contents.engineJson);
      if (engine.documentCount !== store.passages.length) throw new Error(`${engine.documentCount} indexed passages for ${store.passages.length} stored`);
      return new WikiIndex(store, engine, contents.header.settings, contents.header.corpusFingerprint);
    } catch (error) {
      throw new CorralError('WIKI_ERR_INDEX_FILE_INVALID', `wiki index file ${path}: ${(error as Error).message}`, { cause: error, details: { path } });
    }
  }
}
