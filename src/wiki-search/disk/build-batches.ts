/**
 * The build's batches as the reader needs them: each batch's first passage number, the first half of every posting
 * segment's key (a query seeks one segment per batch and term), and its pages' first passages (passage-pages.ts).
 * The batches must cover passages 1..passageCount exactly, or the file is damaged (a segment would be missed
 * without a word).
 */
import type { SqliteDatabase } from './load-better-sqlite3.js';
import { PassagePages } from './passage-pages.js';

export interface BuildBatches {
  /** First passage numbers in order. */
  readonly starts: number[];
  readonly passagePages: PassagePages;
}

/** Throws a plain Error when the batches leave a gap or list their pages wrongly (the caller reports the file). */
export function loadBuildBatches(database: SqliteDatabase, passageCount: number): BuildBatches {
  const starts: number[] = [];
  const pageStarts: Uint8Array[] = [];
  let next = 1;
  const rows = database.prepare('SELECT first_number, passage_count, page_starts FROM batch ORDER BY first_number').raw().iterate() as Iterable<
    [number, number, Uint8Array]
  >;
  for (const [firstNumber, count, pages] of rows) {
    if (firstNumber !== next || !(count > 0)) throw new Error(`the build's batches are not contiguous at passage ${firstNumber}`);
    starts.push(firstNumber);
    pageStarts.push(pages);
    next = firstNumber + count;
  }
  if (next !== passageCount + 1) throw new Error(`the build's batches cover ${next - 1} of ${passageCount} passages`);
  return { starts, passagePages: PassagePages.fromBatches(pageStarts, passageCount) };
}
