/**
 * What the process backend created, recorded on disk (one JSON file per sandbox) so `cleanup()` in a later corral
 * process can find and remove sandboxes whose owner died: the host counterpart of Docker labels.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_RECORDS_DIRECTORY = join(tmpdir(), 'corral-process');

export interface SandboxRecord {
  version: 1;
  sandboxId: string;
  ownerId: string;
  /** Host pid of the launcher (it execs bwrap, so also bwrap's pid); it leads its own process group. */
  pid: number;
  /** Start time of pid in clock ticks, so a reused pid is never mistaken for ours. */
  pidStartTicks: string | null;
  createdAtMs: number;
  expiresAtMs: number;
  sandboxed: boolean;
  /** Host directories to delete (the unsandboxed workspace and tmp); empty under bwrap, whose tmpfs dies with it. */
  hostDirectories: string[];
  cgroupDirectories: string[];
}

export class SandboxRecords {
  constructor(readonly directory: string = DEFAULT_RECORDS_DIRECTORY) {}

  private file(sandboxId: string): string {
    return join(this.directory, `${sandboxId}.json`);
  }

  async write(record: SandboxRecord): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const temporary = `${this.file(record.sandboxId)}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(record), { mode: 0o600 });
    await rename(temporary, this.file(record.sandboxId)); // readers never see half a record
  }

  async remove(sandboxId: string): Promise<void> {
    await rm(this.file(sandboxId), { force: true });
  }

  /** Every readable record; unreadable files are returned as null records so cleanup can delete them. */
  async list(): Promise<Array<{ sandboxId: string; record: SandboxRecord | null }>> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch {
      return [];
    }
    const results: Array<{ sandboxId: string; record: SandboxRecord | null }> = [];
    for (const name of names.filter((entry) => entry.endsWith('.json'))) {
      const sandboxId = name.slice(0, -'.json'.length);
      try {
        const record = JSON.parse(await readFile(join(this.directory, name), 'utf8')) as SandboxRecord;
        results.push({ sandboxId, record: record.version === 1 && record.sandboxId === sandboxId ? record : null });
      } catch {
        results.push({ sandboxId, record: null });
      }
    }
    return results;
  }
}
