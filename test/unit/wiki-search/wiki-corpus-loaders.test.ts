import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CorralError } from '../../../src/core/errors.js';
import { corpusSourceFromPath, discoverCorpusSources, loadCorpora } from '../../../src/wiki-search/corpus-sources.js';
import { loadPagesJsonl } from '../../../src/wiki-search/jsonl-corpus-loader.js';
import { loadMarkdownFolder } from '../../../src/wiki-search/markdown-folder-loader.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/wiki');

async function errorOf(promise: Promise<unknown>): Promise<CorralError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CorralError.isInstance(error)) throw new Error(`expected a CorralError, got ${String(error)}`);
  return error;
}

describe('wiki corpus loaders', () => {
  it('reads pages.jsonl records {id, title, content} in file order', async () => {
    const pages = await loadPagesJsonl(resolve(fixtures, 'pages.jsonl'));
    expect(pages.map((page) => page.id)).toEqual(['river_otter', 'lighthouse', 'volcano', 'ise_class_battleship', 'sourdough']);
    expect(pages[2]).toMatchObject({ title: 'Volcano' });
    expect(pages[2]?.content).toContain('Mount Etna');
  });

  it('names the file and line of a malformed JSON line', async () => {
    const error = await errorOf(loadPagesJsonl(resolve(fixtures, 'malformed.jsonl')));
    expect(error.code).toBe('WIKI_ERR_CORPUS_INVALID');
    expect(error.message).toMatch(/malformed\.jsonl:3: not valid JSON/);
    expect(error.details).toMatchObject({ lineNumber: 3 });
  });

  it('rejects a record without content, and a repeated id with both line numbers', async () => {
    const missing = await errorOf(loadPagesJsonl(resolve(fixtures, 'missing-content.jsonl')));
    expect(missing.code).toBe('WIKI_ERR_CORPUS_INVALID');
    expect(missing.message).toMatch(/:1: field "content" \(markdown\) or "text" \(plain, a paragraph a line\) must be a string/);
    const duplicate = await errorOf(loadPagesJsonl(resolve(fixtures, 'duplicate.jsonl')));
    expect(duplicate.code).toBe('WIKI_ERR_DUPLICATE_PAGE_ID');
    expect(duplicate.message).toMatch(/:3: page id "volcano" already used on line 1/);
  });

  it('reports a missing path as WIKI_ERR_CORPUS_NOT_FOUND', async () => {
    expect((await errorOf(loadPagesJsonl(resolve(fixtures, 'nope.jsonl')))).code).toBe('WIKI_ERR_CORPUS_NOT_FOUND');
    expect((await errorOf(loadMarkdownFolder(resolve(fixtures, 'nope')))).code).toBe('WIKI_ERR_CORPUS_NOT_FOUND');
    expect((await errorOf(discoverCorpusSources(resolve(fixtures, 'nope')))).code).toBe('WIKI_ERR_CORPUS_NOT_FOUND');
  });

  it('reads a folder of .md files: id from the file path, title from the first "# " heading or the file name', async () => {
    const pages = await loadMarkdownFolder(resolve(fixtures, 'markdown'));
    expect(pages.map((page) => [page.id, page.title])).toEqual([
      ['tea_ceremony', 'The Japanese tea ceremony'],
      ['glacier', 'glacier'],
      ['history_printing_press', 'Printing press'],
    ]);
  });

  it('combines corpora, detects id collisions, and resolves them with an idPrefix', async () => {
    const jsonl = await corpusSourceFromPath(resolve(fixtures, 'pages.jsonl'));
    const folder = await corpusSourceFromPath(resolve(fixtures, 'markdown'));
    expect(folder.kind).toBe('markdown-folder');
    expect(await corpusSourceFromPath(fixtures)).toEqual({ path: resolve(fixtures, 'pages.jsonl'), kind: 'pages-jsonl' });
    expect(await loadCorpora([jsonl, folder])).toHaveLength(8);

    const colliding = await corpusSourceFromPath(resolve(fixtures, 'collides-with-pages.jsonl'));
    const error = await errorOf(loadCorpora([jsonl, colliding]));
    expect(error.code).toBe('WIKI_ERR_DUPLICATE_PAGE_ID');
    expect(error.message).toMatch(/"volcano" occurs in both .*pages\.jsonl and .*collides-with-pages\.jsonl; give one of them an idPrefix/);

    const prefixed = await loadCorpora([jsonl, await corpusSourceFromPath(colliding.path, 'band')]);
    expect(prefixed.map((page) => page.id)).toContain('band/volcano');
  });
});
