/**
 * Every file the viewer reads (metadata.json, results.jsonl, trial files, session logs) is opened here, never by
 * path elsewhere. The path is checked component by component (resolveInside: no '..', no symlink on the way), then
 * opened with O_NOFOLLOW (a link swapped in after the check fails to open) and O_NONBLOCK (a FIFO opens at once
 * instead of blocking a thread until a writer comes), and kept only when the descriptor is a regular file whose
 * real path (/proc/self/fd on Linux) still lies inside the folder: a parent folder swapped for a link between the
 * check and the open is caught on the descriptor itself.
 */
import { constants, existsSync, type Stats } from 'node:fs';
import { type FileHandle, open, readlink } from 'node:fs/promises';
import { CorralError } from '../core/errors.js';
import { isUnder, locateInside } from './safe-path.js';

export interface OpenedFile {
  handle: FileHandle;
  stats: Stats;
}

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const PROC_FD = existsSync('/proc/self/fd');

export async function openInside(root: string, relativePath: string): Promise<OpenedFile> {
  const { path, realRoot } = locateInside(root, relativePath);
  let handle: FileHandle;
  try {
    handle = await open(path, FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new CorralError('VIEW_ERR_OUTSIDE_ROOT', `${relativePath} is a symlink; refused`);
    throw new CorralError('VIEW_ERR_NOT_FOUND', `Cannot open ${relativePath} under the viewer's folder (${code ?? 'error'})`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new CorralError('VIEW_ERR_NOT_FOUND', `${relativePath} is not a regular file; refused`);
    if (PROC_FD && !isUnder(realRoot, await readlink(`/proc/self/fd/${handle.fd}`)))
      throw new CorralError('VIEW_ERR_OUTSIDE_ROOT', `${relativePath} resolved outside the viewer's folder; refused`);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The file's first `limit` bytes as text, and whether there was more. */
export async function readTextInside(root: string, relativePath: string, limit: number): Promise<{ text: string; truncated: boolean }> {
  const { handle, stats } = await openInside(root, relativePath);
  try {
    const buffer = Buffer.alloc(Math.min(stats.size, limit));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, bytesRead).toString('utf8'), truncated: stats.size > limit };
  } finally {
    await handle.close();
  }
}
