import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusSourceFromPath, loadCorpora } from '../../../src/wiki-search/corpus-sources.js';
import { occurrences } from '../../../src/wiki-search/disk/bm25-scorer.js';
import { buildDiskIndex } from '../../../src/wiki-search/disk/disk-index-builder.js';
import { DiskWikiIndex } from '../../../src/wiki-search/disk/disk-wiki-index.js';
import { WikiIndex } from '../../../src/wiki-search/wiki-index.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/wiki');
let directory: string;
let memory: WikiIndex;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'corral-disk-ranking-'));
  memory = WikiIndex.build(await loadCorpora([await corpusSourceFromPath(join(fixtures, 'pages.jsonl'))]));
  await buildDiskIndex({ sources: [await corpusSourceFromPath(join(fixtures, 'pages.jsonl'))], outDir: join(directory, 'fixture') });
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('disk wiki index ranking paths', () => {
  it('counts a term only as a whole token of the passage terms', () => {
    expect(occurrences('cat cats concat cat scat cat', 'cat')).toBe(3);
    expect(occurrences('cats', 'cat')).toBe(0);
    expect(occurrences('', 'cat')).toBe(0);
    expect(occurrences('cat', '')).toBe(0);
  });

  it('scores exactly when only the rarest terms pick candidates, and when no term fits the budget', async () => {
    for (const postingsBudget of [1, 3]) {
      const index = await DiskWikiIndex.open(join(directory, 'fixture'), { postingsBudget });
      try {
        for (const query of ['What do otters eat?', 'lighthouse keepers wicks', 'the river of the century', 'twentieth century navy']) {
          const expected = new Map(memory.search(query, { limit: 50 }).map((hit) => [hit.page_id, hit.score]));
          const hits = index.search(query);
          expect(hits.length, query).toBeGreaterThan(0);
          // Candidates may be fewer than exhaustive, but every score given is the page's exact score.
          for (const hit of hits) expect(hit.score, `${query}: ${hit.page_id}`).toBe(expected.get(hit.page_id));
        }
        expect(index.search('What do otters eat?')[0]?.page_id).toBe('river_otter');
      } finally {
        index.close();
      }
    }
  });

  it('answers the same with term lists kept across queries as without, however small the kept budget', async () => {
    const queries = ['What do otters eat?', 'lighthouse keepers wicks', 'the river of the century', 'twentieth century navy', 'What do otters eat?'];
    const uncached = await DiskWikiIndex.open(join(directory, 'fixture'), { termCachePostings: 0 });
    const expected = queries.map((query) => uncached.search(query, { limit: 20 }));
    uncached.close();
    for (const termCachePostings of [3, 40, undefined]) {
      const index = await DiskWikiIndex.open(join(directory, 'fixture'), { termCachePostings });
      try {
        // Twice over, so the second round reads kept lists (or, with a tiny budget, lists evicted in between).
        for (let round = 0; round < 2; round += 1)
          expect(
            queries.map((query) => index.search(query, { limit: 20 })),
            `budget ${termCachePostings}`,
          ).toEqual(expected);
      } finally {
        index.close();
      }
    }
    expect(expected[0]?.[0]?.page_id).toBe('river_otter');
  });

  it('reads a hit passage by its characters: snippets after astral characters (two UTF-16 units each) are whole', async () => {
    const corpus = join(directory, 'astral.jsonl');
    const emoji = '🦦'.repeat(40);
    const pages = [
      {
        id: 'astral',
        title: 'Astral 𝔘nicode page',
        content: `# Astral page\n\n${emoji} first paragraph about emoji.\n\nSecond paragraph about quokkas living on Rottnest island.`,
      },
      { id: 'plain', title: 'Plain page', content: '# Plain page\n\nNothing about that animal here, only islands.' },
    ];
    writeFileSync(corpus, pages.map((page) => JSON.stringify(page)).join('\n'));
    const source = await corpusSourceFromPath(corpus);
    await buildDiskIndex({ sources: [source], outDir: join(directory, 'astral') });
    const index = await DiskWikiIndex.open(join(directory, 'astral'));
    try {
      const expected = WikiIndex.build(await loadCorpora([source])).search('quokkas Rottnest island');
      expect(expected[0]?.snippet).toContain('Second paragraph about quokkas');
      expect(index.search('quokkas Rottnest island')).toEqual(expected);
    } finally {
      index.close();
    }
  });

  it('an index whose build batches do not cover every passage is WIKI_ERR_INDEX_FILE_INVALID', async () => {
    const out = join(directory, 'lengths-damaged');
    await buildDiskIndex({ sources: [await corpusSourceFromPath(join(fixtures, 'pages.jsonl'))], outDir: out, batchPages: 1 });
    const database = new Database(join(out, 'wiki-index.sqlite'));
    database.prepare('DELETE FROM batch WHERE first_number = (SELECT MAX(first_number) FROM batch)').run();
    database.close();
    await expect(DiskWikiIndex.open(out)).rejects.toMatchObject({
      code: 'WIKI_ERR_INDEX_FILE_INVALID',
      message: expect.stringContaining('batches') as string,
    });
  });

  it("an index whose batches list their pages' first passages out of order or cut short is WIKI_ERR_INDEX_FILE_INVALID", async () => {
    for (const [name, damage] of [
      ['pages-swapped', 'UPDATE batch SET page_starts = (SELECT page_starts FROM batch ORDER BY first_number DESC LIMIT 1) WHERE first_number = 1'],
      ['pages-cut', 'UPDATE batch SET page_starts = substr(page_starts, 1, 5) WHERE first_number = 1'],
    ] as const) {
      const out = join(directory, name);
      await buildDiskIndex({ sources: [await corpusSourceFromPath(join(fixtures, 'pages.jsonl'))], outDir: out, batchPages: 2 });
      const database = new Database(join(out, 'wiki-index.sqlite'));
      database.prepare(damage).run();
      database.close();
      await expect(DiskWikiIndex.open(out), name).rejects.toMatchObject({
        code: 'WIKI_ERR_INDEX_FILE_INVALID',
        message: expect.stringContaining('page') as string,
      });
    }
  });
});
