/**
 * `corral bench search`: the wiki index on the real 629-page corpus (every wiki/*\/pages.jsonl under the
 * data directory) and on a synthetic 100,000-page corpus made from it. Quality is recall@k of the page
 * holding the answer on the SQuAD dev split; the peer, run in the same process, is a title-only matcher
 * (how the original WikiSearch indexes). Ratios: value / peer for recall, peer / value for times.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverCorpusSources, loadCorpora } from '../src/wiki-search/corpus-sources.js';
import { sectionPage } from '../src/wiki-search/page-sections.js';
import { clearTermCache } from '../src/text/terms.js';
import { WikiIndex } from '../src/wiki-search/wiki-index.js';
import type { WikiPage } from '../src/wiki-search/wiki-page.js';
import { loadRecallQuestions, measureRecall, type RecallQuestion } from './recall.js';
import { buildSyntheticCorpus } from './synthetic-corpus.js';
import { TitleOnlyMatcher } from './title-only-matcher.js';
import { type Figure, round } from './figure.js';
import { median } from './measure.js';

export interface SearchBenchOptions {
  dataDir: string;
  /** Pages in the synthetic scale corpus (default 100,000; 0 skips it). */
  syntheticPageCount?: number;
  /** Questions timed on the synthetic corpus (default 200). */
  scaleQuestionCount?: number;
  log?: (line: string) => void;
}

const DEV_QUESTIONS = 'qa/squad-v1.1-dev/dev.jsonl';
const REPEATS = 3;

function timeMs<T>(task: () => T): { value: T; ms: number } {
  const startedAt = performance.now();
  const value = task();
  return { value, ms: performance.now() - startedAt };
}

/** Median per-query latency after one untimed warm-up pass over the same questions. */
function queryP50(search: (query: string) => unknown, questions: readonly RecallQuestion[]): number {
  for (const question of questions) search(question.question);
  return median(questions.map((question) => timeMs(() => search(question.question)).ms));
}

function recallFigures(index: WikiIndex, titles: TitleOnlyMatcher, questions: readonly RecallQuestion[]): Figure[] {
  const ours = measureRecall((query, limit) => index.search(query, { limit }).map((hit) => hit.page_id), questions);
  const peer = measureRecall((query, limit) => titles.search(query, limit), questions);
  return ([1, 5, 10] as const).map((k) => {
    const value = ours[`recallAt${k}`];
    const peerValue = peer[`recallAt${k}`];
    return {
      name: `search.recall_at_${k}.dev`,
      value: round(value),
      unit: 'fraction',
      peer: 'title-only matcher',
      peerValue: round(peerValue),
      ratio: round(value / peerValue, 2),
      ...(k === 10 ? { target: '>= 0.95' } : {}),
    };
  });
}

function scaleFigures(realPages: readonly WikiPage[], pageCount: number, questions: readonly RecallQuestion[], log: (line: string) => void): Figure[] {
  const synthetic = buildSyntheticCorpus(
    realPages.map((page) => sectionPage(page)),
    { pageCount },
  );
  const label = pageCount % 1000 === 0 ? `${pageCount / 1000}k` : String(pageCount);
  const heapBefore = process.memoryUsage().heapUsed;
  clearTermCache();
  const built = timeMs(() => WikiIndex.build([...realPages, ...synthetic]));
  synthetic.length = 0;
  const heapMiB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  log(`search: ${built.value.pageCount} pages indexed in ${Math.round(built.ms)} ms`);
  const p50 = queryP50((query) => built.value.search(query), questions);
  return [
    { name: `search.query.p50.${label}`, value: round(p50), unit: 'ms', target: '<= 10' },
    { name: `search.index.build_ms.${label}`, value: Math.round(built.ms), unit: 'ms' },
    { name: `search.index.heap_mib.${label}`, value: Math.round(heapMiB), unit: 'MiB' },
  ];
}

export async function runSearchBench(options: SearchBenchOptions): Promise<Figure[]> {
  const log = options.log ?? (() => undefined);
  const pages = await loadCorpora(await discoverCorpusSources(options.dataDir));
  const questions = await loadRecallQuestions(join(options.dataDir, DEV_QUESTIONS));
  log(`search: ${pages.length} pages, ${questions.length} dev questions`);

  // Each build starts with an empty term memo, as after a restart; that is the cost `load` avoids.
  const builds = Array.from({ length: REPEATS }, () => {
    clearTermCache();
    return timeMs(() => WikiIndex.build(pages));
  });
  const index = builds[0]!.value;
  const buildMs = median(builds.map((build) => build.ms));
  const titles = TitleOnlyMatcher.build(pages);

  const directory = mkdtempSync(join(tmpdir(), 'corral-search-bench-'));
  let loadMs: number;
  try {
    const path = join(directory, 'index.wiki');
    index.save(path);
    loadMs = median(Array.from({ length: REPEATS }, () => timeMs(() => WikiIndex.load(path)).ms));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }

  const p50 = queryP50((query) => index.search(query), questions);
  const titleP50 = queryP50((query) => titles.search(query), questions);
  const figures: Figure[] = [
    ...recallFigures(index, titles, questions),
    {
      name: 'search.query.p50',
      value: round(p50),
      unit: 'ms',
      peer: 'title-only matcher',
      peerValue: round(titleP50),
      ratio: round(titleP50 / p50, 2),
      target: '<= 1',
    },
    { name: 'search.index.build_ms', value: Math.round(buildMs), unit: 'ms' },
    { name: 'search.index.load_ms', value: Math.round(loadMs), unit: 'ms', peer: 'build', peerValue: Math.round(buildMs), ratio: round(buildMs / loadMs, 1) },
  ];
  const syntheticPageCount = options.syntheticPageCount ?? 100_000;
  if (syntheticPageCount > 0) figures.push(...scaleFigures(pages, syntheticPageCount, questions.slice(0, options.scaleQuestionCount ?? 200), log));
  return figures;
}
