/**
 * Where POST /v1/rollouts keeps the requests that name a series (`record: {series, step}`): one run folder per
 * series under the server's runs folder, `<root>/series/<name>/`, holding results.jsonl (the records, as the
 * stream sent them), steps.jsonl (one line per request; format in viewer/series-steps.ts) and a metadata.json that
 * describes it as a run. The viewer lists the folder as a run and draws the steps as curves.
 *
 * Writes to one series are serialised in this process, so each request's records stay together and first_line is
 * right. Nothing on the way may be a symlink (the folder is created by the server, never followed), and files are
 * opened O_NOFOLLOW: a link planted in the runs folder cannot make the server write elsewhere.
 */
import { constants, lstatSync, mkdirSync } from 'node:fs';
import { type FileHandle, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { CorralError } from '../core/errors.js';
import { SERIES_FOLDER, SERIES_STEPS_FILE, type SeriesRequestLine, countSeriesRecords } from '../viewer/series-steps.js';

export interface SeriesRequest {
  series: string;
  step: number;
  env: string;
  model: string;
  status: string;
  startedAt: Date;
  finishedAt: Date;
  records: readonly Record<string, unknown>[];
}

interface SeriesFolder {
  directory: string;
  /** Lines in results.jsonl, counted once when the folder is first used by this process. */
  lines: number;
  /** When this process first wrote to it (metadata.json's started_at). */
  startedAt: string | null;
  /** The last write: the next one waits for it. */
  tail: Promise<unknown>;
}

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

export class RolloutSeries {
  private readonly folders = new Map<string, Promise<SeriesFolder>>();

  constructor(readonly root: string) {}

  /** The series' folder, made if missing. Throws SERIES_ERR_WRITE when it cannot be (a symlink, not a folder). */
  open(series: string): Promise<SeriesFolder> {
    let folder = this.folders.get(series);
    if (!folder) {
      folder = this.prepare(series);
      this.folders.set(series, folder);
      folder.catch(() => this.folders.delete(series));
    }
    return folder;
  }

  /** Appends the request's records and its steps.jsonl line; resolves with where the records went. */
  async append(request: SeriesRequest): Promise<{ first_line: number; records: number }> {
    const folder = await this.open(request.series);
    const write = folder.tail.then(async () => {
      const firstLine = folder.lines;
      const text = request.records.map((record) => `${JSON.stringify(record)}\n`).join('');
      await appendText(join(folder.directory, 'results.jsonl'), text);
      folder.lines += request.records.length;
      const line: SeriesRequestLine = {
        version: 1,
        step: request.step,
        status: request.status,
        env: request.env,
        model: request.model,
        started_at: request.startedAt.toISOString(),
        finished_at: request.finishedAt.toISOString(),
        time_ms: request.finishedAt.getTime() - request.startedAt.getTime(),
        first_line: firstLine,
        ...countSeriesRecords(request.records),
      };
      await appendText(join(folder.directory, SERIES_STEPS_FILE), `${JSON.stringify(line)}\n`);
      folder.startedAt ??= line.started_at;
      // The run catalog reads env, model and status from it; the counts come from results.jsonl itself.
      const metadata = { env: request.env, model: request.model, series: request.series, status: 'complete', started_at: folder.startedAt };
      await replaceText(join(folder.directory, 'metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`);
      return { first_line: firstLine, records: request.records.length };
    });
    folder.tail = write.catch(() => undefined);
    return write;
  }

  private async prepare(series: string): Promise<SeriesFolder> {
    const directory = join(this.root, SERIES_FOLDER, series);
    try {
      mkdirSync(this.root, { recursive: true });
      for (const path of [join(this.root, SERIES_FOLDER), directory]) {
        if (!lstatSync(path, { throwIfNoEntry: false })) mkdirSync(path);
        if (!lstatSync(path).isDirectory()) throw new Error(`${path} is not a folder (a symlink is refused)`);
      }
      for (const name of ['results.jsonl', SERIES_STEPS_FILE, 'metadata.json']) {
        const stats = lstatSync(join(directory, name), { throwIfNoEntry: false });
        if (stats && !stats.isFile()) throw new Error(`${join(directory, name)} is not a regular file`);
      }
      return { directory, lines: await countLines(join(directory, 'results.jsonl')), startedAt: null, tail: Promise.resolve() };
    } catch (error) {
      throw seriesWriteError(series, error);
    }
  }
}

export function seriesWriteError(series: string, error: unknown): CorralError {
  if (CorralError.hasCode(error, 'SERIES_ERR_WRITE')) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new CorralError('SERIES_ERR_WRITE', `cannot write series '${series}': ${reason}`, { cause: error });
}

async function appendText(path: string, text: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, APPEND, 0o644);
    await handle.writeFile(text);
  } finally {
    await handle?.close();
  }
}

/** Written beside and renamed over: a rename replaces a planted symlink itself, never what it points to. */
async function replaceText(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  let handle: FileHandle | undefined;
  try {
    handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
    await handle.writeFile(text);
  } finally {
    await handle?.close();
  }
  await rename(temporary, path);
}

async function countLines(path: string): Promise<number> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    let lines = 0;
    for await (const chunk of handle.createReadStream()) for (const byte of chunk as Buffer) if (byte === 10) lines++;
    return lines;
  } finally {
    await handle.close();
  }
}
