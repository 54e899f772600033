/**
 * The call every throughput figure makes: `search_pages` over corral/testing's three-page wiki index is a real
 * corral tool whose own work is a few microseconds, so the figures measure the MCP and HTTP layers, not search
 * ranking (`corral bench search` does that).
 */
export const TRIVIAL_TOOL = { name: 'search_pages', arguments: { query: 'river Cairo' } } as const;
