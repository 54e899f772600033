/**
 * The lines of a JSONL corpus file, streamed, plain or gzip-compressed (`.gz`: Wikipedia exports are tens of GB
 * uncompressed, so they are usually kept compressed). Each line comes with its 1-based number and the bytes of the
 * file read so far (compressed bytes for `.gz`, so progress compares with the file's size). Other compressions are
 * refused with a hint rather than parsed as garbage.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { CorralError } from '../core/errors.js';

/** Compressions Node cannot stream without a native module: say how to convert instead. */
const UNSUPPORTED_COMPRESSION = /\.(bz2|xz|zst|7z|zip)$/i;

export interface JsonlLine {
  readonly line: string;
  readonly lineNumber: number;
  /** Bytes of the file read so far (for progress only: read-ahead makes it run up to a chunk ahead of `line`). */
  readonly bytesRead: number;
}

export async function* jsonlLines(path: string): AsyncGenerator<JsonlLine> {
  const compression = UNSUPPORTED_COMPRESSION.exec(path)?.[1];
  if (compression !== undefined) {
    throw new CorralError(
      'WIKI_ERR_CORPUS_INVALID',
      `${path}: .${compression} is not read directly; decompress it, or recompress it as gzip (.jsonl.gz), which corral streams`,
      { details: { path } },
    );
  }
  const file = createReadStream(path);
  const gzipped = path.toLowerCase().endsWith('.gz');
  const text = gzipped ? file.pipe(createGunzip()) : file;
  // A read error of the file (or a corrupt gzip stream) must end the loop below, not hang it.
  if (gzipped) file.on('error', (error) => text.destroy(error));
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber += 1;
      yield { line, lineNumber, bytesRead: file.bytesRead };
    }
  } catch (error) {
    if (CorralError.isInstance(error)) throw error;
    throw new CorralError('WIKI_ERR_CORPUS_INVALID', `${path}: cannot read past line ${lineNumber} (${(error as Error).message})`, {
      cause: error,
      details: { path, lineNumber },
    });
  } finally {
    lines.close();
    file.destroy();
  }
}
