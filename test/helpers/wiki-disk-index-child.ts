/**
 * A process that opens a wiki index the way `corral serve`, `corral mcp` and `corral worker` do (loadWikiIndex with
 * --corpus paths) and answers the wiki tools: prints one JSON line {pid, backend, answers} where answers are the
 * tools' structuredContent for each query (search_pages, then view_sections and read_section of the top page).
 * Usage: node --import tsx/esm test/helpers/wiki-disk-index-child.ts '<json: {corpus: string[], queries: string[]}>'
 */
import { loadWikiIndex } from '../../src/cli/commands/wiki-index-loading.js';
import { invokeTool } from '../../src/tools/invoke-tool.js';
import { wikiTools } from '../../src/tools/wiki/wiki-toolset.js';
import { DiskWikiIndex } from '../../src/wiki-search/disk/disk-wiki-index.js';

const { corpus, queries } = JSON.parse(process.argv[2] ?? '{}') as { corpus: string[]; queries: string[] };
const index = await loadWikiIndex({ corpusPaths: corpus, log: (line) => process.stderr.write(`${line}\n`) });
if (index === undefined) throw new Error('no wiki index');
const [search, view, read] = wikiTools(index);
const call = async (tool: typeof search, input: Record<string, unknown>) =>
  (await invokeTool(tool!, input, { abortSignal: new AbortController().signal })).structuredContent as Record<string, unknown>;
const answers = [];
for (const query of queries) {
  const hits = await call(search, { query });
  const top = (hits.results as { page_id: string }[])[0]?.page_id;
  const sections = top === undefined ? null : await call(view, { page_id: top });
  const firstSection = (sections?.sections as { section_id: string }[] | undefined)?.[0]?.section_id;
  const text = firstSection === undefined ? null : await call(read, { section_id: firstSection });
  answers.push({ hits, sections, text });
}
process.stdout.write(`${JSON.stringify({ pid: process.pid, backend: index instanceof DiskWikiIndex ? 'disk' : 'memory', answers })}\n`);
