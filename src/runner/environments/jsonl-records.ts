/** Reads dataset files as plain records, with errors that name the file and line. */
import { readFileSync } from 'node:fs';
import { CorralError } from '../../core/errors.js';

export type DatasetRecord = Record<string, unknown>;

/** Parses one JSON object per non-blank line. */
export function readJsonLines(path: string): DatasetRecord[] {
  const records: DatasetRecord[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new CorralError('ENV_ERR_DATASET_INVALID', `${path}:${index + 1}: not valid JSON (${(error as Error).message})`, {
          details: { path, line: index + 1 },
        });
      }
      if (!isRecord(value))
        throw new CorralError('ENV_ERR_DATASET_INVALID', `${path}:${index + 1}: expected a JSON object`, { details: { path, line: index + 1 } });
      records.push(value);
    });
  return records;
}

/** Parses a file holding one JSON array of objects (sanitized-mbpp.json). */
export function readJsonArray(path: string): DatasetRecord[] {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CorralError('ENV_ERR_DATASET_INVALID', `${path}: not valid JSON (${(error as Error).message})`, { details: { path } });
  }
  if (!Array.isArray(value) || !value.every(isRecord))
    throw new CorralError('ENV_ERR_DATASET_INVALID', `${path}: expected a JSON array of objects`, { details: { path } });
  return value;
}

export function isRecord(value: unknown): value is DatasetRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A required string field; the error names the file, record and field. */
export function requireString(record: DatasetRecord, field: string, where: string): string {
  const value = record[field];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new CorralError('ENV_ERR_DATASET_INVALID', `${where}: field "${field}" must be a string`, { details: { field } });
}

/** An optional list of strings; anything else reads as empty. */
export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
