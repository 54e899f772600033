/**
 * Files between the host and a trial container through the daemon's archive API (one request, no process in the
 * container): task folders in, logs and artifacts out. What comes out was written by the agent, so it is treated as
 * hostile: bounded in size, extracted without owners or set-id bits into a private folder, and only folders and
 * regular files are kept (no link ever reaches the trial folder; readRegularFile refuses one anyway).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { chmod, copyFile, lstat, mkdtemp, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Docker from 'dockerode';
import { dockerStatusCode } from '../../sandbox/docker/docker-errors.js';
import { ensureHostFolder } from '../host-folder.js';

/** Copies hostDirectory's contents to containerDirectory (absolute; created with its parents). */
export async function putDirectory(docker: Docker, containerId: string, hostDirectory: string, containerDirectory: string): Promise<void> {
  const target = containerDirectory.replace(/^\/+/, '').replace(/\/+$/, '');
  await putTarArchive(docker, containerId, ['-c', '-C', hostDirectory, '--owner=0', '--group=0', `--transform=s|^\\.|${target}|`, '.']);
}

/** Streams the archive `tar <args>` writes on stdout into the container's root (the daemon extracts it there). */
export async function putTarArchive(docker: Docker, containerId: string, args: readonly string[]): Promise<void> {
  const tar = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => tar.once('close', resolve));
  await docker.getContainer(containerId).putArchive(tar.stdout, { path: '/' });
  const status = await exited;
  if (status !== 0) throw new Error(`tar ${args.join(' ')} exited with status ${status}: ${stderr.trim().slice(-500)}`);
}

export interface CollectResult {
  /** False when the path does not exist in the container, or is not a folder or a regular file there (a link). */
  found: boolean;
  /** The archive passed maxBytes and was cut there (what came before is kept). */
  truncated: boolean;
}

/**
 * Extracts containerPath (a folder or a regular file) from a container, running or stopped, into
 * hostDirectory/<its name>, replacing what was there. Only folders and regular files arrive: the archive is
 * unpacked into a fresh private folder, every link, device, fifo and socket is dropped there, and only then is the
 * result renamed into place, so nothing the container holds decides where the host reads or writes. A path that
 * is itself a link in the container is not collected. hostDirectory must be a folder the host made (never a link).
 * At most maxBytes of archive are read.
 */
export async function collectFromContainer(
  docker: Docker,
  containerId: string,
  containerPath: string,
  hostDirectory: string,
  options: { maxBytes: number },
): Promise<CollectResult> {
  let archive: Readable;
  try {
    archive = (await docker.getContainer(containerId).getArchive({ path: containerPath })) as unknown as Readable;
  } catch (error) {
    if (dockerStatusCode(error) === 404) return { found: false, truncated: false };
    throw error;
  }
  await ensureHostFolder(hostDirectory);
  const staging = await mkdtemp(join(hostDirectory, '.collecting-'));
  try {
    let bytes = 0;
    let truncated = false;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        if (truncated) return callback();
        bytes += chunk.length;
        if (bytes > options.maxBytes) {
          truncated = true;
          return callback(null, chunk.subarray(0, chunk.length - (bytes - options.maxBytes)));
        }
        callback(null, chunk);
      },
    });
    // -m: the host's clock, no owners, no permissions beyond the umask: nothing extracted is set-id.
    const tar = spawn('tar', ['-x', '-m', '--no-same-owner', '--no-same-permissions', '-C', staging], { stdio: ['pipe', 'ignore', 'pipe'] });
    tar.stderr.resume();
    const exited = new Promise<number | null>((resolve) => tar.once('close', resolve));
    await pipeline(archive, limit, tar.stdin).catch(() => undefined);
    await exited;
    // The daemon names the archive's one top entry after the path's last component.
    const name = basename(containerPath.replace(/\/+$/, '')) || 'root';
    const extracted = join(staging, name);
    const top = await lstat(extracted).catch(() => undefined);
    if (!top || !(top.isDirectory() || top.isFile())) return { found: false, truncated };
    if (top.isDirectory()) await keepOnlyPlainEntries(extracted);
    else await plainFile(extracted);
    const destination = join(hostDirectory, name);
    await rm(destination, { recursive: true, force: true });
    await rename(extracted, destination);
    return { found: true, truncated };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Keeps folders and regular files (links, devices, fifos and sockets go), recursively; clears set-id and sticky bits. */
async function keepOnlyPlainEntries(directory: string): Promise<void> {
  await chmod(directory, 0o755);
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) await keepOnlyPlainEntries(path);
    else if (entry.isFile()) await plainFile(path);
    else await rm(path, { force: true });
  }
}

/** A regular file of its own: no set-id bits, and a hard link (tar may make one between members) becomes a copy. */
async function plainFile(path: string): Promise<void> {
  const info = await lstat(path);
  if (info.nlink > 1) {
    const copy = `${path}.corral-copy`;
    await copyFile(path, copy);
    await rename(copy, path);
  }
  await chmod(path, info.mode & 0o755);
}

/**
 * Reads a regular file of at most maxBytes, never through a symlink (O_NOFOLLOW, then fstat): a reward an agent
 * pointed elsewhere is not a reward. Null when absent, not a regular file, or too large.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<string | null> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return null;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
