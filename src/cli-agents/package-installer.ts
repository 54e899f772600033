import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CorralError } from '../core/errors.js';
import { withFileLock } from '../core/file-lock.js';
import { runNpm } from '../core/npm-command.js';
import { INSTALL_MARKER, type InstallMarker, type InstallablePackage, installFolderName } from './installable-package.js';

export interface InstalledPackage extends InstallMarker {
  folder: string;
  /** False when this call found the install already done and skipped npm. */
  installedNow: boolean;
  durationMs: number;
}

export interface InstallOptions {
  /** The agents cache folder (agentsCacheDirectory()). */
  cacheDirectory: string;
  log?: (line: string) => void;
  /** npm executable (default: npm on PATH). */
  npmCommand?: string;
  timeoutMs?: number;
}

/** The finished install of this pinned package, or null (absent, half-written, or another version). */
export async function readInstall(item: InstallablePackage, cacheDirectory: string): Promise<(InstallMarker & { folder: string }) | null> {
  const folder = join(cacheDirectory, installFolderName(item));
  try {
    const marker = JSON.parse(await readFile(join(folder, INSTALL_MARKER), 'utf8')) as InstallMarker;
    if (marker.packageName !== item.packageName || marker.version !== item.version) return null;
    await stat(join(folder, item.binaryPath));
    return { ...marker, folder };
  } catch {
    return null;
  }
}

/**
 * Installs one pinned package with npm into `<cache>/<name>-<version>`, once: a finished install (its marker
 * and executable present) is skipped. npm runs with --ignore-scripts, since the platform binaries come as
 * optional dependencies and the executable paths point at them, so no package script runs on this machine.
 * The tree is built in a temporary sibling and renamed into place, so a crash never leaves a half-written
 * folder that looks done; a host-wide file lock keeps two installs of one package from running at once.
 * Throws CLI_AGENT_ERR_INSTALL_FAILED with npm's output tail.
 */
export async function installPackage(item: InstallablePackage, options: InstallOptions): Promise<InstalledPackage> {
  const startedAt = performance.now();
  const log = options.log ?? (() => undefined);
  const skipped = async () => {
    const existing = await readInstall(item, options.cacheDirectory);
    return existing ? { ...existing, installedNow: false, durationMs: Math.round(performance.now() - startedAt) } : null;
  };
  const done = await skipped();
  if (done) return done;
  await mkdir(options.cacheDirectory, { recursive: true });
  // One npm per package at a time on this host; whoever waited finds the install done and skips.
  const lockPath = join(options.cacheDirectory, `.install-${installFolderName(item)}.lock`);
  return withFileLock(
    lockPath,
    `install of ${item.packageName}@${item.version}`,
    async () => (await skipped()) ?? (await installNow(item, options, startedAt)),
    log,
  );
}

async function installNow(item: InstallablePackage, options: InstallOptions, startedAt: number): Promise<InstalledPackage> {
  const log = options.log ?? (() => undefined);
  const folder = join(options.cacheDirectory, installFolderName(item));
  const staging = join(options.cacheDirectory, `.staging-${installFolderName(item)}-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(staging, { recursive: true });
  try {
    await writeFile(join(staging, 'package.json'), `${JSON.stringify({ name: `corral-${item.name}`, private: true }, null, 2)}\n`);
    log(`npm install ${item.packageName}@${item.version} into ${folder}`);
    await runNpm(
      ['install', '--prefix', staging, '--ignore-scripts', '--omit=dev', '--save-exact', '--no-fund', '--no-audit', `${item.packageName}@${item.version}`],
      {
        cwd: staging,
        what: `installing ${item.packageName}@${item.version}`,
        errorCode: 'CLI_AGENT_ERR_INSTALL_FAILED',
        timeoutMs: options.timeoutMs ?? 15 * 60_000,
        ...(options.npmCommand ? { npmCommand: options.npmCommand } : {}),
      },
    );
    await stat(join(staging, item.binaryPath)).catch((error: unknown) => {
      throw new CorralError('CLI_AGENT_ERR_INSTALL_FAILED', `${item.packageName}@${item.version} installed, but ${item.binaryPath} is missing`, {
        cause: error,
      });
    });
    // The sandbox user (uid 1000) reads and runs the tree; npm keeps the modes of the tarball.
    await chmod(join(staging, item.binaryPath), 0o755);
    const marker: InstallMarker = {
      name: item.name,
      packageName: item.packageName,
      version: item.version,
      installedAt: new Date().toISOString(),
      sizeBytes: await treeSize(staging),
    };
    await writeFile(join(staging, INSTALL_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    await rm(folder, { recursive: true, force: true });
    await rename(staging, folder);
    return { ...marker, folder, installedNow: true, durationMs: Math.round(performance.now() - startedAt) };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Bytes of regular files under a folder (symlinks not followed). */
async function treeSize(root: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}
