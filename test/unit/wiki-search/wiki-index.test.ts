import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPagesJsonl } from '../../../src/wiki-search/jsonl-corpus-loader.js';
import { WikiIndex } from '../../../src/wiki-search/wiki-index.js';
import type { WikiPage } from '../../../src/wiki-search/wiki-page.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/wiki');
let pages: WikiPage[];
let index: WikiIndex;

beforeAll(async () => {
  pages = await loadPagesJsonl(resolve(fixtures, 'pages.jsonl'));
  index = WikiIndex.build(pages);
});

const topPage = (query: string) => index.search(query)[0]?.page_id;

describe('WikiIndex search', () => {
  it('ranks the obvious page first, matching body text as well as titles', () => {
    expect(index.pageCount).toBe(5);
    expect(topPage('What do otters eat?')).toBe('river_otter');
    expect(topPage('Which lamps replaced oil lamps in lighthouses?')).toBe('lighthouse');
    expect(topPage('Where is Mount Etna?')).toBe('volcano');
    expect(topPage('How fast were the Japanese dreadnoughts?')).toBe('ise_class_battleship');
    expect(topPage('wild yeast fermenting')).toBe('sourdough');
  });

  it('stems words so inflected forms meet', () => {
    expect(topPage('hunting otter furs')).toBe('river_otter');
  });

  it('returns the WikiSearch hit shape with a snippet from the best passage, best first', () => {
    const hits = index.search('Etna Sicily active volcano', { limit: 3 });
    expect(hits[0]).toMatchObject({ page_id: 'volcano', title: 'Volcano' });
    expect(hits[0]?.snippet).toContain('Mount Etna in Sicily');
    expect(hits[0]?.snippet.length).toBeLessThanOrEqual(240);
    const scores = hits.map((hit) => hit.score);
    expect([...scores].sort((left, right) => right - left)).toEqual(scores);
  });

  it('honours the limit and returns nothing for stop words or unknown words', () => {
    expect(index.search('the', { limit: 10 })).toEqual([]);
    expect(index.search('zzyzx quux')).toEqual([]);
    expect(index.search('twentieth century', { limit: 1 })).toHaveLength(1);
  });

  it('shows normalised WikiText titles', () => {
    expect(index.search('Ise class battleship')[0]?.title).toBe('Ise-class battleship');
  });
});

describe('WikiIndex sections', () => {
  it('lists sections and reads them, with <page_id>:full for the whole page', () => {
    expect(index.viewSections('lighthouse')).toEqual([
      { section_id: 'lighthouse:lighthouse', section_name: 'Lighthouse' },
      { section_id: 'lighthouse:history', section_name: 'History' },
      { section_id: 'lighthouse:modern_era', section_name: 'Modern era' },
      { section_id: 'lighthouse:keepers', section_name: 'Keepers' },
    ]);
    expect(index.readSection('lighthouse:keepers')).toBe('## Keepers\n\nKeepers lived in the tower and trimmed the wicks.');
    expect(index.readSection('lighthouse:full')).toMatch(/^# Lighthouse\n\nA lighthouse is a tower[\s\S]*trimmed the wicks\.$/);
    expect(index.viewSections('river_otter')?.map((section) => section.section_name)).toEqual(['Paragraphs 1–3', 'Paragraph 4']);
  });

  it('answers unknown ids with null', () => {
    expect(index.viewSections('no_such_page')).toBeNull();
    expect(index.readSection('no_such_page:full')).toBeNull();
    expect(index.readSection('lighthouse:no_such_section')).toBeNull();
    expect(index.readSection('lighthouse')).toBeNull();
  });
});

describe('WikiIndex build', () => {
  it('refuses two pages with one id', () => {
    const page = { id: 'twin', title: 'Twin', content: 'Same.' };
    expect(() => WikiIndex.build([page, page])).toThrow(expect.objectContaining({ code: 'WIKI_ERR_DUPLICATE_PAGE_ID' }) as Error);
  });
});
