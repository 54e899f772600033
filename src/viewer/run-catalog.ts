/**
 * The runs under the viewer's folder: every folder holding a regular results.jsonl (corral runs, and the Harbor
 * job folders `corral eval terminal` writes beside it), found without following symlinks, at most MAX_DEPTH deep.
 * A run's id is its path relative to the folder; ids from clients go through resolveInside.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { CorralError } from '../core/errors.js';
import { runLiveness } from '../runner/run/run-liveness.js';
import { RunState } from './run-state.js';
import { locateInside, resolveInside } from './safe-path.js';

const MAX_DEPTH = 4;
const SKIPPED = new Set(['node_modules', '.git', 'atif']);

export type RunStatus = 'running' | 'complete' | 'cancelled' | 'interrupted' | 'stopped';

export interface RunListEntry {
  id: string;
  env: string | null;
  agent: string | null;
  model: string | null;
  started_at: string | null;
  status: RunStatus;
  rollouts: number;
  errored: number;
  avg_reward: number | null;
  pass_at_k: Record<string, number> | null;
  duration_ms: number | null;
  harbor_job: boolean;
  /** Lines of results.jsonl that are not rollout records (0 for a finished run listed from metadata.json alone). */
  bad_lines: number;
}

export interface RunCatalogOptions {
  /** Runs held in memory at most (least recently used evicted first). */
  maxCachedRuns?: number;
  /** Rough bytes of rows and indexes held at most across runs; the run in use is always kept. */
  maxCachedBytes?: number;
}

const DEFAULT_MAX_RUNS = 32;
const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

export class RunCatalog {
  /** Keyed by canonical id, in least-recently-used-first order. */
  private readonly states = new Map<string, RunState>();
  private readonly maxRuns: number;
  private readonly maxBytes: number;

  constructor(
    readonly root: string,
    options: RunCatalogOptions = {},
  ) {
    this.maxRuns = options.maxCachedRuns ?? DEFAULT_MAX_RUNS;
    this.maxBytes = options.maxCachedBytes ?? DEFAULT_MAX_BYTES;
  }

  runIds(): string[] {
    const found: string[] = [];
    const walk = (directory: string, depth: number) => {
      let entries;
      try {
        entries = readdirSync(directory, { withFileTypes: true });
      } catch {
        return;
      }
      if (entries.some((entry) => entry.name === 'results.jsonl' && entry.isFile())) found.push(relative(this.root, directory).split(sep).join('/') || '.');
      if (depth >= MAX_DEPTH) return;
      for (const entry of entries) if (entry.isDirectory() && !SKIPPED.has(entry.name)) walk(join(directory, entry.name), depth + 1);
    };
    walk(this.root, 0);
    return found.sort();
  }

  /** The canonical id of a run id as a client spelled it ('./a', 'a//', 'a/.' are all 'a'). */
  canonicalId(id: string): string {
    return locateInside(this.root, id).relative;
  }

  /**
   * The run with this id (any spelling: states are keyed by the canonical one); refused when it leaves the folder,
   * goes through a symlink or is not a run. Checked on every call, so a folder swapped for a link is refused even
   * when its state is cached.
   */
  run(id: string): RunState {
    const { path, relative: canonical } = locateInside(this.root, id);
    const results = lstatSync(join(path, 'results.jsonl'), { throwIfNoEntry: false });
    if (!results) throw new CorralError('VIEW_ERR_NOT_FOUND', `No run ${JSON.stringify(id)}: it holds no results.jsonl`);
    if (!results.isFile()) throw new CorralError('VIEW_ERR_OUTSIDE_ROOT', `Run ${JSON.stringify(id)}: results.jsonl is not a regular file; refused`);
    const state = this.states.get(canonical) ?? new RunState(this.root, canonical);
    this.states.delete(canonical);
    this.states.set(canonical, state);
    this.evict();
    return state;
  }

  /** Canonical ids of the runs held in memory, least recently used first. */
  cachedRunIds(): string[] {
    return [...this.states.keys()];
  }

  private evict(): void {
    let bytes = [...this.states.values()].reduce((sum, state) => sum + state.approximateBytes, 0);
    for (const [id, state] of this.states) {
      if (this.states.size <= 1 || (this.states.size <= this.maxRuns && bytes <= this.maxBytes)) return;
      this.states.delete(id);
      bytes -= state.approximateBytes;
    }
  }

  async list(): Promise<RunListEntry[]> {
    const entries: RunListEntry[] = [];
    for (const id of this.runIds()) {
      try {
        entries.push(await this.entry(id));
      } catch (error) {
        if (!CorralError.isInstance(error)) throw error;
      }
    }
    return entries;
  }

  async entry(id: string): Promise<RunListEntry> {
    const state = this.run(id);
    const metadata = (await state.loadMetadata()) ?? {};
    const status = runStatus(metadata);
    // A finished run's metadata.json holds its summary; a running one is counted from its rows.
    const finished = status !== 'running' && typeof metadata.rollouts === 'number';
    let counts = { rollouts: Number(metadata.rollouts), errored: Number(metadata.errored), avg_reward: numberOrNull(metadata.avg_reward) };
    let passAtK = (metadata.pass_at_k as Record<string, number> | null | undefined) ?? null;
    if (!finished) {
      await state.refresh();
      const summary = state.stats().summary;
      counts = { rollouts: summary.rollouts, errored: summary.errored, avg_reward: summary.avg_reward };
      passAtK = summary.passAtK;
    }
    return {
      id: state.id,
      env: stringOrNull(metadata.env ?? metadata.env_id),
      agent: stringOrNull(metadata.agent),
      model: stringOrNull(metadata.model),
      started_at: stringOrNull(metadata.started_at),
      status,
      ...counts,
      pass_at_k: passAtK,
      duration_ms: numberOrNull(metadata.time_ms),
      harbor_job: isRegularFileInside(this.root, state.pathOf('result.json')),
      bad_lines: state.badLines.count,
    };
  }
}

export function runStatus(metadata: Record<string, unknown>): RunStatus {
  switch (metadata.status) {
    case 'running':
      return runLiveness(metadata).state === 'interrupted' ? 'interrupted' : 'running';
    case 'complete':
    case 'cancelled':
    case 'stopped':
      return metadata.status;
    default:
      return 'interrupted';
  }
}

function isRegularFileInside(root: string, relativePath: string): boolean {
  try {
    return lstatSync(resolveInside(root, relativePath)).isFile();
  } catch {
    return false;
  }
}

const stringOrNull = (value: unknown) => (typeof value === 'string' ? value : null);
const numberOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
