/**
 * The disk index's file: one SQLite database in a directory of its own, so a worker fleet can share or copy it.
 *   meta       key → value: format, settings, source identity, build progress, corpus statistics
 *   page       one row per page (ordinal = corpus order): id, normalised title and content, sections as offsets
 *   passage    one row per ranking unit (see ../passages.ts): its page and position there, its analysed terms
 *              (title terms repeated titleWeight times, then the passage's own, as the in-memory engine indexes
 *              them) and its length as BM25 counts it
 *   passage_fts FTS5 over passage.terms (external content: the terms are stored once); the analyser ran before
 *              SQLite, so FTS5's `ascii` tokenizer only splits on the single spaces between terms
 *   term_df    document frequency of every term, written when the build finishes (FTS5's vocabulary table counts
 *              by scanning a term's whole posting list, too slow to do per query for common terms)
 * The build writes `wiki-index.sqlite.partial` and renames it when complete, so a reader never opens half an index.
 */
export const DISK_INDEX_FILE = 'wiki-index.sqlite';
export const PARTIAL_SUFFIX = '.partial';
export const DISK_INDEX_FORMAT = 'corral-wiki-disk-index';
/** Bump when a table or a meta value changes meaning; older files are then refused with a rebuild hint. */
export const DISK_INDEX_FORMAT_VERSION = 1;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS page (
  ordinal INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  content TEXT NOT NULL,
  sections TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS passage (
  number INTEGER PRIMARY KEY,
  page INTEGER NOT NULL,
  position INTEGER NOT NULL,
  length INTEGER NOT NULL,
  terms TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS passage_fts USING fts5(terms, content='passage', content_rowid='number', tokenize='ascii', detail='full');
CREATE TABLE IF NOT EXISTS term_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
`;

export const META_KEYS = {
  format: 'format',
  formatVersion: 'format_version',
  settings: 'settings',
  sources: 'sources',
  progress: 'progress',
  state: 'state',
  pageCount: 'page_count',
  passageCount: 'passage_count',
  averageLength: 'average_length',
} as const;

export type BuildState = 'building' | 'complete';

/** How far a build got: sources before `sourceIndex` are done, and `itemsDone` lines or files of that one. */
export interface BuildProgress {
  readonly sourceIndex: number;
  readonly itemsDone: number;
}
