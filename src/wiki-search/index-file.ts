/**
 * The saved-index file: three lines of JSON, so the header can be checked (format version, corpus
 * fingerprint, settings) by reading only the file's first bytes, and each large part is decoded as its
 * own string (V8 caps one string near 512 MiB, which a 100k-page index would approach as one).
 *   line 1: header; line 2: the page store; line 3: the MiniSearch index (its own toJSON format).
 * Writes go to a temporary file renamed into place, so a reader never sees half a file.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, writeSync } from 'node:fs';
import { CorralError } from '../core/errors.js';

export const INDEX_FILE_FORMAT = 'corral-wiki-index';
/** Bump when the layout of any line changes; older files are then rebuilt, never misread. */
export const INDEX_FILE_FORMAT_VERSION = 1;

export interface IndexSettings {
  readonly analyserVersion: number;
  readonly paragraphsPerGroup: number;
  readonly titleWeight: number;
}

export interface IndexFileHeader {
  readonly format: typeof INDEX_FILE_FORMAT;
  readonly formatVersion: number;
  readonly corpusFingerprint: string;
  readonly settings: IndexSettings;
  readonly pageCount: number;
}

export interface IndexFileContents {
  readonly header: IndexFileHeader;
  readonly pagesJson: string;
  readonly engineJson: string;
}

const HEADER_PROBE_BYTES = 64 * 1024;

function invalid(path: string, reason: string, cause?: unknown): CorralError {
  return new CorralError('WIKI_ERR_INDEX_FILE_INVALID', `wiki index file ${path}: ${reason}`, { cause, details: { path } });
}

export function writeIndexFile(path: string, header: IndexFileHeader, pagesJson: string, engineJson: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const descriptor = openSync(temporary, 'w');
  try {
    for (const line of [JSON.stringify(header), pagesJson, engineJson]) writeSync(descriptor, `${line}\n`);
  } finally {
    closeSync(descriptor);
  }
  renameSync(temporary, path);
}

function parseHeader(path: string, line: string): IndexFileHeader {
  let header: unknown;
  try {
    header = JSON.parse(line);
  } catch (error) {
    throw invalid(path, 'the header line is not JSON', error);
  }
  const candidate = header as Partial<IndexFileHeader> | null;
  if (candidate?.format !== INDEX_FILE_FORMAT || typeof candidate.formatVersion !== 'number') {
    throw invalid(path, `not a ${INDEX_FILE_FORMAT} file`);
  }
  return candidate as IndexFileHeader;
}

/** The header alone, from the first bytes of the file; null when there is no file. */
export function readIndexFileHeader(path: string): IndexFileHeader | null {
  if (!existsSync(path)) return null;
  const descriptor = openSync(path, 'r');
  try {
    const probe = Buffer.alloc(HEADER_PROBE_BYTES);
    const bytes = readSync(descriptor, probe, 0, probe.length, 0);
    const newline = probe.subarray(0, bytes).indexOf(0x0a);
    if (newline < 0) throw invalid(path, 'no header line');
    return parseHeader(path, probe.toString('utf8', 0, newline));
  } finally {
    closeSync(descriptor);
  }
}

/** All three parts; throws WIKI_ERR_INDEX_FILE_INVALID when the file is truncated. */
export function readIndexFile(path: string): IndexFileContents {
  const buffer = readFileSync(path);
  const lines: string[] = [];
  let start = 0;
  for (let part = 0; part < 3; part += 1) {
    const newline = buffer.indexOf(0x0a, start);
    if (newline < 0) throw invalid(path, `truncated: ${part} of 3 lines`);
    lines.push(buffer.toString('utf8', start, newline));
    start = newline + 1;
  }
  const [headerLine = '', pagesJson = '', engineJson = ''] = lines;
  return { header: parseHeader(path, headerLine), pagesJson, engineJson };
}
