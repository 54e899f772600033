import { spawn } from 'node:child_process';
import { appendFile, chmod, chown, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { IMAGE_LABEL_BUILDER, IMAGE_LABEL_HASH, IMAGE_LABEL_KIND } from './docker-labels.js';
import { agentCommand, SANDBOX_WORKSPACE } from './container-options.js';
import { DEBIAN_SUITE, IMAGE_BUILDER_VERSION, type ImageDefinition, agentSourceDirectory, hashTag, readPackageList } from './image-definition.js';
import { runCommand } from './run-command.js';

export const DEFAULT_DEBIAN_MIRROR = 'http://deb.debian.org/debian';

/** Paths removed from the rootfs: documentation, translations and apt state a sandbox never needs. */
const STRIPPED_PATHS = [
  'usr/share/doc',
  'usr/share/man',
  'usr/share/info',
  'usr/share/locale',
  'usr/share/lintian',
  'var/cache/apt',
  'var/lib/apt/lists',
  'var/log',
  'var/cache/debconf',
];

/** What a task base keeps of STRIPPED_PATHS: apt and dpkg write there during a task's `RUN apt-get`. */
const TASK_BASE_KEPT_PATHS = ['var/lib/apt/lists', 'var/log', 'var/cache/debconf'];

export interface OfflineBuildOptions {
  docker: Docker;
  contentHash: string;
  log: (line: string) => void;
  mirror?: string;
}

const fail = (message: string, cause?: unknown) => new CorralError('IMG_ERR_BUILD_FAILED', message, { cause });

/**
 * Builds the image with no registry: debootstrap a minbase Debian with the package list into a temp dir,
 * add the sandbox user, /workspace and the agent, strip what a sandbox never reads, then stream a tar of
 * the tree into `docker import` through the daemon API (dockerode importImage), which needs no docker CLI
 * and no temporary tar file. Tags <repository>:<contentHash>; the caller moves :latest.
 */
export async function buildImageOffline(definition: ImageDefinition, options: OfflineBuildOptions): Promise<void> {
  if (process.getuid?.() !== 0) throw fail('the offline image build runs debootstrap and needs root: run it with sudo');
  const packages = await readPackageList(definition);
  const workDirectory = await mkdtemp(join(tmpdir(), `corral-image-${definition.name}-`));
  const rootfs = join(workDirectory, 'rootfs');
  try {
    await debootstrap(rootfs, packages, options);
    await prepareRootfs(rootfs, options.log, definition.profile ?? 'sandbox');
    await importRootfs(definition, rootfs, options);
  } finally {
    await rm(workDirectory, { recursive: true, force: true });
  }
}

async function debootstrap(rootfs: string, packages: string[], options: OfflineBuildOptions): Promise<void> {
  const mirror = options.mirror ?? process.env.CORRAL_DEBIAN_MIRROR ?? DEFAULT_DEBIAN_MIRROR;
  options.log(`debootstrap ${DEBIAN_SUITE} (minbase + ${packages.join(', ')}) from ${mirror}`);
  const args = ['--variant=minbase', `--include=${packages.join(',')}`, DEBIAN_SUITE, rootfs, mirror];
  let lastLine = '';
  let lastVerb = '';
  const result = await runCommand('debootstrap', args, {
    // debootstrap prints a line per package and phase; show the first line of each phase, and every warning.
    onLine: (line) => {
      lastLine = line;
      const verb = /^I: (\w+)/.exec(line)?.[1] ?? line;
      if (verb !== lastVerb || !line.startsWith('I:')) options.log(`  ${line}`);
      lastVerb = verb;
    },
    timeoutMs: 15 * 60_000,
  }).catch((error: unknown) => {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw fail(missing ? 'debootstrap is not installed: apt-get install debootstrap' : 'could not run debootstrap', error);
  });
  if (result.exitCode !== 0) {
    throw fail(`debootstrap failed (exit ${result.exitCode}): ${lastLine}\n${result.stderr.slice(-2000)}`);
  }
}

async function prepareRootfs(rootfs: string, log: (line: string) => void, profile: 'sandbox' | 'task-base'): Promise<void> {
  log(
    profile === 'task-base'
      ? 'stripping docs and debootstrap downloads; adding the agent'
      : 'stripping docs and caches; adding user sandbox (1000), /workspace and the agent',
  );
  // A task base keeps apt's and dpkg's state: task Dockerfiles run apt-get on top of it.
  const stripped = profile === 'task-base' ? STRIPPED_PATHS.filter((path) => !TASK_BASE_KEPT_PATHS.includes(path)) : STRIPPED_PATHS;
  for (const path of stripped) {
    await rm(join(rootfs, path), { recursive: true, force: true });
    await mkdir(join(rootfs, path), { recursive: true });
  }
  // debootstrap's downloaded .debs go; apt wants archives/partial back before its first download.
  if (profile === 'task-base') await mkdir(join(rootfs, 'var/cache/apt/archives/partial'), { recursive: true });
  // debootstrap leaves the build host's resolver and hostname; Docker mounts its own over them.
  await writeFile(join(rootfs, 'etc/resolv.conf'), '');
  await writeFile(join(rootfs, 'etc/hostname'), 'sandbox\n');
  // A task base gets no uid 1000 and no /workspace: task Dockerfiles create their own users (ubuntu:24.04 style).
  if (profile === 'sandbox') {
    await addSandboxUser(rootfs);
    const workspace = join(rootfs, SANDBOX_WORKSPACE);
    await mkdir(workspace, { recursive: true });
    await chown(workspace, 1000, 1000);
    await chmod(workspace, 0o755);
  }
  const agentTarget = join(rootfs, 'opt/corral/agent');
  await mkdir(agentTarget, { recursive: true });
  await cp(agentSourceDirectory(), agentTarget, { recursive: true, filter: (source) => !/__pycache__|\.pyc$/.test(source) });
  // The root filesystem is read-only at run time, so byte-compile the agent now or pay for it on every start.
  const compiled = await runCommand('chroot', [rootfs, 'python3', '-m', 'compileall', '-q', '/opt/corral/agent']);
  if (compiled.exitCode !== 0) log(`warning: could not byte-compile the agent: ${compiled.stderr.trim()}`);
}

async function addSandboxUser(rootfs: string): Promise<void> {
  // minbase has no useradd (passwd is not Essential), so write the account files directly.
  const passwd = await readFile(join(rootfs, 'etc/passwd'), 'utf8');
  if (/^[^:]*:[^:]*:1000:/m.test(passwd)) return;
  await appendFile(join(rootfs, 'etc/passwd'), `sandbox:x:1000:1000:corral sandbox:${SANDBOX_WORKSPACE}:/bin/bash\n`);
  await appendFile(join(rootfs, 'etc/group'), 'sandbox:x:1000:\n');
  await appendFile(join(rootfs, 'etc/shadow'), 'sandbox:!:19000:0:99999:7:::\n').catch(() => undefined);
}

/** Dockerfile-equivalent config applied at import (`docker import --change`). */
function importChanges(definition: ImageDefinition, contentHash: string): string[] {
  const label = `LABEL ${IMAGE_LABEL_KIND}=${definition.name} ${IMAGE_LABEL_HASH}=${contentHash} ${IMAGE_LABEL_BUILDER}=offline-${IMAGE_BUILDER_VERSION}`;
  // A task base looks like the public base it stands in for (root, /, a shell); the trial starts the agent itself.
  if (definition.profile === 'task-base')
    return ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'ENV LANG=C.UTF-8', 'WORKDIR /', label, 'CMD ["bash"]'];
  const command = agentCommand(0).slice(0, -2);
  return [
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    `ENV LANG=C.UTF-8 HOME=${SANDBOX_WORKSPACE}`,
    `WORKDIR ${SANDBOX_WORKSPACE}`,
    'USER 1000:1000',
    `LABEL ${IMAGE_LABEL_KIND}=${definition.name} ${IMAGE_LABEL_HASH}=${contentHash} ${IMAGE_LABEL_BUILDER}=offline-${IMAGE_BUILDER_VERSION}`,
    `CMD ${JSON.stringify(command)}`,
  ];
}

async function importRootfs(definition: ImageDefinition, rootfs: string, options: OfflineBuildOptions): Promise<void> {
  const tag = hashTag(definition, options.contentHash);
  options.log(`importing the root filesystem as ${tag}`);
  // /dev, /proc and /sys are mounted by the runtime; device nodes in the tar would only cause trouble.
  const tar = spawn('tar', ['-C', rootfs, '--numeric-owner', '--exclude=./dev/*', '--exclude=./proc/*', '--exclude=./sys/*', '-c', '.'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tarError = '';
  tar.stderr.on('data', (chunk: Buffer) => (tarError += chunk.toString()));
  const tarExit = new Promise<number | null>((resolve) => tar.on('close', resolve));
  const [repository, tagName] = [definition.repository, options.contentHash];
  const progress = await options.docker.importImage(tar.stdout, {
    repo: repository,
    tag: tagName,
    changes: importChanges(definition, options.contentHash),
    message: `corral offline build ${options.contentHash}`,
  } as Record<string, unknown>);
  await new Promise<void>((resolve, reject) => {
    options.docker.modem.followProgress(progress, (error: Error | null, events: Array<{ error?: string }>) => {
      const failed = error?.message ?? events.find((event) => event.error)?.error;
      if (failed) reject(fail(`docker import failed: ${failed}`, error));
      else resolve();
    });
  });
  const exitCode = await tarExit;
  if (exitCode !== 0) throw fail(`tar of the root filesystem failed (exit ${exitCode}): ${tarError.slice(-2000)}`);
}
