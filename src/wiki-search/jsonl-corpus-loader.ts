/**
 * Load a `pages.jsonl` corpus: one JSON object a line with `id`, `title` and markdown `content` (the
 * layout of the willcb/rare-wiki-pages corpus and of every folder under `wiki/` in the data
 * directory). Extra fields are ignored. Lines are streamed so a large corpus never has to fit in one
 * string. Every failure names the file and the 1-based line.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { CorralError } from '../core/errors.js';
import type { WikiPage } from './wiki-page.js';

function invalidLine(path: string, lineNumber: number, reason: string, cause?: unknown): CorralError {
  return new CorralError('WIKI_ERR_CORPUS_INVALID', `${path}:${lineNumber}: ${reason}`, { cause, details: { path, lineNumber } });
}

/** Throws WIKI_ERR_CORPUS_NOT_FOUND when `path` is not a readable file. */
export async function assertFileExists(path: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (info === null || !info.isFile()) {
    throw new CorralError('WIKI_ERR_CORPUS_NOT_FOUND', `wiki corpus file not found: ${path}`, { details: { path } });
  }
}

/** One line of a `pages.jsonl` file as a page; throws WIKI_ERR_CORPUS_INVALID naming the file and line. */
export function parsePageLine(path: string, lineNumber: number, line: string): WikiPage {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch (error) {
    throw invalidLine(path, lineNumber, `not valid JSON (${(error as Error).message})`, error);
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw invalidLine(path, lineNumber, 'expected a JSON object');
  const { id, title, content } = record as Record<string, unknown>;
  if (typeof id !== 'string' || id.trim() === '') throw invalidLine(path, lineNumber, 'field "id" must be a non-empty string');
  if (typeof title !== 'string') throw invalidLine(path, lineNumber, 'field "title" must be a string');
  if (typeof content !== 'string') throw invalidLine(path, lineNumber, 'field "content" must be a string');
  return { id, title, content };
}

/** Read every page of a `pages.jsonl` file. Blank lines are skipped; a repeated id is an error. */
export async function loadPagesJsonl(path: string): Promise<WikiPage[]> {
  await assertFileExists(path);
  const pages: WikiPage[] = [];
  const lineOfId = new Map<string, number>();
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    if (line.trim() === '') continue;
    const page = parsePageLine(path, lineNumber, line);
    const earlier = lineOfId.get(page.id);
    if (earlier !== undefined) {
      throw new CorralError('WIKI_ERR_DUPLICATE_PAGE_ID', `${path}:${lineNumber}: page id "${page.id}" already used on line ${earlier}`, {
        details: { path, lineNumber, pageId: page.id },
      });
    }
    lineOfId.set(page.id, lineNumber);
    pages.push(page);
  }
  return pages;
}
