import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusSourceFromPath } from '../../../src/wiki-search/corpus-sources.js';
import { buildDiskIndex } from '../../../src/wiki-search/disk/disk-index-builder.js';
import { DiskWikiIndex } from '../../../src/wiki-search/disk/disk-wiki-index.js';
import { loadCorpora } from '../../../src/wiki-search/corpus-sources.js';
import { WikiIndex } from '../../../src/wiki-search/wiki-index.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/wiki');
const queries = [
  'What do otters eat?',
  'lighthouse keepers wicks',
  'Japanese navy guns',
  'starter flour water',
  'twentieth century',
  'Mount Etna',
  'the of and',
];
let directory: string;
let memory: WikiIndex;
let disk: DiskWikiIndex;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'corral-disk-index-'));
  const sources = [await corpusSourceFromPath(join(fixtures, 'pages.jsonl')), await corpusSourceFromPath(join(fixtures, 'markdown'), 'md')];
  memory = WikiIndex.build(await loadCorpora(sources));
  await buildDiskIndex({ sources, outDir: join(directory, 'full') });
  disk = await DiskWikiIndex.open(join(directory, 'full'));
});
afterAll(() => {
  disk.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('disk wiki index: the in-memory index answers, from a file', () => {
  it('gives the same hits (ids, titles, scores, snippets) as the in-memory index', () => {
    expect(disk.pageCount).toBe(memory.pageCount);
    for (const query of queries) {
      expect(disk.search(query), query).toEqual(memory.search(query));
      expect(disk.search(query, { limit: 2 }), query).toEqual(memory.search(query, { limit: 2 }));
    }
    expect(disk.search('What do otters eat?')[0]?.page_id).toBe('river_otter');
    expect(disk.search('zzzunknownword')).toEqual([]);
  });

  it('lists and reads the same sections, the whole page as <id>:full, and null for unknown ids', () => {
    for (const { page_id } of memory.search('century', { limit: 50 })) {
      const sections = memory.viewSections(page_id);
      expect(disk.viewSections(page_id)).toEqual(sections);
      for (const { section_id } of sections ?? []) expect(disk.readSection(section_id)).toBe(memory.readSection(section_id));
      expect(disk.readSection(`${page_id}:full`)).toBe(memory.readSection(`${page_id}:full`));
    }
    expect(disk.viewSections('no_such_page')).toBeNull();
    expect(disk.readSection('no_such_page:full')).toBeNull();
    expect(disk.readSection('lighthouse:no_such_section')).toBeNull();
    expect(disk.readSection('nocolon')).toBeNull();
  });
});

describe('disk wiki index build', () => {
  it('resumes an interrupted build from its last batch and ends with the same index as one pass', async () => {
    const out = join(directory, 'resumed');
    const sources = [await corpusSourceFromPath(join(fixtures, 'pages.jsonl')), await corpusSourceFromPath(join(fixtures, 'markdown'), 'md')];
    const stopping = new AbortController();
    const interrupted = buildDiskIndex({ sources, outDir: out, batchPages: 2, signal: stopping.signal, onProgress: () => stopping.abort() });
    await expect(interrupted).rejects.toMatchObject({ code: 'WIKI_ERR_INDEX_INCOMPLETE' });
    await expect(DiskWikiIndex.open(out)).rejects.toMatchObject({ code: 'WIKI_ERR_INDEX_INCOMPLETE' });
    const resumed = await buildDiskIndex({ sources, outDir: out, batchPages: 2 });
    expect(resumed.resumedFromPages).toBe(2);
    expect(resumed.pageCount).toBe(memory.pageCount);
    const index = await DiskWikiIndex.open(out);
    try {
      for (const query of queries) expect(index.search(query)).toEqual(disk.search(query));
    } finally {
      index.close();
    }
  });

  it('starts over, rather than resuming, a build an older format left unfinished', async () => {
    const out = join(directory, 'older-partial');
    const sources = [await corpusSourceFromPath(join(fixtures, 'pages.jsonl'))];
    const stopping = new AbortController();
    await expect(buildDiskIndex({ sources, outDir: out, batchPages: 2, signal: stopping.signal, onProgress: () => stopping.abort() })).rejects.toMatchObject({
      code: 'WIKI_ERR_INDEX_INCOMPLETE',
    });
    // An older corral's partial file: its batch table has no page starts.
    const database = new Database(join(out, 'wiki-index.sqlite.partial'));
    database.exec("UPDATE meta SET value = '2' WHERE key = 'format_version'; ALTER TABLE batch DROP COLUMN page_starts;");
    database.close();
    const lines: string[] = [];
    const rebuilt = await buildDiskIndex({ sources, outDir: out, batchPages: 2, log: (line) => lines.push(line) });
    expect(rebuilt.resumedFromPages).toBe(0);
    expect(lines.join('\n')).toMatch(/starting over/);
    const index = await DiskWikiIndex.open(out);
    try {
      expect(index.search('What do otters eat?')[0]?.page_id).toBe('river_otter');
    } finally {
      index.close();
    }
  });

  it('names a page id used twice', async () => {
    const source = await corpusSourceFromPath(join(fixtures, 'pages.jsonl'));
    await expect(buildDiskIndex({ sources: [source, source], outDir: join(directory, 'twice') })).rejects.toMatchObject({ code: 'WIKI_ERR_DUPLICATE_PAGE_ID' });
  });
});

describe('disk wiki index errors', () => {
  it('a path without an index is WIKI_ERR_INDEX_NOT_FOUND, naming the command that builds one', async () => {
    await expect(DiskWikiIndex.open(join(directory, 'nothing-here'))).rejects.toMatchObject({
      code: 'WIKI_ERR_INDEX_NOT_FOUND',
      message: expect.stringContaining('corral wiki index') as string,
    });
  });

  it('a damaged file is WIKI_ERR_INDEX_FILE_INVALID', async () => {
    const damaged = join(directory, 'damaged');
    await buildDiskIndex({ sources: [await corpusSourceFromPath(join(fixtures, 'pages.jsonl'))], outDir: damaged });
    const file = join(damaged, 'wiki-index.sqlite');
    expect(existsSync(file)).toBe(true);
    writeFileSync(file, 'this is not an SQLite database, only some text where one was'.repeat(100));
    await expect(DiskWikiIndex.open(damaged)).rejects.toMatchObject({ code: 'WIKI_ERR_INDEX_FILE_INVALID' });
    const other = join(directory, 'other.sqlite');
    writeFileSync(other, '');
    await expect(DiskWikiIndex.open(other)).rejects.toMatchObject({ code: 'WIKI_ERR_INDEX_FILE_INVALID' });
  });
});
