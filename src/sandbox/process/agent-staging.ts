/**
 * A copy of the agent's folder that the sandbox uid can read. When corral runs as root, bwrap runs as the
 * unprivileged sandbox uid, and the checkout (e.g. under /root) may not be traversable by it. The copy lives in
 * <tmpdir>/corral-agent/<content hash>, in a parent only we own and only we can write, so nobody can swap the
 * agent for their own code; identical content is staged once and shared by every sandbox.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorralError } from '../../core/errors.js';

const STAGING_PARENT = join(tmpdir(), 'corral-agent');

async function agentFiles(directory: string): Promise<Array<{ name: string; content: Buffer }>> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files = [];
  for (const entry of entries.filter((candidate) => candidate.isFile()).sort((a, b) => a.name.localeCompare(b.name))) {
    files.push({ name: entry.name, content: await readFile(join(directory, entry.name)) });
  }
  return files;
}

async function ownedPrivateDirectory(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o755 });
  const stats = await lstat(path);
  const uid = process.geteuid?.();
  if (!stats.isDirectory() || stats.uid !== uid || (stats.mode & 0o022) !== 0) {
    throw new CorralError('SBX_ERR_UNAVAILABLE', `cannot stage the sandbox agent: ${path} must be a directory owned by uid ${uid} and writable only by it`);
  }
}

/** Copies the agent's (flat) folder to a world-readable, root-owned place and returns that path. */
export async function stageAgentDirectory(source: string): Promise<string> {
  const files = await agentFiles(source);
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.name}\0${file.content.length}\0`).update(file.content);
  const target = join(STAGING_PARENT, hash.digest('hex').slice(0, 16));
  await ownedPrivateDirectory(STAGING_PARENT);
  if ((await lstat(target).catch(() => null))?.isDirectory()) return target;
  const staging = await mkdtemp(join(STAGING_PARENT, '.staging-'));
  try {
    for (const file of files) await writeFile(join(staging, file.name), file.content, { mode: 0o644 });
    await chmod(staging, 0o755);
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // Another corral process staged the same content first: use theirs.
    if ((await lstat(target).catch(() => null))?.isDirectory()) return target;
    throw error;
  }
  return target;
}
