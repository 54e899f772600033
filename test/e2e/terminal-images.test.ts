/**
 * Task images with the real Docker engine, offline: the task bases are built once (debootstrap + docker
 * import), then hello-world (python:3.13-slim-bookworm) and fix-permissions (ubuntu:24.04) of
 * terminal-tasks-harbor and the TB v1 fixture build on them through the FROM map; a broken Dockerfile fails
 * with its code and log while the others build; a second build is skipped by tag.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDockerConnection } from '../../src/sandbox/docker/docker-connection.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { DEFAULT_BASE_IMAGE_MAP } from '../../src/terminal/base-image-map.js';
import { loadTask } from '../../src/terminal/dataset-loader.js';
import { buildTaskImages } from '../../src/terminal/task-image-builder.js';
import type { TerminalTask } from '../../src/terminal/terminal-task.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { dataDirectoryWith } from '../helpers/test-gates.js';

const dockerAvailable = await backendAvailable('docker');
const dataDir = dataDirectoryWith(['terminal-tasks-harbor/hello-world/task.toml', 'terminal-tasks-harbor/fix-permissions/task.toml']);
const FIXTURES = resolve(import.meta.dirname, '../fixtures/terminal');
const map = { entries: DEFAULT_BASE_IMAGE_MAP };

/** Runs a shell script in a throwaway container of image; returns its exit code and output. */
async function runInImage(docker: Docker, image: string, script: string): Promise<{ exitCode: number; output: string }> {
  const container = await docker.createContainer({ Image: image, Cmd: ['bash', '-c', script], HostConfig: { NetworkMode: 'none' } });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    const logs = await container.logs({ stdout: true, stderr: true, follow: false });
    return { exitCode: StatusCode, output: demultiplex(logs) };
  } finally {
    await container.remove({ force: true });
  }
}

/** Non-TTY logs are frames: 1 byte stream, 3 zero bytes, a 4-byte big-endian length, then the payload. */
function demultiplex(logs: Buffer): string {
  const parts: Buffer[] = [];
  for (let offset = 0; offset + 8 <= logs.length;) {
    const size = logs.readUInt32BE(offset + 4);
    parts.push(logs.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

describe.runIf(dockerAvailable && dataDir)('task images built offline through the base-image map', () => {
  const connection = openDockerConnection();
  let logDirectory: string;
  let tasks: TerminalTask[];

  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
    logDirectory = await mkdtemp(join(tmpdir(), 'corral-task-build-logs-'));
    tasks = [
      await loadTask(join(dataDir!, 'terminal-tasks-harbor/hello-world')),
      await loadTask(join(dataDir!, 'terminal-tasks-harbor/fix-permissions')),
      await loadTask(join(FIXTURES, 'harbor/broken-build')),
      await loadTask(join(FIXTURES, 'tb-v1/greet-file')),
    ];
  }, 1_800_000);

  afterAll(async () => {
    await rm(logDirectory, { recursive: true, force: true });
    connection.close();
  });

  it('builds each task on its mapped base (agent and python3 >= 3.9 inside, WORKDIR /app); the broken one fails with its code and log, the others still build', async () => {
    const results = await buildTaskImages(tasks, {
      docker: connection.docker,
      map,
      logDirectory,
      concurrency: 2,
      force: true,
      log: (line) => console.log(`[tasks] ${line}`),
    });
    const byTask = Object.fromEntries(results.map((result) => [result.task, result]));
    expect(byTask['terminal-bench/hello-world']).toMatchObject({
      status: 'built',
      image: expect.stringMatching(/^corral-task\/terminal-bench-hello-world:[0-9a-f]{16}$/),
    });
    expect(byTask['terminal-bench/fix-permissions']).toMatchObject({
      status: 'built',
      image: expect.stringMatching(/^corral-task\/terminal-bench-fix-permissions:/),
    });
    expect(byTask['greet-file']).toMatchObject({ status: 'built' });

    const broken = byTask['corral-fixtures/broken-build']!;
    expect(broken).toMatchObject({ status: 'failed', error: { code: 'TASK_ERR_IMAGE_BUILD_FAILED' } });
    expect(broken.error!.message).toMatch(/exit code: 7|returned a non-zero code: 7/);
    expect(await readFile(broken.logPath!, 'utf8')).toContain('corral-broken-build: about to fail');

    const probe =
      'set -e; pwd; python3 -c "import sys; assert sys.version_info >= (3, 9); print(sys.version_info[:2])"; test -f /opt/corral/agent/agent.py; id -u';
    const hello = await runInImage(connection.docker, byTask['terminal-bench/hello-world']!.image!, `${probe}; command -v python; python3 -m pytest --version`);
    expect(hello.exitCode, hello.output).toBe(0);
    expect(hello.output).toMatch(/^\/app\n\(3, \d+\)\n0\n/);
    const fix = await runInImage(
      connection.docker,
      byTask['terminal-bench/fix-permissions']!.image!,
      `${probe}; stat -c %a /app/process_data.sh; grep -c bookworm /etc/os-release`,
    );
    expect(fix.exitCode, fix.output).toBe(0);
    expect(fix.output).toMatch(/\n644\n[1-9]/);
    const greet = await runInImage(connection.docker, byTask['greet-file']!.image!, 'pwd; cat /app/name.txt');
    expect(greet.output).toBe('/app\ncorral\n');
  }, 1_800_000);

  it('a second build is skipped by the content-hash tag and gives the same image', async () => {
    const first = await buildTaskImages(tasks.slice(0, 2), { docker: connection.docker, map, logDirectory });
    const second = await buildTaskImages(tasks.slice(0, 2), { docker: connection.docker, map, logDirectory });
    expect(second.map((result) => result.status)).toEqual(['cached', 'cached']);
    expect(second.map((result) => result.image)).toEqual(first.map((result) => result.image));
  }, 1_800_000);

  it('a docker_image that is not local, and a FROM neither mapped nor local, fail with TASK_ERR_IMAGE_NOT_FOUND', async () => {
    const prebuilt: TerminalTask = { ...tasks[0]!, name: 'prebuilt', environment: { ...tasks[0]!.environment, dockerImage: 'corral-test/absent:never' } };
    const unmapped: TerminalTask = { ...tasks[0]!, name: 'unmapped' };
    const emptyMap = { entries: [] };
    const [prebuiltResult] = await buildTaskImages([prebuilt], { docker: connection.docker, map, logDirectory });
    const [unmappedResult] = await buildTaskImages([unmapped], { docker: connection.docker, map: emptyMap, logDirectory });
    expect(prebuiltResult).toMatchObject({
      status: 'failed',
      error: { code: 'TASK_ERR_IMAGE_NOT_FOUND', message: expect.stringMatching(/corral-test\/absent:never is not a local image/) },
    });
    expect(unmappedResult).toMatchObject({
      status: 'failed',
      error: {
        code: 'TASK_ERR_IMAGE_NOT_FOUND',
        message: expect.stringMatching(/FROM python:3.13-slim-bookworm is neither in the base-image map nor a local image/),
      },
    });
  });
});
