/**
 * The wiki index on disk: the same three operations as WikiIndex (search, viewSections, readSection) over a file
 * written by buildDiskIndex, opened read-only, so any number of processes (serve, workers) share one file through
 * the OS page cache and none loads it into its heap (beyond each page's first passage and a bounded cache of recent
 * terms' postings). Search: the rarest query terms pick candidate passages from their postings (query-plan.ts,
 * posting-candidates.ts), every candidate's score is the in-memory engine's BM25 with all terms (rescored from its
 * row only when a term was left out), a page scores its best passage, and only the hits' titles and passage texts
 * are read, for the results and snippets.
 */
import { existsSync } from 'node:fs';
import { CorralError } from '../../core/errors.js';
import { ANALYSER_VERSION, termsOf } from '../../text/terms.js';
import type { IndexSettings } from '../index-file.js';
import { snippetMaker } from '../snippet.js';
import { FULL_PAGE_SECTION, type PageHit, type SectionListing, type SectionedPage } from '../wiki-page.js';
import { type CorpusStatistics, type QueryTerm, scorePassageText } from './bm25-scorer.js';
import { diskIndexPath } from './disk-index-location.js';
import { DISK_INDEX_FORMAT, DISK_INDEX_FORMAT_VERSION, META_KEYS, PARTIAL_SUFFIX } from './disk-index-layout.js';
import { type SqliteDatabase, loadBetterSqlite3 } from './load-better-sqlite3.js';
import { type BuildBatches, loadBuildBatches } from './build-batches.js';
import { PostingCandidates } from './posting-candidates.js';
import { type PageRow, pageFromRow } from './page-row.js';
import { POSTINGS_BUDGET, planQuery } from './query-plan.js';

/** Candidate passages scored exactly per query (more when a call asks for more pages). */
const CANDIDATE_PASSAGES = 100;
const CANDIDATES_PER_RESULT = 10;
/** SQLite's page cache per connection; the OS page cache holds the rest of the file, shared by every process. */
const PAGE_CACHE_KIB = 16 * 1024;
const DEFAULT_SEARCH_LIMIT = 10;

export interface DiskWikiIndexOptions {
  /** Postings scored per query to pick candidates (default POSTINGS_BUDGET, see query-plan.ts); larger is slower and closer to exhaustive. */
  readonly postingsBudget?: number;
  /** Weighted postings kept across queries (default TERM_WEIGHT_CACHE_POSTINGS, ~48 MiB; 0 keeps none), see term-weight-cache.ts. */
  readonly termCachePostings?: number;
}

interface PassageRow {
  readonly number: number;
  readonly page: number;
  readonly length: number;
  readonly terms: string;
}

interface HitRow {
  readonly number: number;
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

function invalid(path: string, reason: string, cause?: unknown): CorralError {
  return new CorralError('WIKI_ERR_INDEX_FILE_INVALID', `wiki index file ${path}: ${reason}; rebuild it with \`corral wiki index <corpus> --out <dir>\``, {
    cause,
    details: { path },
  });
}

export class DiskWikiIndex {
  private readonly documentFrequencies;
  private readonly passageRows;
  private readonly passagePages;
  private readonly hitRows;
  private readonly pageById;
  private readonly postingCandidates;

  private constructor(
    private readonly database: SqliteDatabase,
    readonly path: string,
    readonly settings: IndexSettings,
    readonly pageCount: number,
    private readonly statistics: CorpusStatistics,
    /** The corpus files the index was built from (paths, sizes, times), for callers that keep it up to date. */
    readonly sourceIdentity: string,
    private readonly postingsBudget: number,
    batches: BuildBatches,
    termCachePostings: number | undefined,
  ) {
    this.passagePages = batches.passagePages;
    this.postingCandidates = new PostingCandidates(database, batches.starts, statistics, termCachePostings);
    this.documentFrequencies = database.prepare('SELECT term, df FROM term_df WHERE term IN (SELECT value FROM json_each(?))');
    // The candidates' rows in one statement: a hundred point lookups as one call into SQLite, not a hundred.
    this.passageRows = database.prepare('SELECT number, page, length, terms FROM passage WHERE number IN (SELECT value FROM json_each(?))');
    // The hits' pages and passage texts in one statement; substr reads the passage's characters only: a long page's
    // text never becomes a JavaScript string.
    this.hitRows = database.prepare(
      'SELECT passage.number AS number, page.id AS id, page.title AS title, substr(page.content, passage.text_start, passage.text_chars) AS text ' +
        'FROM passage JOIN page ON page.ordinal = passage.page WHERE passage.number IN (SELECT value FROM json_each(?))',
    );
    this.pageById = database.prepare('SELECT ordinal, id, title, content, sections FROM page WHERE id = ?');
  }

  /**
   * Opens a finished index read-only. Throws WIKI_ERR_INDEX_NOT_FOUND (nothing there), WIKI_ERR_INDEX_INCOMPLETE (an
   * interrupted build), WIKI_ERR_INDEX_FILE_INVALID (not an index, damaged, or written by another format or analyser
   * version) and WIKI_ERR_SQLITE_UNAVAILABLE (better-sqlite3 is not installed).
   */
  static async open(location: string, options: DiskWikiIndexOptions = {}): Promise<DiskWikiIndex> {
    const path = diskIndexPath(location);
    if (!existsSync(path)) {
      if (existsSync(`${path}${PARTIAL_SUFFIX}`)) {
        throw new CorralError(
          'WIKI_ERR_INDEX_INCOMPLETE',
          `wiki index ${path} was not finished; run \`corral wiki index\` again with the same corpus and --out to resume it`,
          {
            details: { path },
          },
        );
      }
      throw new CorralError('WIKI_ERR_INDEX_NOT_FOUND', `no wiki index at ${location} (build one with \`corral wiki index <corpus> --out <dir>\`)`, {
        details: { path },
      });
    }
    const Database = await loadBetterSqlite3();
    let database: SqliteDatabase | undefined;
    try {
      database = new Database(path, { readonly: true, fileMustExist: true });
      database.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
      const meta = new Map((database.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((row) => [row.key, row.value]));
      if (meta.get(META_KEYS.format) !== DISK_INDEX_FORMAT) throw invalid(path, 'not a corral wiki index');
      if (meta.get(META_KEYS.formatVersion) !== String(DISK_INDEX_FORMAT_VERSION))
        throw invalid(path, `format version ${meta.get(META_KEYS.formatVersion)}, this corral reads ${DISK_INDEX_FORMAT_VERSION}`);
      if (meta.get(META_KEYS.state) !== 'complete') {
        throw new CorralError('WIKI_ERR_INDEX_INCOMPLETE', `wiki index ${path} was not finished; run \`corral wiki index\` again to resume it`, {
          details: { path },
        });
      }
      const settings = JSON.parse(meta.get(META_KEYS.settings) ?? 'null') as IndexSettings;
      if (settings.analyserVersion !== ANALYSER_VERSION)
        throw invalid(path, `built with analyser version ${settings.analyserVersion}, this corral analyses with ${ANALYSER_VERSION}`);
      const statistics = { passageCount: Number(meta.get(META_KEYS.passageCount)), averageLength: Number(meta.get(META_KEYS.averageLength)) };
      const pageCount = Number(meta.get(META_KEYS.pageCount));
      if (!(statistics.passageCount > 0 && statistics.averageLength > 0 && pageCount > 0)) throw invalid(path, 'corpus statistics are missing');
      // Touch the inverted index once, so a damaged one fails here rather than on a model's first search.
      database.prepare('SELECT COUNT(*) FROM (SELECT term FROM posting_segment LIMIT 1)').pluck().get();
      const batches = loadBuildBatches(database, statistics.passageCount);
      return new DiskWikiIndex(
        database,
        path,
        settings,
        pageCount,
        statistics,
        meta.get(META_KEYS.sources) ?? '',
        options.postingsBudget ?? POSTINGS_BUDGET,
        batches,
        options.termCachePostings,
      );
    } catch (error) {
      database?.close();
      if (CorralError.isInstance(error)) throw error;
      throw invalid(path, (error as Error).message, error);
    }
  }

  /** Pages ranked by their best passage, as WikiIndex.search; an empty list when nothing matches. */
  search(query: string, options: { readonly limit?: number } = {}): PageHit[] {
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT));
    const queryTerms = [...new Set(termsOf(query))];
    const frequencies = new Map((this.documentFrequencies.all(JSON.stringify(queryTerms)) as { term: string; df: number }[]).map((row) => [row.term, row.df]));
    const known: QueryTerm[] = [];
    for (const term of queryTerms) {
      const documentFrequency = frequencies.get(term);
      if (documentFrequency !== undefined && documentFrequency > 0) known.push({ term, documentFrequency });
    }
    if (known.length === 0 || limit === 0) return [];
    const plan = planQuery(known, this.postingsBudget);
    const candidateLimit = Math.max(CANDIDATE_PASSAGES, limit * CANDIDATES_PER_RESULT);
    const best = new Map<number, { score: number; passage: number }>();
    const keep = (page: number, passage: number, score: number) => {
      const current = best.get(page);
      if (current === undefined || score > current.score) best.set(page, { score, passage });
    };
    const candidates = this.postingCandidates.best(plan.selective, candidateLimit);
    if (plan.selective.length === known.length) {
      // Every query term was scored from its postings: the candidates' scores are exact and come best first, so the
      // pages are taken in that order until `limit` pages are found and the next candidate scores lower than the
      // last one taken (no later page can then rank above them, ties included); no passage row is read.
      let last = Number.POSITIVE_INFINITY;
      for (const [passage, score] of candidates) {
        if (best.size >= limit && score < last) break;
        keep(this.passagePages.pageOf(passage), passage, score);
        last = score;
      }
    } else {
      for (const passage of this.passageRows.all(JSON.stringify([...candidates.keys()])) as PassageRow[]) {
        keep(passage.page, passage.number, scorePassageText(passage.terms, passage.length, plan.scored, this.statistics));
      }
    }
    const ranked = [...best.entries()].sort(([leftPage, left], [rightPage, right]) => right.score - left.score || leftPage - rightPage).slice(0, limit);
    const hits = new Map((this.hitRows.all(JSON.stringify(ranked.map(([, { passage }]) => passage))) as HitRow[]).map((row) => [row.number, row]));
    const snippetOf = snippetMaker(queryTerms);
    return ranked.map(([, { score, passage }]) => {
      const hit = hits.get(passage);
      return { page_id: hit?.id ?? '', title: hit?.title ?? '', score: Number(score.toFixed(4)), snippet: hit === undefined ? '' : snippetOf(hit.text) };
    });
  }

  /** Sections of a page in order, or null for an unknown page id. */
  viewSections(pageId: string): SectionListing[] | null {
    const page = this.pageWithId(pageId);
    return page === undefined ? null : page.sections.map((section) => ({ section_id: section.sectionId, section_name: section.sectionName }));
  }

  /** Section text; `<page_id>:full` is the whole page; null for an unknown id. */
  readSection(sectionId: string): string | null {
    // Section ids are `<page_id>:<slug>` and a slug never holds ":", so the page id is everything before the last one.
    const separator = sectionId.lastIndexOf(':');
    if (separator <= 0) return null;
    const page = this.pageWithId(sectionId.slice(0, separator));
    if (page === undefined) return null;
    if (sectionId.slice(separator + 1) === FULL_PAGE_SECTION) return page.content;
    return page.sections.find((section) => section.sectionId === sectionId)?.text ?? null;
  }

  close(): void {
    this.database.close();
  }

  private pageWithId(pageId: string): SectionedPage | undefined {
    const row = this.pageById.get(pageId) as PageRow | undefined;
    return row === undefined ? undefined : pageFromRow(row);
  }
}
