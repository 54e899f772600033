/**
 * The disk index's file: one SQLite database in a directory of its own, so a worker fleet can share or copy it.
 *   meta       key → value: format, settings, source identity, build progress, corpus statistics
 *   page       one row per page (ordinal = corpus order): id, normalised title and content, sections as offsets
 *   passage    one row per ranking unit (see ../passages.ts): its page and position there, its length as BM25
 *              counts it, where its text is in the page's content (in characters, as SQL's substr counts them, so
 *              a hit's text is read without the page), and its analysed terms (title terms repeated titleWeight
 *              times, then the passage's own, as the in-memory engine indexes them)
 *   batch      each build batch's first passage number and passage count (the first half of a posting segment's
 *              key) and its pages' first passages (passage-pages.ts: which page a passage is on, without its row)
 *   posting_segment the inverted index: one row per build batch and term, the batch's postings of the term
 *              (passage gaps, frequencies and lengths as varints, posting-codec.ts), keyed by (batch, term) so a batch appends
 *              its rows at the end of the table (keyed by term first, every batch rewrote pages all over it: the
 *              1M build's write volume grew with the square of its size); a query seeks once per batch per term;
 *              written with their batch, so a resumed build has them all
 *   term_df    document frequency of every term, summed from its segments when the build finishes
 * The build writes `wiki-index.sqlite.partial` and renames it when complete, so a reader never opens half an index.
 */
export const DISK_INDEX_FILE = 'wiki-index.sqlite';
export const PARTIAL_SUFFIX = '.partial';
export const DISK_INDEX_FORMAT = 'corral-wiki-disk-index';
/** Bump when a table or a meta value changes meaning; older files are then refused with a rebuild hint. */
export const DISK_INDEX_FORMAT_VERSION = 3;

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
  text_start INTEGER NOT NULL,
  text_chars INTEGER NOT NULL,
  terms TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS batch (first_number INTEGER PRIMARY KEY, passage_count INTEGER NOT NULL, page_starts BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS posting_segment (
  term TEXT NOT NULL,
  first_number INTEGER NOT NULL,
  count INTEGER NOT NULL,
  postings BLOB NOT NULL,
  PRIMARY KEY (first_number, term)
) WITHOUT ROWID;
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
