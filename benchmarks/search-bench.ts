/**
 * `corral bench search`: the wiki index on the real 629-page corpus (every wiki/*\/pages.jsonl under the
 * data directory) with the in-memory index and the disk index, and on synthetic 100,000 and 1,000,000-page corpora
 * with the disk index (search-bench-disk.ts; the in-memory index is the peer at 100,000). Quality is recall@k of the page
 * holding the answer on the SQuAD dev split; the peer, run in the same process, is a title-only matcher
 * (how the original WikiSearch indexes). Ratios: value / peer for recall, peer / value for times.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corralCacheDirectory } from '../src/core/cache-directory.js';
import { type CorpusSource, discoverCorpusSources, loadCorpora } from '../src/wiki-search/corpus-sources.js';
import { buildDiskIndex } from '../src/wiki-search/disk/disk-index-builder.js';
import { DiskWikiIndex } from '../src/wiki-search/disk/disk-wiki-index.js';
import { diskScaleFigures } from './search-bench-disk.js';
import { clearTermCache } from '../src/text/terms.js';
import { WikiIndex } from '../src/wiki-search/wiki-index.js';
import { loadRecallQuestions, measureRecall, type RecallQuestion } from './recall.js';
import { TitleOnlyMatcher } from './title-only-matcher.js';
import { type Figure, round } from './figure.js';
import { median } from './measure.js';

export interface SearchBenchOptions {
  dataDir: string;
  /** Synthetic corpus sizes indexed on disk (default 100,000 and 1,000,000; empty skips the scale figures). */
  scalePageCounts?: readonly number[];
  /** The size at which the in-memory index runs as the peer (default 100,000; 0: none). */
  memoryPeerPages?: number;
  /** Questions timed at scale (default 1,000). */
  scaleQuestionCount?: number;
  /** corral's cache directory: the synthetic corpora and their disk indexes are kept there between runs. */
  cacheDir?: string;
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

/** The disk index on the real corpus: its dev recall and query p50, against the in-memory index's p50. */
async function diskDevFigures(sources: readonly CorpusSource[], questions: readonly RecallQuestion[], memoryP50: number): Promise<Figure[]> {
  const directory = mkdtempSync(join(tmpdir(), 'corral-search-bench-disk-'));
  try {
    await buildDiskIndex({ sources, outDir: directory });
    const disk = await DiskWikiIndex.open(directory);
    try {
      const report = measureRecall((query, limit) => disk.search(query, { limit }).map((hit) => hit.page_id), questions);
      const p50 = queryP50((query) => disk.search(query), questions);
      return [
        { name: 'search.disk.recall_at_10.dev', value: round(report.recallAt10), unit: 'fraction', target: '>= 0.99' },
        { name: 'search.disk.recall_at_1.dev', value: round(report.recallAt1), unit: 'fraction' },
        {
          name: 'search.disk.query.p50',
          value: round(p50),
          unit: 'ms',
          peer: 'in-memory index',
          peerValue: round(memoryP50),
          ratio: round(memoryP50 / p50, 2),
        },
      ];
    } finally {
      disk.close();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
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
  figures.push(...(await diskDevFigures(await discoverCorpusSources(options.dataDir), questions, p50)));
  const scalePageCounts = options.scalePageCounts ?? [100_000, 1_000_000];
  if (scalePageCounts.length > 0) {
    figures.push(
      ...(await diskScaleFigures({
        cacheDir: options.cacheDir ?? corralCacheDirectory(undefined),
        realSources: await discoverCorpusSources(options.dataDir),
        realPages: pages,
        questionsPath: join(options.dataDir, DEV_QUESTIONS),
        pageCounts: scalePageCounts,
        memoryPeerPages: options.memoryPeerPages ?? 100_000,
        queryCount: options.scaleQuestionCount ?? 1_000,
        log,
      })),
    );
  }
  return figures;
}
