import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CorralError } from '../core/errors.js';

/** The local bases `corral images build --offline` makes (see src/sandbox/docker/image-definition.ts). */
export const TASK_BASE_DEBIAN = 'corral/task-debian:latest';
export const TASK_BASE_PYTHON = 'corral/task-python:latest';

/**
 * Built-in FROM substitutions: public bases that cannot be pulled here → local Debian bookworm bases. Ubuntu
 * becomes Debian (same apt, different release: docs/terminal-tasks.md says what that changes). Patterns
 * match the image reference without a digest; `*` matches any run of characters; first match wins.
 */
export const DEFAULT_BASE_IMAGE_MAP: ReadonlyArray<readonly [pattern: string, image: string]> = Object.freeze([
  ['ubuntu:*', TASK_BASE_DEBIAN],
  ['debian:*', TASK_BASE_DEBIAN],
  ['python:3*', TASK_BASE_PYTHON],
  ['ghcr.io/laude-institute/t-bench/ubuntu-24-04:*', TASK_BASE_DEBIAN],
  ['ghcr.io/laude-institute/t-bench/python-3-13:*', TASK_BASE_PYTHON],
] as const);

export interface BaseImageMap {
  /** User entries first, then the defaults. */
  readonly entries: ReadonlyArray<readonly [pattern: string, image: string]>;
}

const userMapSchema = z.record(z.string().min(1), z.string().min(1));

/** The map: entries of the user's JSON file ({"pattern": "local-image"}) before the defaults. */
export async function loadBaseImageMap(userFile?: string): Promise<BaseImageMap> {
  if (!userFile) return { entries: DEFAULT_BASE_IMAGE_MAP };
  const text = await readFile(userFile, 'utf8').catch((error: unknown) => {
    throw new CorralError('TASK_ERR_NOT_FOUND', `--base-image-map ${userFile}: cannot read it (${(error as Error).message})`, { cause: error });
  });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CorralError('TASK_ERR_INVALID', `--base-image-map ${userFile}: not JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = userMapSchema.safeParse(raw);
  if (!parsed.success) throw new CorralError('TASK_ERR_INVALID', `--base-image-map ${userFile}: must be an object of "pattern": "image" strings`);
  return { entries: [...Object.entries(parsed.data), ...DEFAULT_BASE_IMAGE_MAP] };
}

/** "ubuntu" → "ubuntu:latest"; a digest is dropped (the map replaces the image anyway). */
export function normalizeImageReference(reference: string): string {
  const withoutDigest = reference.split('@')[0]!;
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? withoutDigest : `${withoutDigest}:latest`;
}

/** The local image for a FROM reference, or undefined when no entry matches (then it must exist locally). */
export function mapBaseImage(map: BaseImageMap, reference: string): string | undefined {
  const normalized = normalizeImageReference(reference);
  for (const [pattern, image] of map.entries) {
    if (globToRegExp(normalizeImageReference(pattern)).test(normalized) || globToRegExp(pattern).test(normalized)) return image;
  }
  return undefined;
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}
