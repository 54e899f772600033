/**
 * Where a disk index lives, told apart from a corpus without opening it (so deciding needs no native module): a
 * directory written by `corral wiki index` (holding wiki-index.sqlite, or its .partial while a build is unfinished),
 * or the .sqlite file itself.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DISK_INDEX_FILE, PARTIAL_SUFFIX } from './disk-index-layout.js';

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The index file for a directory or file path. */
export function diskIndexPath(path: string): string {
  return isDirectory(path) ? join(path, DISK_INDEX_FILE) : path;
}

export function isDiskIndexPath(path: string): boolean {
  if (!isDirectory(path)) return path.endsWith('.sqlite') && existsSync(path);
  const file = join(path, DISK_INDEX_FILE);
  return existsSync(file) || existsSync(`${file}${PARTIAL_SUFFIX}`);
}
