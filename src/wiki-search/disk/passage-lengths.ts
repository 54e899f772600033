/**
 * Every passage's BM25 length in memory, 2 bytes a passage (5 MB at a million pages), loaded once when an index
 * opens: candidate scoring reads a term's postings from FTS5 and needs each posting's length, and one B-tree lookup
 * per posting (FTS5's own bm25() reads its docsize table so) costs more than the rest of a query together. The build
 * writes one blob per batch in that batch's transaction, so a resumed build never loses or repeats one.
 */
import type { SqliteDatabase } from './load-better-sqlite3.js';

/** Lengths above this are stored as it; only candidate selection sees the cap, exact scoring reads the row. */
const LARGEST_STORED_LENGTH = 0xffff;

export function encodeLengthChunk(lengths: readonly number[]): Buffer {
  const packed = new Uint16Array(lengths.length);
  lengths.forEach((length, index) => (packed[index] = Math.min(length, LARGEST_STORED_LENGTH)));
  return Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
}

/**
 * Lengths indexed by passage number (numbers start at 1; index 0 is unused), and each build batch's first passage
 * number (the key of its chunk and of its posting segments). Throws a plain Error when the chunks do
 * not cover 1..passageCount exactly (the caller reports the file as damaged).
 */
export function loadPassageLengths(database: SqliteDatabase, passageCount: number): { lengths: Uint16Array; batchStarts: number[] } {
  const lengths = new Uint16Array(passageCount + 1);
  const batchStarts: number[] = [];
  let next = 1;
  for (const [firstNumber, blob] of database
    .prepare('SELECT first_number, lengths FROM passage_length_chunk ORDER BY first_number')
    .raw()
    .iterate() as Iterable<[number, Buffer]>) {
    const count = blob.byteLength / 2;
    if (firstNumber !== next || !Number.isInteger(count) || firstNumber + count - 1 > passageCount) {
      throw new Error(`passage lengths are not contiguous at passage ${firstNumber}`);
    }
    // Copy through bytes: the blob's offset in its buffer need not be 2-aligned for a Uint16Array view.
    new Uint8Array(lengths.buffer, firstNumber * 2, blob.byteLength).set(blob);
    batchStarts.push(firstNumber);
    next = firstNumber + count;
  }
  if (next !== passageCount + 1) throw new Error(`passage lengths cover ${next - 1} of ${passageCount} passages`);
  return { lengths, batchStarts };
}
