/**
 * The build's batches as the reader needs them: each batch's first passage number, the first half of every posting
 * segment's key (a query seeks one segment per batch and term). The batches must cover passages 1..passageCount
 * exactly, or the file is damaged (a segment would be missed without a word).
 */
import type { SqliteDatabase } from './load-better-sqlite3.js';

/** First passage numbers in order. Throws a plain Error when the batches leave a gap (the caller reports the file). */
export function loadBatchStarts(database: SqliteDatabase, passageCount: number): number[] {
  const starts: number[] = [];
  let next = 1;
  for (const [firstNumber, count] of database.prepare('SELECT first_number, passage_count FROM batch ORDER BY first_number').raw().iterate() as Iterable<
    [number, number]
  >) {
    if (firstNumber !== next || !(count > 0)) throw new Error(`the build's batches are not contiguous at passage ${firstNumber}`);
    starts.push(firstNumber);
    next = firstNumber + count;
  }
  if (next !== passageCount + 1) throw new Error(`the build's batches cover ${next - 1} of ${passageCount} passages`);
  return starts;
}
