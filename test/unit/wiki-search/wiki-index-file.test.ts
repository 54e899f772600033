import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorralError } from '../../../src/core/errors.js';
import { corpusSourceFromPath } from '../../../src/wiki-search/corpus-sources.js';
import { loadPagesJsonl } from '../../../src/wiki-search/jsonl-corpus-loader.js';
import { openWikiIndex } from '../../../src/wiki-search/open-wiki-index.js';
import { WikiIndex } from '../../../src/wiki-search/wiki-index.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/wiki');
const queries = ['What do otters eat?', 'lighthouse keepers wicks', 'Japanese navy guns', 'starter flour water', 'twentieth century'];
let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'corral-wiki-index-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('WikiIndex save and load', () => {
  it('round-trips: the loaded index answers exactly as the built one', async () => {
    const built = WikiIndex.build(await loadPagesJsonl(resolve(fixtures, 'pages.jsonl')));
    const path = join(directory, 'index.wiki');
    built.save(path);
    const loaded = WikiIndex.load(path, { corpusFingerprint: built.corpusFingerprint });
    expect(loaded).not.toBeNull();
    expect(loaded?.pageCount).toBe(built.pageCount);
    for (const query of queries) expect(loaded?.search(query)).toEqual(built.search(query));
    for (const pageId of ['lighthouse', 'river_otter', 'ise_class_battleship']) {
      expect(loaded?.viewSections(pageId)).toEqual(built.viewSections(pageId));
      for (const { section_id } of built.viewSections(pageId) ?? []) expect(loaded?.readSection(section_id)).toBe(built.readSection(section_id));
    }
  });

  it('treats a missing file, another corpus, other settings or another format version as stale (null)', async () => {
    const built = WikiIndex.build(await loadPagesJsonl(resolve(fixtures, 'pages.jsonl')));
    const path = join(directory, 'index.wiki');
    expect(WikiIndex.load(path)).toBeNull();
    built.save(path);
    expect(WikiIndex.load(path, { corpusFingerprint: 'pages:something-else' })).toBeNull();
    expect(WikiIndex.load(path, { titleWeight: 5 })).toBeNull();
    const lines = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, [lines[0]?.replace('"formatVersion":1', '"formatVersion":0'), ...lines.slice(1)].join('\n'));
    expect(WikiIndex.load(path)).toBeNull();
  });

  it('throws WIKI_ERR_INDEX_FILE_INVALID for a damaged file', async () => {
    const built = WikiIndex.build(await loadPagesJsonl(resolve(fixtures, 'pages.jsonl')));
    const path = join(directory, 'index.wiki');
    built.save(path);
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 2000));
    expect(() => WikiIndex.load(path)).toThrow(expect.objectContaining({ code: 'WIKI_ERR_INDEX_FILE_INVALID' }) as CorralError);
  });

  it('openWikiIndex builds once, then loads; a changed corpus file is detected and rebuilt', async () => {
    const corpus = join(directory, 'pages.jsonl');
    copyFileSync(resolve(fixtures, 'pages.jsonl'), corpus);
    const options = { sources: [await corpusSourceFromPath(corpus)], indexPath: join(directory, 'index.wiki') };
    const first = await openWikiIndex(options);
    expect(first.source).toBe('built');
    const second = await openWikiIndex(options);
    expect(second.source).toBe('loaded');
    expect(second.index.search('otters')).toEqual(first.index.search('otters'));

    writeFileSync(corpus, `${readFileSync(corpus, 'utf8')}${JSON.stringify({ id: 'comet', title: 'Comet', content: '# Comet\n\nAn icy body.' })}\n`);
    const third = await openWikiIndex(options);
    expect(third.source).toBe('built');
    expect(third.index.pageCount).toBe(6);
    expect(third.index.search('icy body')[0]?.page_id).toBe('comet');
  });
});
