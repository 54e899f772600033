/**
 * Load a `pages.jsonl` corpus: one JSON object a line with `id`, `title` and markdown `content` (the
 * layout of the willcb/rare-wiki-pages corpus and of every folder under `wiki/` in the data
 * directory), or a Wikipedia export's `text` instead of `content` (WikiExtractor's `--json` output and
 * the Hugging Face `wikimedia/wikipedia` rows: `{id, url, title, text}`, plain text, a paragraph a
 * line). Extra fields are ignored; a numeric id is used as its decimal string. Lines are streamed (from
 * gzip too, jsonl-lines.ts) so a large corpus never has to fit in one string. Every failure names the
 * file and the 1-based line.
 */
import { stat } from 'node:fs/promises';
import { CorralError } from '../core/errors.js';
import { jsonlLines } from './jsonl-lines.js';
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
  const { id: rawId, title, content, text } = record as Record<string, unknown>;
  const id = typeof rawId === 'number' && Number.isSafeInteger(rawId) ? String(rawId) : rawId;
  if (typeof id !== 'string' || id.trim() === '') throw invalidLine(path, lineNumber, 'field "id" must be a non-empty string or an integer');
  if (typeof title !== 'string') throw invalidLine(path, lineNumber, 'field "title" must be a string');
  if (typeof content === 'string') return { id, title, content };
  if (content === undefined && typeof text === 'string') return { id, title, content: paragraphsOfPlainText(text) };
  throw invalidLine(path, lineNumber, 'field "content" (markdown) or "text" (plain, a paragraph a line) must be a string');
}

/**
 * A Wikipedia export's plain text as markdown paragraphs. WikiExtractor puts one paragraph on each line, with no
 * blank line between; markdown (and the sectioner) needs a blank line, or the whole article would be one passage.
 */
export function paragraphsOfPlainText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n\n');
}

/** Read every page of a `pages.jsonl` file. Blank lines are skipped; a repeated id is an error. */
export async function loadPagesJsonl(path: string): Promise<WikiPage[]> {
  await assertFileExists(path);
  const pages: WikiPage[] = [];
  const lineOfId = new Map<string, number>();
  for await (const { line, lineNumber } of jsonlLines(path)) {
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
