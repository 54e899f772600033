/**
 * One run as the viewer holds it: the line index of results.jsonl, a row per rollout, the lines that are not
 * rollouts (counted and reported, never fatal), and its statistics, refreshed by (size, mtime, inode): a grown
 * file is read from where the index stopped, a replaced or shrunk file (a --resume restating group statistics
 * rewrites it) is indexed again; statistics are recomputed only when rows changed. Every read goes through
 * openInside with the run's path relative to the viewer's folder, so a file or folder swapped for a symlink
 * after the run was first opened is refused, not followed.
 */
import { CorralError } from '../core/errors.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { JsonlLineIndex } from './jsonl-line-index.js';
import { openInside, readTextInside } from './open-inside.js';
import { type BadLine, type RolloutRow, isBadLine, recordProblem, rolloutRowOf } from './rollout-row.js';
import { type RunStatistics, runStatistics } from './run-statistics.js';

export interface BadLines {
  count: number;
  /** The first few, with the 0-based line (as api/rollout numbers lines) and the reason. */
  examples: BadLine[];
}

const BAD_LINE_EXAMPLES = 5;
const METADATA_BYTES = 1 << 20;
/** What a row and its index entry cost, roughly: the cache's budget counts rows with it. */
export const APPROXIMATE_ROW_BYTES = 400;

export class RunState {
  private index = new JsonlLineIndex();
  private rowList: RolloutRow[] = [];
  private bad: BadLines = { count: 0, examples: [] };
  private seen = { size: -1, mtimeMs: -1, ino: -1 };
  private statistics: { version: number; value: RunStatistics } | null = null;
  private metadataValue: Record<string, unknown> | null = null;
  private refreshing: Promise<void> | null = null;
  /** Bumped whenever rows change: caches keyed on it (sorted orders, statistics) go stale. */
  version = 0;

  /** `id` is the run folder's canonical path relative to `root` ('.' for root itself). */
  constructor(
    readonly root: string,
    readonly id: string,
  ) {}

  /** A file of the run, relative to the viewer's folder (what openInside takes). */
  pathOf(name: string): string {
    return this.id === '.' ? name : `${this.id}/${name}`;
  }

  get rows(): readonly RolloutRow[] {
    return this.rowList;
  }

  /** Non-blank lines of results.jsonl, records or not: api/rollout's line numbers run below it. */
  get lineCount(): number {
    return this.index.lines;
  }

  get badLines(): BadLines {
    return this.bad;
  }

  get approximateBytes(): number {
    return this.index.lines * APPROXIMATE_ROW_BYTES;
  }

  /** Brings the index (and metadata.json) up to the files on disk; concurrent callers share one pass. */
  async refresh(): Promise<void> {
    while (this.refreshing) await this.refreshing;
    this.refreshing = this.pass();
    try {
      await this.refreshing;
    } finally {
      this.refreshing = null;
    }
  }

  private async pass(): Promise<void> {
    await this.loadMetadata();
    const { handle, stats } = await openInside(this.root, this.pathOf('results.jsonl'));
    try {
      if (stats.size === this.seen.size && stats.mtimeMs === this.seen.mtimeMs && stats.ino === this.seen.ino) return;
      const rewritten =
        this.seen.size !== -1 &&
        (stats.ino !== this.seen.ino || stats.size < this.index.bytes || (stats.size === this.seen.size && stats.mtimeMs !== this.seen.mtimeMs));
      if (rewritten) {
        this.index = new JsonlLineIndex();
        this.rowList = [];
        this.bad = { count: 0, examples: [] };
      }
      const before = this.index.lines;
      await this.index.extend(handle, stats.size, (text, line) => {
        const row = rolloutRowOf(text, line);
        if (!isBadLine(row)) this.rowList.push(row);
        else {
          this.bad.count++;
          if (this.bad.examples.length < BAD_LINE_EXAMPLES) this.bad.examples.push(row);
        }
      });
      // Recorded only after a whole pass, so a pass that failed half-way is retried rather than taken as done.
      this.seen = { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
      if (rewritten || this.index.lines !== before) this.version++;
    } finally {
      await handle.close();
    }
  }

  /** The record on line `line`; undefined past the end; VIEW_ERR_BAD_RECORD when that line is not a record. */
  async record(line: number): Promise<ResultRecord | undefined> {
    if (line >= this.index.lines) return undefined;
    const { handle } = await openInside(this.root, this.pathOf('results.jsonl'));
    let text: string | undefined;
    try {
      text = await this.index.read(handle, line);
    } finally {
      await handle.close();
    }
    if (text === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new CorralError('VIEW_ERR_BAD_RECORD', `Line ${line} of results.jsonl is not JSON: ${(error as Error).message}`);
    }
    const problem = recordProblem(value);
    if (problem) throw new CorralError('VIEW_ERR_BAD_RECORD', `Line ${line} of results.jsonl is not a rollout record: ${problem}`);
    return value as ResultRecord;
  }

  /** metadata.json as last loaded (loadMetadata, refresh); null when absent, unreadable, refused or not an object. */
  metadata(): Record<string, unknown> | null {
    return this.metadataValue;
  }

  async loadMetadata(): Promise<Record<string, unknown> | null> {
    this.metadataValue = await readMetadata(this.root, this.pathOf('metadata.json'));
    return this.metadataValue;
  }

  rolloutsPerExample(): number {
    const value = Number(this.metadataValue?.rollouts_per_example);
    if (Number.isInteger(value) && value > 0) return value;
    const perExample = new Map<string, number>();
    for (const row of this.rowList) perExample.set(row.example_id, (perExample.get(row.example_id) ?? 0) + 1);
    return Math.max(1, ...perExample.values());
  }

  stats(): RunStatistics {
    if (this.statistics?.version !== this.version) this.statistics = { version: this.version, value: runStatistics(this.rowList, this.rolloutsPerExample()) };
    return this.statistics.value;
  }
}

async function readMetadata(root: string, relativePath: string): Promise<Record<string, unknown> | null> {
  try {
    const { text, truncated } = await readTextInside(root, relativePath, METADATA_BYTES);
    if (truncated) return null;
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch (error) {
    if (CorralError.isInstance(error) || error instanceof SyntaxError) return null;
    throw error;
  }
}
