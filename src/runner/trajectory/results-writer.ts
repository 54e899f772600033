/**
 * Appends results.jsonl one whole group per write(2) on an O_APPEND descriptor, so a crash leaves at most one torn
 * trailing line, which opening for resume cuts off. metadata.json is replaced atomically (write then rename), and so
 * is results.jsonl when a resume restates group statistics (replaceRecords).
 */
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { type ResultRecord, resultKey } from './result-record.js';
import { hasLegacyTokenSpelling, readTurnTokens } from './turn-tokens.js';

export class ResultsWriter {
  private constructor(
    readonly directory: string,
    private readonly descriptor: number,
    /** Keys (`exampleId#rolloutIndex`) already in the file. */
    readonly completed: ReadonlySet<string>,
    readonly existing: readonly ResultRecord[],
  ) {}

  static open(directory: string): ResultsWriter {
    mkdirSync(directory, { recursive: true });
    const path = join(directory, 'results.jsonl');
    const existing = existsSync(path) ? readWholeLines(path) : [];
    const descriptor = openSync(path, 'a');
    return new ResultsWriter(directory, descriptor, new Set(existing.map((record) => resultKey(record.example_id, record.rollout_index))), existing);
  }

  /** One write for the whole group: a SIGKILL leaves the group on disk whole or not at all (bar a torn tail). */
  append(records: readonly ResultRecord[]): void {
    if (records.length === 0) return;
    writeSync(this.descriptor, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  }

  /** Replaces results.jsonl atomically (write then rename); only while no writer has the file open. */
  static replaceRecords(directory: string, records: readonly ResultRecord[]): void {
    const path = join(directory, 'results.jsonl');
    writeFileSync(`${path}.tmp`, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    renameSync(`${path}.tmp`, path);
  }

  writeMetadata(metadata: Record<string, unknown>): void {
    ResultsWriter.writeMetadataTo(this.directory, metadata);
  }

  static writeMetadataTo(directory: string, metadata: Record<string, unknown>): void {
    const path = join(directory, 'metadata.json');
    writeFileSync(`${path}.tmp`, `${JSON.stringify(metadata, null, 2)}\n`);
    renameSync(`${path}.tmp`, path);
  }

  /** Every whole record in results.jsonl (cutting off a torn trailing line, as open() does). */
  static readRecords(directory: string): ResultRecord[] {
    const path = join(directory, 'results.jsonl');
    return existsSync(path) ? readWholeLines(path) : [];
  }

  readMetadata(): Record<string, unknown> | null {
    const path = join(this.directory, 'metadata.json');
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : null;
  }

  close(): void {
    closeSync(this.descriptor);
  }
}

/** Parses every complete line; truncates the file after the last good line (a line torn by a crash). */
function readWholeLines(path: string): ResultRecord[] {
  const text = readFileSync(path, 'utf8');
  const records: ResultRecord[] = [];
  let goodBytes = 0;
  let offset = 0;
  for (;;) {
    const end = text.indexOf('\n', offset);
    if (end < 0) break;
    const line = text.slice(offset, end);
    try {
      if (line.trim()) records.push(currentSpelling(JSON.parse(line) as ResultRecord));
    } catch {
      break;
    }
    offset = end + 1;
    goodBytes += Buffer.byteLength(line) + 1;
  }
  if (goodBytes < Buffer.byteLength(text)) {
    const descriptor = openSync(path, 'r+');
    ftruncateSync(descriptor, goodBytes);
    closeSync(descriptor);
  }
  return records;
}

/** A record written before the token fields were snake_case, read in today's spelling (old runs still open). */
function currentSpelling(record: ResultRecord): ResultRecord {
  return hasLegacyTokenSpelling(record.tokens) ? { ...record, tokens: readTurnTokens(record.tokens) } : record;
}
