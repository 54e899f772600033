/**
 * Where pages come from, and how several corpora become one page list. By default every
 * `wiki/<name>/pages.jsonl` under the data directory (CORRAL_DATA_DIR) is loaded with its ids as they
 * are, so question files that cite `page_id`s keep matching. Ids must be unique across the combined
 * set: a collision is an error naming both corpora and the id, and the fix is to give one source an
 * `idPrefix`, which turns its ids into `<prefix>/<id>` (never `:`, which separates section ids).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CorralError } from '../core/errors.js';
import { loadPagesJsonl } from './jsonl-corpus-loader.js';
import { loadMarkdownFolder } from './markdown-folder-loader.js';
import type { WikiPage } from './wiki-page.js';

export interface CorpusSource {
  /** A `pages.jsonl` file or a folder of `.md` files. */
  readonly path: string;
  readonly kind: 'pages-jsonl' | 'markdown-folder';
  /** Prepended to every id of this source as `<prefix>/<id>`, to keep ids unique when combining. */
  readonly idPrefix?: string;
}

/**
 * Decide the kind from the path: a file is a `pages.jsonl`; a directory holding `pages.jsonl` (a
 * `wiki/<name>/` folder of the data directory) means that file; any other directory is a folder of `.md` files.
 */
export async function corpusSourceFromPath(path: string, idPrefix?: string): Promise<CorpusSource> {
  const info = await stat(path).catch(() => null);
  if (info === null) throw new CorralError('WIKI_ERR_CORPUS_NOT_FOUND', `wiki corpus not found: ${path}`, { details: { path } });
  const pagesFile = join(path, 'pages.jsonl');
  const source: CorpusSource = !info.isDirectory()
    ? { path, kind: 'pages-jsonl' }
    : (await stat(pagesFile).catch(() => null))?.isFile()
      ? { path: pagesFile, kind: 'pages-jsonl' }
      : { path, kind: 'markdown-folder' };
  return idPrefix === undefined ? source : { ...source, idPrefix };
}

/** Every `wiki/*\/pages.jsonl` under `dataDir`, sorted by folder name. */
export async function discoverCorpusSources(dataDir: string): Promise<CorpusSource[]> {
  const wikiDir = join(dataDir, 'wiki');
  const entries = await readdir(wikiDir, { withFileTypes: true }).catch(() => null);
  if (entries === null) {
    throw new CorralError('WIKI_ERR_CORPUS_NOT_FOUND', `no wiki folder at ${wikiDir} (set CORRAL_DATA_DIR to the data directory)`, {
      details: { path: wikiDir },
    });
  }
  const sources: CorpusSource[] = [];
  // Code-unit order, not locale order: the same folders give the same combined index everywhere.
  for (const entry of entries.filter((candidate) => candidate.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(wikiDir, entry.name, 'pages.jsonl');
    const info = await stat(path).catch(() => null);
    if (info?.isFile()) sources.push({ path, kind: 'pages-jsonl' });
  }
  if (sources.length === 0) {
    throw new CorralError('WIKI_ERR_CORPUS_NOT_FOUND', `no wiki/*/pages.jsonl under ${dataDir}`, { details: { path: dataDir } });
  }
  return sources;
}

export async function loadCorpusSource(source: CorpusSource): Promise<WikiPage[]> {
  const pages = source.kind === 'markdown-folder' ? await loadMarkdownFolder(source.path) : await loadPagesJsonl(source.path);
  const prefix = source.idPrefix;
  if (prefix === undefined) return pages;
  if (prefix === '' || prefix.includes(':')) {
    throw new CorralError('WIKI_ERR_CORPUS_INVALID', `idPrefix for ${source.path} must be non-empty and contain no ":"`, { details: { path: source.path } });
  }
  return pages.map((page) => ({ ...page, id: `${prefix}/${page.id}` }));
}

/** Load and combine sources in order. Throws WIKI_ERR_DUPLICATE_PAGE_ID when two sources share an id. */
export async function loadCorpora(sources: readonly CorpusSource[]): Promise<WikiPage[]> {
  const sourceOfId = new Map<string, string>();
  const combined: WikiPage[] = [];
  for (const source of sources) {
    for (const page of await loadCorpusSource(source)) {
      const earlier = sourceOfId.get(page.id);
      if (earlier !== undefined) {
        throw new CorralError('WIKI_ERR_DUPLICATE_PAGE_ID', `page id "${page.id}" occurs in both ${earlier} and ${source.path}; give one of them an idPrefix`, {
          details: { pageId: page.id, paths: [earlier, source.path] },
        });
      }
      sourceOfId.set(page.id, source.path);
      combined.push(page);
    }
  }
  return combined;
}
