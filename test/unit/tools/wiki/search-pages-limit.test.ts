/** search_pages honours the `limit` argument a caller passes, within its documented bounds. */
import { describe, expect, it } from 'vitest';
import { invokeTool } from '../../../../src/tools/invoke-tool.js';
import { MAX_SEARCH_QUERY_CHARACTERS, MAX_SEARCH_RESULT_LIMIT, searchPagesTool } from '../../../../src/tools/wiki/search-pages-tool.js';
import { smallWikiIndex } from '../../../../src/testing/small-wiki-index.js';

const tool = searchPagesTool(smallWikiIndex());
const search = (input: Record<string, unknown>) => invokeTool(tool, input, { abortSignal: new AbortController().signal });
const pageIds = (result: Awaited<ReturnType<typeof search>>) =>
  (result.structuredContent as { results: { page_id: string }[] }).results.map((hit) => hit.page_id);

describe('search_pages limit', () => {
  it('returns at most `limit` pages, best first', async () => {
    const all = await search({ query: 'river' });
    expect(new Set(pageIds(all))).toEqual(new Set(['nile', 'amazon']));
    const one = await search({ query: 'river', limit: 1 });
    expect(one.isError).toBeFalsy();
    expect(pageIds(one)).toEqual(pageIds(all).slice(0, 1));
  });

  it('refuses a limit outside 1..MAX as invalid arguments the model can fix', async () => {
    for (const limit of [0, MAX_SEARCH_RESULT_LIMIT + 1, 2.5]) {
      const result = await search({ query: 'river', limit });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result)).toContain('limit');
    }
  });

  it('refuses a query longer than MAX_SEARCH_QUERY_CHARACTERS as invalid arguments, and serves one at the limit', async () => {
    const atLimit = `river ${'x'.repeat(MAX_SEARCH_QUERY_CHARACTERS - 6)}`;
    const served = await search({ query: atLimit });
    expect(served.isError).toBeFalsy();
    expect(pageIds(served)).toContain('nile');
    const refused = await search({ query: `${atLimit}y` });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused)).toContain('query');
    expect(JSON.stringify(refused)).toContain(String(MAX_SEARCH_QUERY_CHARACTERS));
  });
});
