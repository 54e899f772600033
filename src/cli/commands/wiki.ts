/**
 * `corral wiki index <corpus...> --out <dir>`: builds the disk wiki index (one SQLite file) that `--corpus <dir>` then
 * opens in every process (serve, mcp, eval, workers) without loading it into memory. One streaming pass with bounded
 * memory and a progress bar; Ctrl-C stops after the current batch, and running the same command again resumes.
 */
import type { Command } from 'commander';
import { CorralError } from '../../core/errors.js';

interface WikiIndexFlags {
  out: string;
  batchPages?: string;
  progress?: boolean;
}

const MIB = 2 ** 20;
const PLAIN_PROGRESS_INTERVAL_MS = 10_000;

export function registerWikiCommand(program: Command): void {
  const wiki = program.command('wiki').description('wiki search corpora: build the disk index that serves millions of pages');
  wiki
    .command('index <corpus...>')
    .description(
      'index pages.jsonl files (Wikipedia exports {id, title, text} too, plain or .gz) or folders of .md into a disk index directory (resumable: run again after an interruption)',
    )
    .requiredOption('--out <dir>', 'directory for the index (wiki-index.sqlite); pass it to --corpus of serve, mcp, eval or worker')
    .option('--batch-pages <n>', 'pages per transaction: the memory held and the work an interruption loses (default 50000)')
    .option('--no-progress', 'no progress bar or progress lines')
    .action(async (corpora: string[], flags: WikiIndexFlags) => {
      const batchPages = flags.batchPages === undefined ? undefined : Number(flags.batchPages);
      if (batchPages !== undefined && !(Number.isInteger(batchPages) && batchPages > 0)) {
        throw new CorralError('CFG_ERR_INVALID', `--batch-pages must be a positive integer, got ${flags.batchPages}`);
      }
      const { corpusSourceFromPath } = await import('../../wiki-search/corpus-sources.js');
      const { buildDiskIndex } = await import('../../wiki-search/disk/disk-index-builder.js');
      const sources = await Promise.all(corpora.map((path) => corpusSourceFromPath(path)));
      const stopping = new AbortController();
      const stop = () => {
        process.stderr.write('\nwiki index: stopping after the current batch (run the same command again to resume)\n');
        stopping.abort();
      };
      process.once('SIGINT', stop);
      const progress = await progressDisplay(flags.progress !== false);
      try {
        const result = await buildDiskIndex({
          sources,
          outDir: flags.out,
          ...(batchPages !== undefined ? { batchPages } : {}),
          signal: stopping.signal,
          onProgress: progress.update,
          log: (line) => process.stderr.write(`${line}\n`),
        });
        progress.stop();
        const resumed = result.resumedFromPages > 0 ? ` (resumed after ${result.resumedFromPages})` : '';
        process.stdout.write(
          `indexed ${result.pageCount} pages${resumed}, ${result.passageCount} passages, in ${(result.durationMs / 1000).toFixed(1)} s: ${result.path}\n`,
        );
      } finally {
        progress.stop();
        process.off('SIGINT', stop);
      }
    });
}

interface ProgressUpdate {
  pages: number;
  bytesDone: number;
  bytesTotal: number;
  phase: 'pages' | 'finishing';
}

/** A cli-progress bar over the corpus bytes on a terminal; elsewhere a plain line every 10 s (logs, CI). */
async function progressDisplay(enabled: boolean): Promise<{ update: (progress: ProgressUpdate) => void; stop: () => void }> {
  if (!enabled) return { update: () => undefined, stop: () => undefined };
  if (!process.stderr.isTTY) {
    let lastLineAt = 0;
    return {
      update(progress) {
        if (progress.phase === 'finishing') process.stderr.write(`wiki index: ${progress.pages} pages read; merging the index\n`);
        else if (performance.now() - lastLineAt >= PLAIN_PROGRESS_INTERVAL_MS) {
          lastLineAt = performance.now();
          process.stderr.write(`wiki index: ${progress.pages} pages, ${(progress.bytesDone / MIB).toFixed(0)}/${(progress.bytesTotal / MIB).toFixed(0)} MiB\n`);
        }
      },
      stop: () => undefined,
    };
  }
  const { SingleBar } = await import('cli-progress');
  const bar = new SingleBar({
    format: 'wiki index {bar} {percentage}% | {pages} pages | {doneMiB}/{totalMiB} MiB | {phase} | {duration_formatted} | ETA {eta_formatted}',
    stream: process.stderr,
    hideCursor: true,
  });
  let started = false;
  let stopped = false;
  return {
    update(progress) {
      const payload = {
        pages: progress.pages,
        doneMiB: (progress.bytesDone / MIB).toFixed(0),
        totalMiB: (progress.bytesTotal / MIB).toFixed(0),
        phase: progress.phase === 'finishing' ? 'merging' : 'reading',
      };
      if (!started) bar.start(progress.bytesTotal, progress.bytesDone, payload);
      else bar.update(progress.bytesDone, payload);
      started = true;
    },
    stop() {
      if (started && !stopped) bar.stop();
      stopped = true;
    },
  };
}
