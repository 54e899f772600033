/**
 * The child processes of `corral bench search` at scale, so each figure belongs to one process's memory:
 *   build <outDir> <corpus...>         builds a disk index; prints {buildMs, peakRssMiB, pages, passages}
 *   serve <indexDir> <questions.jsonl> <count> [no-agreement]  opens it read-only, times `count` questions after warming up on
 *                                      the next `count` (other questions, so a kept term list or cached page counts
 *                                      only as far as questions share words);
 *                                      prints {openMs, p50Ms, p99Ms, rssMiB, heapMiB, queries, top10Agreement, top10ScoresKept}:
 *                                      the share of top-10 pages (and of their scores) kept against ranking with every
 *                                      query term (no budget), unless no-agreement
 *   memory <questions.jsonl> <count> <corpus...>  the in-memory peer: builds WikiIndex from the corpora and times
 *                                      the same queries; prints {buildMs, p50Ms, p99Ms, rssMiB, heapMiB, peakRssMiB}
 * Usage: node --import tsx/esm benchmarks/search-disk-child.ts <mode> ...
 */
import { corpusSourceFromPath, loadCorpora } from '../src/wiki-search/corpus-sources.js';
import { buildDiskIndex } from '../src/wiki-search/disk/disk-index-builder.js';
import { DiskWikiIndex } from '../src/wiki-search/disk/disk-wiki-index.js';
import { WikiIndex } from '../src/wiki-search/wiki-index.js';
import { percentile } from './figure.js';
import { loadRecallQuestions } from './recall.js';

const MIB = 2 ** 20;
/** Questions ranked both ways for the agreement figure (exhaustive ranking is slow for common words). */
const AGREEMENT_QUESTIONS = 200;
const peakRssMiB = () => (process.resourceUsage().maxRSS * 1024) / MIB;

/** The timed questions and, after them in the file, as many others to warm up on. */
async function benchQuestions(questionsPath: string, count: number): Promise<BenchQuestions> {
  const questions = (await loadRecallQuestions(questionsPath, 2 * count)).map((question) => question.question);
  return { timed: questions.slice(0, count), warmUp: questions.slice(count) };
}

interface BenchQuestions {
  readonly timed: readonly string[];
  readonly warmUp: readonly string[];
}

function timeQueries(search: (query: string) => unknown, { timed, warmUp }: BenchQuestions): { p50Ms: number; p99Ms: number } {
  for (const query of warmUp) search(query);
  const samples = timed.map((query) => {
    const startedAt = performance.now();
    search(query);
    return performance.now() - startedAt;
  });
  return { p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
}

async function main(mode: string | undefined, rest: string[]): Promise<unknown> {
  if (mode === 'build') {
    const [outDir = '', ...corpora] = rest;
    const sources = await Promise.all(corpora.map((path) => corpusSourceFromPath(path)));
    const result = await buildDiskIndex({ sources, outDir, log: (line) => process.stderr.write(`${line}\n`) });
    return { buildMs: result.durationMs, peakRssMiB: peakRssMiB(), pages: result.pageCount, passages: result.passageCount };
  }
  if (mode === 'serve') {
    const [indexDir = '', questionsPath = '', count = '1000', agreement = 'agreement'] = rest;
    const questions = await benchQuestions(questionsPath, Number(count));
    const queries = questions.timed;
    const startedAt = performance.now();
    const index = await DiskWikiIndex.open(indexDir);
    const openMs = performance.now() - startedAt;
    const timing = timeQueries((query) => index.search(query), questions);
    const memory = process.memoryUsage();
    if (agreement === 'no-agreement') return { openMs, ...timing, rssMiB: memory.rss / MIB, heapMiB: memory.heapUsed / MIB, queries: queries.length };
    const exhaustive = await DiskWikiIndex.open(indexDir, { postingsBudget: Number.POSITIVE_INFINITY });
    let kept = 0;
    let scoresKept = 0;
    let total = 0;
    for (const query of queries.slice(0, AGREEMENT_QUESTIONS)) {
      const exactHits = exhaustive.search(query);
      const exact = new Set(exactHits.map((hit) => hit.page_id));
      const hits = index.search(query);
      kept += hits.filter((hit) => exact.has(hit.page_id)).length;
      // Scores as a multiset: copies of one paragraph tie, and which tied copy is listed is not a ranking error.
      const exactScores = exactHits.map((hit) => hit.score);
      for (const hit of hits) {
        const at = exactScores.indexOf(hit.score);
        if (at >= 0) exactScores.splice(at, 1);
      }
      scoresKept += exactHits.length - exactScores.length;
      total += exact.size;
    }
    return {
      openMs,
      ...timing,
      rssMiB: memory.rss / MIB,
      heapMiB: memory.heapUsed / MIB,
      queries: queries.length,
      top10Agreement: total === 0 ? 1 : kept / total,
      top10ScoresKept: total === 0 ? 1 : scoresKept / total,
    };
  }
  if (mode === 'memory') {
    const [questionsPath = '', count = '1000', ...corpora] = rest;
    const questions = await benchQuestions(questionsPath, Number(count));
    const pages = await loadCorpora(await Promise.all(corpora.map((path) => corpusSourceFromPath(path))));
    const startedAt = performance.now();
    const index = WikiIndex.build(pages);
    const buildMs = performance.now() - startedAt;
    pages.length = 0;
    const timing = timeQueries((query) => index.search(query), questions);
    const memory = process.memoryUsage();
    return { buildMs, ...timing, rssMiB: memory.rss / MIB, heapMiB: memory.heapUsed / MIB, peakRssMiB: peakRssMiB() };
  }
  throw new Error(`unknown mode ${mode ?? '(none)'}: build | serve | memory`);
}

process.stdout.write(`${JSON.stringify(await main(process.argv[2], process.argv.slice(3)))}\n`);
