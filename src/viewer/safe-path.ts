/**
 * The one place the viewer turns a client's relative path into a file: it must stay inside the viewer's folder
 * lexically (no '..', not absolute) and on disk (no symlink anywhere on the way, so a link pointing out of the
 * folder is refused, as is a link inside it: the viewer serves only what the run itself wrote).
 */
import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { CorralError } from '../core/errors.js';

export interface InsidePath {
  /** Absolute, under the folder's real path. */
  path: string;
  /** The canonical relative spelling ('a/b', '.' for the folder itself): one per file, whatever alias was given. */
  relative: string;
  realRoot: string;
}

export function resolveInside(root: string, relativePath: string): string {
  return locateInside(root, relativePath).path;
}

export function locateInside(root: string, relativePath: string): InsidePath {
  if (relativePath.includes('\0') || isAbsolute(relativePath) || relativePath.split(/[\\/]/).includes('..')) {
    throw new CorralError('VIEW_ERR_OUTSIDE_ROOT', `Path ${JSON.stringify(relativePath)} leaves the viewer's folder`);
  }
  const realRoot = realRootOf(root);
  const target = normalize(join(realRoot, relativePath));
  const rel = relative(realRoot, target);
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new CorralError('VIEW_ERR_OUTSIDE_ROOT', `Path ${JSON.stringify(relativePath)} leaves the viewer's folder`);
  const parts = rel.split(sep).filter(Boolean);
  let current = realRoot;
  for (const part of parts) {
    current = join(current, part);
    let stats;
    try {
      stats = lstatSync(current);
    } catch {
      throw new CorralError('VIEW_ERR_NOT_FOUND', `No such path under the viewer's folder: ${relativePath}`);
    }
    if (stats.isSymbolicLink()) throw new CorralError('VIEW_ERR_OUTSIDE_ROOT', `Path ${JSON.stringify(relativePath)} goes through a symlink; refused`);
  }
  return { path: current, relative: parts.join('/') || '.', realRoot };
}

export function realRootOf(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    throw new CorralError('VIEW_ERR_NOT_FOUND', `The viewer's folder ${root} does not exist`);
  }
}

/** True when `path` (a real path, no links) is the folder or lies under it. */
export function isUnder(realRoot: string, path: string): boolean {
  return path === realRoot || path.startsWith(realRoot.endsWith(sep) ? realRoot : `${realRoot}${sep}`);
}
