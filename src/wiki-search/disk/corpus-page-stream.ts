/**
 * Pages of one or more corpora, one at a time, so a build of millions of pages holds only the page it is on. Each
 * page carries where it came from (source, 1-based line or file number) so a build can record how far it got and a
 * resumed build can skip that far without parsing. Byte counts drive the progress bar.
 */
import { readFile, stat } from 'node:fs/promises';
import { CorralError } from '../../core/errors.js';
import type { CorpusSource } from '../corpus-sources.js';
import { assertFileExists, parsePageLine } from '../jsonl-corpus-loader.js';
import { jsonlLines } from '../jsonl-lines.js';
import { listMarkdownFiles, markdownFilePage, pageIdForMarkdownFile } from '../markdown-folder-loader.js';
import type { WikiPage } from '../wiki-page.js';
import type { BuildProgress } from './disk-index-layout.js';

export interface StreamedPage {
  readonly page: WikiPage;
  readonly sourceIndex: number;
  /** 1-based line (pages.jsonl) or file number (markdown folder) within its source. */
  readonly itemNumber: number;
  /** Bytes of the source consumed up to and including this page (for progress only). */
  readonly bytesDone: number;
}

/** Identity of the sources a build started from; a resumed build must see the same (paths, sizes, times). */
export async function sourceIdentity(sources: readonly CorpusSource[]): Promise<string> {
  const parts = [];
  for (const source of sources) {
    const files = source.kind === 'pages-jsonl' ? [source.path] : await listMarkdownFiles(source.path);
    let bytes = 0;
    let modifiedMs = 0;
    for (const file of files) {
      const info = await stat(file);
      bytes += info.size;
      modifiedMs = Math.max(modifiedMs, info.mtimeMs);
    }
    parts.push({ path: source.path, kind: source.kind, idPrefix: source.idPrefix ?? null, files: files.length, bytes, modifiedMs });
  }
  return JSON.stringify(parts);
}

/** Total bytes of every source, for the progress bar. */
export async function sourceBytes(sources: readonly CorpusSource[]): Promise<number> {
  let total = 0;
  for (const source of sources) {
    const files = source.kind === 'pages-jsonl' ? [source.path] : await listMarkdownFiles(source.path);
    for (const file of files) total += (await stat(file)).size;
  }
  return total;
}

function withPrefix(page: WikiPage, source: CorpusSource): WikiPage {
  if (source.idPrefix === undefined) return page;
  if (source.idPrefix === '' || source.idPrefix.includes(':')) {
    throw new CorralError('WIKI_ERR_CORPUS_INVALID', `idPrefix for ${source.path} must be non-empty and contain no ":"`, { details: { path: source.path } });
  }
  return { ...page, id: `${source.idPrefix}/${page.id}` };
}

async function* jsonlPages(source: CorpusSource, sourceIndex: number, skipItems: number): AsyncGenerator<StreamedPage> {
  await assertFileExists(source.path);
  for await (const { line, lineNumber, bytesRead } of jsonlLines(source.path)) {
    if (lineNumber <= skipItems || line.trim() === '') continue;
    yield { page: withPrefix(parsePageLine(source.path, lineNumber, line), source), sourceIndex, itemNumber: lineNumber, bytesDone: bytesRead };
  }
}

async function* markdownPages(source: CorpusSource, sourceIndex: number, skipItems: number): AsyncGenerator<StreamedPage> {
  const files = await listMarkdownFiles(source.path);
  if (files.length === 0) throw new CorralError('WIKI_ERR_CORPUS_NOT_FOUND', `no .md files in wiki folder ${source.path}`, { details: { path: source.path } });
  let bytesDone = 0;
  for (const [index, file] of files.entries()) {
    if (index < skipItems) continue;
    const content = await readFile(file, 'utf8');
    bytesDone += Buffer.byteLength(content);
    const page = markdownFilePage(pageIdForMarkdownFile(source.path, file), file, content);
    yield { page: withPrefix(page, source), sourceIndex, itemNumber: index + 1, bytesDone };
  }
}

/** Every page from `from` on (sources before from.sourceIndex are skipped whole, then from.itemsDone items). */
export async function* streamCorpusPages(
  sources: readonly CorpusSource[],
  from: BuildProgress = { sourceIndex: 0, itemsDone: 0 },
): AsyncGenerator<StreamedPage> {
  for (const [sourceIndex, source] of sources.entries()) {
    if (sourceIndex < from.sourceIndex) continue;
    const skip = sourceIndex === from.sourceIndex ? from.itemsDone : 0;
    yield* source.kind === 'pages-jsonl' ? jsonlPages(source, sourceIndex, skip) : markdownPages(source, sourceIndex, skip);
  }
}
