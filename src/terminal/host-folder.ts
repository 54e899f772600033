import { lstat, mkdir } from 'node:fs/promises';
import { CorralError } from '../core/errors.js';

/**
 * Creates a host folder (and its parents) and checks that it is a folder, not a link: a trial folder and its
 * agent/, verifier/ and artifacts/ are written by the host only, and the host never writes through a link there.
 * Throws TERMINAL_ERR_TRIAL_FAILED when something else holds the name.
 */
export async function ensureHostFolder(path: string): Promise<void> {
  await mkdir(path, { recursive: true });
  const info = await lstat(path);
  if (!info.isDirectory())
    throw new CorralError('TERMINAL_ERR_TRIAL_FAILED', `${path} is not a folder (a link or a file): refusing to write there`, { details: { path } });
}
