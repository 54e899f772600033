/**
 * `corral bench search` at scale: synthetic Wikipedia-shaped corpora (benchmarks/synthetic-corpus.ts, with a long
 * tail of made-up words) written once to corral's cache directory, indexed on disk by a child process (build time,
 * its peak RSS, size on disk), then served by two children in turn that open the index read-only and time dev
 * questions (p50, p99, RSS): the first finds the file as the OS page cache has it (cold after a build elsewhere or a
 * while idle: this machine's memory reclaim drops cold file pages), the second finds what the first read cached, as
 * a server does once it has served a while; the targets are read against the second, and both are reported. The
 * peer, in the same run, is the in-memory index built from the same corpus in a third child.
 * A finished index is reused by later runs (its build figures are read back from build.json beside it).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../src/core/project-root.js';
import type { CorpusSource } from '../src/wiki-search/corpus-sources.js';
import { DISK_INDEX_FORMAT_VERSION } from '../src/wiki-search/disk/disk-index-layout.js';
import { sectionPage } from '../src/wiki-search/page-sections.js';
import type { WikiPage } from '../src/wiki-search/wiki-page.js';
import { type Figure, round } from './figure.js';
import { syntheticCorpusFile } from './synthetic-corpus-file.js';

const execFileAsync = promisify(execFile);
const MIB = 2 ** 20;
const LONG_TAIL_WORDS_PER_PAGE = 20;
const LONG_TAIL_VOCABULARY_PER_PAGE = 10;

export interface DiskScaleOptions {
  readonly cacheDir: string;
  readonly realSources: readonly CorpusSource[];
  readonly realPages: readonly WikiPage[];
  readonly questionsPath: string;
  readonly pageCounts: readonly number[];
  /** Pages at which the in-memory index runs as the peer (0: none). */
  readonly memoryPeerPages: number;
  readonly queryCount: number;
  readonly log: (line: string) => void;
}

interface BuildFigures {
  buildMs: number;
  peakRssMiB: number;
  pages: number;
  passages: number;
}

interface ServeFigures {
  top10Agreement?: number;
  top10ScoresKept?: number;
  p50Ms: number;
  p99Ms: number;
  rssMiB: number;
  openMs: number;
}

async function runChild<T>(mode: string, parameters: readonly string[]): Promise<T> {
  const script = join(projectRoot(), 'benchmarks', 'search-disk-child.ts');
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx/esm', script, mode, ...parameters], {
    cwd: projectRoot(),
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as T;
}

function directoryBytes(directory: string): number {
  return readdirSync(directory).reduce((total, name) => total + statSync(join(directory, name)).size, 0);
}

const labelOf = (pageCount: number) => (pageCount % 1_000_000 === 0 ? `${pageCount / 1_000_000}m` : `${Math.round(pageCount / 1000)}k`);

async function corpusPaths(options: DiskScaleOptions, pageCount: number): Promise<string[]> {
  const sectioned = options.realPages.map((page) => sectionPage(page));
  const synthetic = await syntheticCorpusFile(join(options.cacheDir, 'bench-search'), sectioned, {
    pageCount,
    longTailWordsPerPage: LONG_TAIL_WORDS_PER_PAGE,
    longTailVocabulary: LONG_TAIL_VOCABULARY_PER_PAGE * pageCount,
  });
  return [...options.realSources.map((source) => source.path), synthetic];
}

async function builtIndex(options: DiskScaleOptions, pageCount: number, corpora: readonly string[]): Promise<{ directory: string; build: BuildFigures }> {
  // Named by format version: an index of an older format is refused on open, and is rebuilt beside it.
  const directory = join(options.cacheDir, 'bench-search', `index-${labelOf(pageCount)}-v${DISK_INDEX_FORMAT_VERSION}`);
  const figuresFile = join(directory, 'build.json');
  if (existsSync(join(directory, 'wiki-index.sqlite')) && existsSync(figuresFile)) {
    options.log(`search: reusing the disk index in ${directory}`);
    return { directory, build: JSON.parse(readFileSync(figuresFile, 'utf8')) as BuildFigures };
  }
  options.log(`search: building the ${labelOf(pageCount)} disk index in ${directory} (resumes an unfinished one)`);
  const build = await runChild<BuildFigures>('build', [directory, ...corpora]);
  writeFileSync(figuresFile, JSON.stringify(build));
  return { directory, build };
}

export async function diskScaleFigures(options: DiskScaleOptions): Promise<Figure[]> {
  const served: { pageCount: number; directory: string; build: BuildFigures; first: ServeFigures; serve: ServeFigures; corpora: string[] }[] = [];
  for (const pageCount of options.pageCounts) {
    const corpora = await corpusPaths(options, pageCount);
    const { directory, build } = await builtIndex(options, pageCount, corpora);
    const first = await runChild<ServeFigures>('serve', [directory, options.questionsPath, String(options.queryCount), 'no-agreement']);
    const serve = await runChild<ServeFigures>('serve', [directory, options.questionsPath, String(options.queryCount)]);
    served.push({ pageCount, directory, build, corpora, first, serve });
  }
  // The in-memory peer runs after every disk index has served: its multi-GiB process pushes an index out of the OS
  // page cache, and a disk index measured right after it would read from disk what a serving process has cached.
  const peerRun = served.find((run) => run.pageCount === options.memoryPeerPages);
  let peer: (ServeFigures & { buildMs: number; peakRssMiB: number }) | undefined;
  if (peerRun !== undefined) {
    options.log(`search: building the in-memory peer at ${labelOf(peerRun.pageCount)}`);
    peer = await runChild('memory', [options.questionsPath, String(options.queryCount), ...peerRun.corpora]);
  }
  const figures: Figure[] = [];
  for (const { pageCount, directory, build, first, serve } of served) {
    const label = labelOf(pageCount);
    const compare = (value: number, peerValue: number | undefined) =>
      peer !== undefined && pageCount === options.memoryPeerPages && peerValue !== undefined
        ? { peer: 'in-memory index (MiniSearch)', peerValue: round(peerValue), ratio: round(peerValue / value, 2) }
        : {};
    const targets = pageCount >= 1_000_000 ? { p50: '<= 5', p99: '<= 50', rss: '<= 500', build: '<= 900000' } : { p50: '<= 2' };
    figures.push(
      { name: `search.disk.query.p50.${label}`, value: round(serve.p50Ms), unit: 'ms', ...compare(serve.p50Ms, peer?.p50Ms), target: targets.p50 },
      {
        name: `search.disk.query.p99.${label}`,
        value: round(serve.p99Ms),
        unit: 'ms',
        ...compare(serve.p99Ms, peer?.p99Ms),
        ...(targets.p99 ? { target: targets.p99 } : {}),
      },
      {
        name: `search.disk.serve_rss_mib.${label}`,
        value: Math.round(serve.rssMiB),
        unit: 'MiB',
        ...compare(serve.rssMiB, peer?.rssMiB),
        ...(targets.rss ? { target: targets.rss } : {}),
      },
      { name: `search.disk.query.p50.${label}.first_process`, value: round(first.p50Ms), unit: 'ms' },
      { name: `search.disk.query.p99.${label}.first_process`, value: round(first.p99Ms), unit: 'ms' },
      { name: `search.disk.open_ms.${label}`, value: round(serve.openMs), unit: 'ms' },
      ...(serve.top10Agreement === undefined
        ? []
        : [
            { name: `search.disk.top10_pages_kept_vs_every_term.${label}`, value: round(serve.top10Agreement), unit: 'fraction' },
            { name: `search.disk.top10_scores_kept_vs_every_term.${label}`, value: round(serve.top10ScoresKept ?? 0), unit: 'fraction' },
          ]),
      {
        name: `search.disk.build_ms.${label}`,
        value: Math.round(build.buildMs),
        unit: 'ms',
        ...compare(build.buildMs, peer?.buildMs),
        ...(targets.build ? { target: targets.build } : {}),
      },
      { name: `search.disk.build_peak_rss_mib.${label}`, value: Math.round(build.peakRssMiB), unit: 'MiB', ...compare(build.peakRssMiB, peer?.peakRssMiB) },
      { name: `search.disk.size_mib.${label}`, value: Math.round(directoryBytes(directory) / MIB), unit: 'MiB' },
      { name: `search.disk.passages.${label}`, value: build.passages, unit: 'passages' },
    );
  }
  return figures;
}
