/**
 * `corral eval terminal` on the one run driver (issue 22), as a child process against real Docker: what every run
 * has, terminal runs now have too. --resume refuses a run another corral is still writing; metadata.json heartbeats
 * while one long trial runs (not only when a group completes); and a trial whose container creation hits a Docker
 * daemon hiccup is retried in a fresh container and scored. The hiccup is real: the child talks to the daemon through
 * a unix-socket proxy that answers the first container create with a 500, as a struggling dockerd does.
 */
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { readMetadata, readResults, runCorral, spawnCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const TEMPLATE = resolve(import.meta.dirname, '../fixtures/terminal/hostile/always-zero');
const TRIAL_FOLDER = /__[A-Za-z0-9]{7}$/;

let workDirectory: string;
beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), 'corral-terminal-driver-'));
});
afterAll(async () => {
  if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
});

/** A copy of the always-zero task whose solve.sh is `solve` and whose verifier writes `reward`. */
async function task(name: string, solve: string, reward = 0): Promise<string> {
  const directory = join(workDirectory, name);
  await cp(TEMPLATE, directory, { recursive: true });
  await writeFile(join(directory, 'solution/solve.sh'), `#!/bin/bash\n${solve}\n`, { mode: 0o755 });
  await writeFile(join(directory, 'tests/test.sh'), `#!/bin/bash\necho ${reward} > /logs/verifier/reward.txt\n`, { mode: 0o755 });
  return directory;
}

const trialFolders = async (out: string) => (await readdir(out).catch(() => [])).filter((name) => TRIAL_FOLDER.test(name));
const pause = (ms: number) => new Promise((resolveWait) => setTimeout(resolveWait, ms));

/**
 * A unix socket in front of the Docker daemon that answers the first `POST /containers/create` with a 500 (and
 * closes that connection) and passes everything else through byte for byte, attach streams included.
 */
async function flakyDockerSocket(path: string): Promise<{ server: Server; failed: () => number }> {
  let failuresLeft = 1;
  let failed = 0;
  const server = createServer((client: Socket) => {
    const upstream = connect('/var/run/docker.sock');
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('data', (chunk: Buffer) => {
      // Requests on a keep-alive connection are sequential, so a request starts at the start of a chunk.
      if (failuresLeft > 0 && /^POST (\/v[\d.]+)?\/containers\/create/.test(chunk.toString('latin1', 0, 80))) {
        failuresLeft--;
        failed++;
        const body = JSON.stringify({ message: 'injected daemon hiccup: context deadline exceeded' });
        client.end(
          `HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.pipe(client);
  });
  await new Promise<void>((resolveListen) => server.listen(path, resolveListen));
  return { server, failed: () => failed };
}

describe.runIf(dockerAvailable)('corral eval terminal on the run driver', () => {
  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
  }, 1_500_000);

  /** Starts a run of one trial that sleeps in its agent phase; resolves once that trial's folder exists. */
  async function startLongRun(name: string) {
    const tasks = await task(name, 'sleep 600');
    const out = join(workDirectory, `${name}-run`);
    const child = spawnCorral(['eval', 'terminal', '--tasks', tasks, '--agent', 'oracle', '--out', out, '--no-progress', '--progress-interval', '1']);
    for (let waited = 0; (await trialFolders(out)).length < 1; waited += 200) {
      expect(waited, child.output.stderr).toBeLessThan(120_000);
      await pause(200);
    }
    return { child, out };
  }

  it('heartbeats metadata.json while one long trial runs, not only when its group is written', async () => {
    const { child, out } = await startLongRun('long-trial');
    try {
      const first = readMetadata(out);
      expect(first['status']).toBe('running');
      let latest = first;
      // Until the heartbeat rewrites metadata.json or the trial ends (its agent phase times out after 60 s).
      while (latest['updated_at'] === first['updated_at'] && readResults(out).length === 0) {
        await pause(250);
        latest = readMetadata(out);
      }
      expect(readResults(out), 'the heartbeat came only after the trial was written').toEqual([]);
      expect(latest).toMatchObject({ status: 'running', pid: child.pid, progress: { done: 0, total: 1 } });
    } finally {
      child.kill('SIGINT');
      await child.exited;
    }
    expect(readResults(out)).toEqual([]);
  }, 300_000);

  it('--resume refuses a terminal run another corral is still writing (RUNNER_ERR_RUN_ACTIVE, exit 2)', async () => {
    const { child, out } = await startLongRun('still-written');
    try {
      const resumed = await runCorral(['eval', '--resume', out, '--no-progress']);
      expect(resumed.code, resumed.stderr).toBe(2);
      expect(resumed.stderr).toContain('RUNNER_ERR_RUN_ACTIVE');
      expect(resumed.stderr).toContain(`pid ${child.pid}`);
      // The refused resume touched nothing: the first run still owns the directory and its one trial folder.
      expect(readMetadata(out)).toMatchObject({ status: 'running', pid: child.pid });
      expect(await trialFolders(out)).toHaveLength(1);
    } finally {
      child.kill('SIGINT');
      await child.exited;
    }
  }, 300_000);

  it('retries a trial whose container creation hits a Docker daemon hiccup, in a fresh container, and scores it', async () => {
    const tasks = await task('hiccup', 'true', 1);
    const out = join(workDirectory, 'hiccup-run');
    const socket = join(workDirectory, 'flaky-docker.sock');
    const proxy = await flakyDockerSocket(socket);
    try {
      const run = await runCorral(['eval', 'terminal', '--tasks', tasks, '--agent', 'oracle', '--out', out, '--no-progress'], {
        DOCKER_HOST: `unix://${socket}`,
      });
      expect(proxy.failed(), 'the proxy never saw a container create').toBe(1);
      expect(run.code, run.stderr).toBe(0);
      const records = readResults(out);
      expect(records.map((record) => [record.example_id, record.rollout_index, record.reward, record.error, record.attempts])).toEqual([
        ['corral-fixtures/always-zero', 0, 1, null, 2],
      ]);
      // One folder for the one recorded trial: the failed attempt's folder went when the retry started.
      const folders = await trialFolders(out);
      expect(folders).toHaveLength(1);
      expect(existsSync(join(out, folders[0]!, 'result.json'))).toBe(true);
      const job = JSON.parse(await readFile(join(out, 'result.json'), 'utf8')) as { stats: { n_trials: number; n_errors: number } };
      expect(job.stats).toMatchObject({ n_trials: 1, n_errors: 0 });
    } finally {
      await new Promise((resolveClose) => proxy.server.close(resolveClose));
    }
  }, 300_000);
});
