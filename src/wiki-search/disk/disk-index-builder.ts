/**
 * Builds a disk index from corpora in one streaming pass with bounded memory: pages are read one at a time, analysed,
 * and written in batches, each batch one transaction that also records how far the build got, so an interrupted
 * build (Ctrl-C, a crash, a killed machine) resumes from its last batch when run again with the same sources and
 * output. Each batch inverts its own passages in memory (term → postings) and writes one posting segment per term
 * with them, so memory holds one batch and SQLite's page cache at most. When every page is in, the build sums each
 * term's passages (term_df), switches the journal off WAL (so readers can open the file read-only) and renames the
 * file into place.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CorralError } from '../../core/errors.js';
import { withFileLock } from '../../core/file-lock.js';
import { ANALYSER_VERSION, termsOf } from '../../text/terms.js';
import type { CorpusSource } from '../corpus-sources.js';
import { DEFAULT_PARAGRAPHS_PER_GROUP, sectionPage } from '../page-sections.js';
import { passagesOf } from '../passages.js';
import { DEFAULT_TITLE_WEIGHT } from '../wiki-index.js';
import type { IndexSettings } from '../index-file.js';
import { type StreamedPage, sourceBytes, sourceIdentity, streamCorpusPages } from './corpus-page-stream.js';
import {
  type BuildProgress,
  DISK_INDEX_FILE,
  DISK_INDEX_FORMAT,
  DISK_INDEX_FORMAT_VERSION,
  META_KEYS,
  PARTIAL_SUFFIX,
  SCHEMA_SQL,
} from './disk-index-layout.js';
import { type SqliteDatabase, loadBetterSqlite3 } from './load-better-sqlite3.js';
import { encodeSections } from './page-row.js';
import { encodePageStarts } from './passage-pages.js';
import { encodePostings } from './posting-codec.js';
import { bm25Length, termFrequencies, weightedTermsText } from './passage-terms.js';
import { characterSpan } from './character-span.js';

export interface DiskIndexBuildProgress {
  readonly pages: number;
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly phase: 'pages' | 'finishing';
}

export interface DiskIndexBuildOptions {
  readonly sources: readonly CorpusSource[];
  /** Directory the index is written to (created when missing). */
  readonly outDir: string;
  readonly paragraphsPerGroup?: number;
  readonly titleWeight?: number;
  /**
   * Pages per transaction (default 50,000): the unit of memory held and of work lost to an interruption, and one
   * posting segment per term (fewer, larger batches mean fewer segments for a query to read).
   */
  readonly batchPages?: number;
  /**
   * Returns a finished index in `outDir` built from the same sources and settings by this format instead of building
   * again (the cache's use: whoever waited for another process's build then opens that one).
   */
  readonly reuseFinished?: boolean;
  /** Called after every batch and once before finishing. */
  readonly onProgress?: (progress: DiskIndexBuildProgress) => void;
  /** Stops the build after the current batch is committed; the next build with the same options resumes it. */
  readonly signal?: AbortSignal;
  readonly log?: (line: string) => void;
}

export interface DiskIndexBuildResult {
  readonly path: string;
  readonly pageCount: number;
  readonly passageCount: number;
  /** Pages already in the index when this run started (0 for a fresh build). */
  readonly resumedFromPages: number;
  /** True when a finished index was reused (reuseFinished) and nothing was built. */
  readonly reused: boolean;
  readonly durationMs: number;
}

const DEFAULT_BATCH_PAGES = 50_000;
/**
 * The build lock's holder refreshes it from a timer, which cannot run while a batch is written (one synchronous
 * transaction: seconds at 50,000 pages), so the lock counts as stale only after two minutes without a refresh;
 * a build that crashed holds up a waiting one that long.
 */
const BUILD_LOCK_STALE_MS = 120_000;
const PAGE_CACHE_KIB = 64 * 1024;

function settingsOf(options: DiskIndexBuildOptions): IndexSettings {
  return {
    analyserVersion: ANALYSER_VERSION,
    paragraphsPerGroup: options.paragraphsPerGroup ?? DEFAULT_PARAGRAPHS_PER_GROUP,
    titleWeight: options.titleWeight ?? DEFAULT_TITLE_WEIGHT,
  };
}

function readMeta(database: SqliteDatabase, key: string): string | undefined {
  return (database.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

/**
 * Opens the partial file, resuming it when it was started by this format version from the same sources and settings;
 * else starts over (an older format's tables lack columns this build writes).
 */
async function openPartial(path: string, identity: string, settings: IndexSettings, log: (line: string) => void): Promise<SqliteDatabase> {
  const Database = await loadBetterSqlite3();
  if (existsSync(path)) {
    try {
      const database = new Database(path);
      const same =
        readMeta(database, META_KEYS.formatVersion) === String(DISK_INDEX_FORMAT_VERSION) &&
        readMeta(database, META_KEYS.sources) === identity &&
        readMeta(database, META_KEYS.settings) === JSON.stringify(settings);
      if (same) return database;
      database.close();
      log(`wiki index: ${path} was started by another format version or from other sources or settings; starting over`);
    } catch (error) {
      log(`wiki index: ${path} cannot be resumed (${(error as Error).message}); starting over`);
    }
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  }
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.exec(SCHEMA_SQL);
  const setMeta = database.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
  database.transaction(() => {
    setMeta.run(META_KEYS.format, DISK_INDEX_FORMAT);
    setMeta.run(META_KEYS.formatVersion, String(DISK_INDEX_FORMAT_VERSION));
    setMeta.run(META_KEYS.settings, JSON.stringify(settings));
    setMeta.run(META_KEYS.sources, identity);
    setMeta.run(META_KEYS.state, 'building');
    setMeta.run(META_KEYS.progress, JSON.stringify({ sourceIndex: 0, itemsDone: 0 } satisfies BuildProgress));
  })();
  return database;
}

/** The finished index at `path` when this format built it from the same sources and settings; else undefined. */
async function finishedIndex(path: string, identity: string, settings: IndexSettings): Promise<{ pageCount: number; passageCount: number } | undefined> {
  if (!existsSync(path)) return undefined;
  const Database = await loadBetterSqlite3();
  try {
    const database = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const same =
        readMeta(database, META_KEYS.formatVersion) === String(DISK_INDEX_FORMAT_VERSION) &&
        readMeta(database, META_KEYS.state) === 'complete' &&
        readMeta(database, META_KEYS.sources) === identity &&
        readMeta(database, META_KEYS.settings) === JSON.stringify(settings);
      return same
        ? { pageCount: Number(readMeta(database, META_KEYS.pageCount)), passageCount: Number(readMeta(database, META_KEYS.passageCount)) }
        : undefined;
    } finally {
      database.close();
    }
  } catch {
    return undefined; // damaged or not an index: built again
  }
}

/**
 * Builds (or resumes) the index of `options.sources` in `options.outDir`. One build at a time per directory: a lock
 * beside the file (core/file-lock.ts, a directory on disk, so processes share it) makes a second build of the same
 * directory wait; two writers on one partial file would interleave their batches.
 */
export async function buildDiskIndex(options: DiskIndexBuildOptions): Promise<DiskIndexBuildResult> {
  const log = options.log ?? (() => undefined);
  mkdirSync(options.outDir, { recursive: true });
  const lockPath = join(options.outDir, `${DISK_INDEX_FILE}.lock`);
  return withFileLock(lockPath, 'wiki index build', () => buildLocked(options, log), log, { staleMs: BUILD_LOCK_STALE_MS });
}

async function buildLocked(options: DiskIndexBuildOptions, log: (line: string) => void): Promise<DiskIndexBuildResult> {
  const startedAt = performance.now();
  const settings = settingsOf(options);
  const finalPath = join(options.outDir, DISK_INDEX_FILE);
  const partialPath = `${finalPath}${PARTIAL_SUFFIX}`;
  const identity = await sourceIdentity(options.sources);
  const finished = options.reuseFinished ? await finishedIndex(finalPath, identity, settings) : undefined;
  if (finished !== undefined)
    return { path: finalPath, ...finished, resumedFromPages: finished.pageCount, reused: true, durationMs: performance.now() - startedAt };
  log(`wiki index: building ${finalPath} from ${options.sources.length} corpus source(s)`);
  const database = await openPartial(partialPath, identity, settings, log);
  try {
    database.pragma('synchronous = NORMAL');
    database.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    const writer = new BatchWriter(database, settings);
    const resumedFromPages = writer.pageCount;
    const progress = JSON.parse(readMeta(database, META_KEYS.progress) ?? '{}') as BuildProgress;
    if (resumedFromPages > 0) log(`wiki index: resuming after ${resumedFromPages} pages`);
    const perSource = await Promise.all(options.sources.map((source) => sourceBytes([source])));
    const bytesTotal = perSource.reduce((sum, bytes) => sum + bytes, 0);
    const batchPages = Math.max(1, options.batchPages ?? DEFAULT_BATCH_PAGES);
    let batch: StreamedPage[] = [];
    const flush = () => {
      const last = batch.at(-1);
      if (last === undefined) return;
      writer.write(batch);
      batch = [];
      const bytesBefore = perSource.slice(0, last.sourceIndex).reduce((sum, bytes) => sum + bytes, 0);
      options.onProgress?.({ pages: writer.pageCount, bytesDone: bytesBefore + last.bytesDone, bytesTotal, phase: 'pages' });
    };
    for await (const streamed of streamCorpusPages(options.sources, progress)) {
      batch.push(streamed);
      if (batch.length < batchPages) continue;
      flush();
      if (options.signal?.aborted) {
        database.close();
        throw new CorralError('WIKI_ERR_INDEX_INCOMPLETE', `wiki index build stopped after ${writer.pageCount} pages; run it again to resume`, {
          details: { path: partialPath, pages: writer.pageCount },
        });
      }
    }
    flush();
    if (writer.pageCount === 0)
      throw new CorralError('WIKI_ERR_CORPUS_NOT_FOUND', 'the wiki corpora hold no pages', {
        details: { paths: options.sources.map((source) => source.path) },
      });
    options.onProgress?.({ pages: writer.pageCount, bytesDone: bytesTotal, bytesTotal, phase: 'finishing' });
    const passageCount = finish(database);
    database.close();
    renameSync(partialPath, finalPath);
    return { path: finalPath, pageCount: writer.pageCount, passageCount, resumedFromPages, reused: false, durationMs: performance.now() - startedAt };
  } finally {
    if (database.open) database.close();
  }
}

/** Term frequencies, corpus statistics, and a rollback journal so readers need no -shm file. */
function finish(database: SqliteDatabase): number {
  database.exec(`
    DELETE FROM term_df;
    INSERT INTO term_df (term, df) SELECT term, SUM(count) FROM posting_segment GROUP BY term;
  `);
  const statistics = database.prepare('SELECT COUNT(*) AS passages, AVG(length) AS averageLength FROM passage').get() as {
    passages: number;
    averageLength: number;
  };
  const pages = (database.prepare('SELECT COUNT(*) AS pages FROM page').get() as { pages: number }).pages;
  const setMeta = database.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
  database.transaction(() => {
    setMeta.run(META_KEYS.pageCount, String(pages));
    setMeta.run(META_KEYS.passageCount, String(statistics.passages));
    setMeta.run(META_KEYS.averageLength, String(statistics.averageLength));
    setMeta.run(META_KEYS.state, 'complete');
  })();
  database.pragma('journal_mode = DELETE');
  return statistics.passages;
}

/** Writes batches of pages, each in one transaction together with the build's progress. */
class BatchWriter {
  pageCount: number;
  private passageNumber: number;
  private readonly insertPage;
  private readonly insertPassage;
  private readonly insertSegment;
  private readonly insertBatch;
  private readonly setProgress;
  /** The current batch's postings by term, written with it as one segment per term. */
  private batchPostings = new Map<string, { passages: number[]; frequencies: number[]; lengths: number[] }>();
  private readonly writeBatch;

  constructor(
    database: SqliteDatabase,
    private readonly settings: IndexSettings,
  ) {
    this.pageCount = (database.prepare('SELECT COUNT(*) AS pages FROM page').get() as { pages: number }).pages;
    this.passageNumber = (database.prepare('SELECT COALESCE(MAX(number), 0) AS last FROM passage').get() as { last: number }).last;
    this.insertPage = database.prepare('INSERT INTO page (ordinal, id, title, content, sections) VALUES (?, ?, ?, ?, ?)');
    this.insertPassage = database.prepare('INSERT INTO passage (number, page, position, length, text_start, text_chars, terms) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.insertBatch = database.prepare('INSERT INTO batch (first_number, passage_count, page_starts) VALUES (?, ?, ?)');
    this.insertSegment = database.prepare('INSERT INTO posting_segment (term, first_number, count, postings) VALUES (?, ?, ?, ?)');
    this.setProgress = database.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('${META_KEYS.progress}', ?)`);
    this.writeBatch = database.transaction((batch: readonly StreamedPage[]) => {
      const firstNumber = this.passageNumber + 1;
      this.batchPostings = new Map();
      const pageOrdinals: number[] = [];
      const pageFirstPassages: number[] = [];
      for (const streamed of batch) {
        const pageFirstPassage = this.passageNumber + 1;
        const ordinal = this.writePage(streamed);
        // Only pages with passages: a passage is then on the last listed page starting at or before it.
        if (this.passageNumber >= pageFirstPassage) {
          pageOrdinals.push(ordinal);
          pageFirstPassages.push(pageFirstPassage);
        }
      }
      if (this.passageNumber >= firstNumber) {
        this.insertBatch.run(firstNumber, this.passageNumber - firstNumber + 1, encodePageStarts(pageOrdinals, pageFirstPassages));
      }
      // In key order (batch, then term): the rows are appended to the end of the table.
      for (const term of [...this.batchPostings.keys()].sort()) {
        const { passages, frequencies, lengths } = this.batchPostings.get(term) as { passages: number[]; frequencies: number[]; lengths: number[] };
        this.insertSegment.run(term, firstNumber, passages.length, encodePostings(passages, frequencies, lengths));
      }
      this.batchPostings = new Map();
      const last = batch.at(-1);
      if (last !== undefined) this.setProgress.run(JSON.stringify({ sourceIndex: last.sourceIndex, itemsDone: last.itemNumber } satisfies BuildProgress));
    });
  }

  write(batch: readonly StreamedPage[]): void {
    this.writeBatch(batch);
  }

  /** Writes the page and its passages; returns the page's ordinal. */
  private writePage({ page }: StreamedPage): number {
    const ordinal = this.pageCount;
    const sectioned = sectionPage(page, this.settings);
    try {
      this.insertPage.run(ordinal, sectioned.id, sectioned.title, sectioned.content, encodeSections(sectioned));
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw error;
      throw new CorralError('WIKI_ERR_DUPLICATE_PAGE_ID', `page id "${page.id}" occurs twice in the corpora; give one source an idPrefix`, {
        cause: error,
        details: { pageId: page.id },
      });
    }
    const titleTerms = termsOf(sectioned.title);
    passagesOf(sectioned, ordinal).forEach((passage, position) => {
      const textTerms = termsOf(passage.text);
      const frequencies = termFrequencies(titleTerms, this.settings.titleWeight, textTerms);
      const length = bm25Length(frequencies);
      const [textStart, textChars] = characterSpan(sectioned.content, passage.start, passage.end);
      this.passageNumber += 1;
      const weighted = weightedTermsText(titleTerms, this.settings.titleWeight, textTerms);
      this.insertPassage.run(this.passageNumber, ordinal, position, length, textStart, textChars, weighted);
      for (const [term, frequency] of frequencies) {
        let postings = this.batchPostings.get(term);
        if (postings === undefined) this.batchPostings.set(term, (postings = { passages: [], frequencies: [], lengths: [] }));
        postings.passages.push(this.passageNumber);
        postings.frequencies.push(frequency);
        postings.lengths.push(length);
      }
    });
    this.pageCount += 1;
    return ordinal;
  }
}
