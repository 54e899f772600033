import { z } from 'zod';
import { type ToolDefinition, defineTool } from '../tool-definition.js';
import type { WikiLookup } from './wiki-lookup.js';

/** Pages returned per search unless the call passes `limit`, as in prime-environments' WikiSearch. */
export const SEARCH_RESULT_LIMIT = 10;
/** The most pages one call may ask for: enough to browse, small enough to keep a tool result readable. */
export const MAX_SEARCH_RESULT_LIMIT = 50;
/**
 * The longest query: a search costs CPU with every distinct word (in memory, a 20,000-character query of question
 * words held a 5,000-page index's process for 0.7 s), and one call must not stall the other sessions of a server.
 * A model's queries are names and phrases, far shorter; like Lucene's clause limit, a longer one is refused.
 */
export const MAX_SEARCH_QUERY_CHARACTERS = 1_000;

export function searchPagesTool(index: WikiLookup): ToolDefinition {
  return defineTool({
    name: 'search_pages',
    title: 'Search Wikipedia pages',
    description: [
      `Search the Wikipedia corpus and return the most relevant pages (${SEARCH_RESULT_LIMIT} unless limit says otherwise), best first, each with page_id, title, a relevance score and a short snippet of the best-matching passage.`,
      'Ranking uses both titles and page text, so a descriptive query ("river that flows through Cairo") works as well as a name.',
      'Next, call view_sections with a page_id to see the page outline, then read_section to read it.',
    ].join(' '),
    inputSchema: z.object({
      query: z.string().min(1).max(MAX_SEARCH_QUERY_CHARACTERS).describe(`Words to search for (at most ${MAX_SEARCH_QUERY_CHARACTERS} characters).`),
      limit: z.number().int().min(1).max(MAX_SEARCH_RESULT_LIMIT).optional().describe(`Most pages to return (default ${SEARCH_RESULT_LIMIT}, at most ${MAX_SEARCH_RESULT_LIMIT}).`),
    }),
    outputSchema: z.object({
      results: z.array(z.object({ page_id: z.string(), title: z.string(), score: z.number(), snippet: z.string() })),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async execute(input) {
      const hits = await index.search(input.query, { limit: input.limit ?? SEARCH_RESULT_LIMIT });
      const results = hits.map((hit) => ({ page_id: hit.page_id, title: hit.title, score: hit.score, snippet: hit.snippet }));
      const lines = results.map((hit, rank) => `${rank + 1}. ${hit.title} (page_id: ${hit.page_id}, score: ${hit.score.toFixed(2)})\n   ${hit.snippet}`);
      return { structuredContent: { results }, text: lines.length > 0 ? lines.join('\n') : `no pages match "${input.query}"` };
    },
  });
}
