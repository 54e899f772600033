/**
 * `corral eval terminal` as a child process around its lifecycle (issues 20 and 21): with no Docker daemon it
 * refuses to start (exit 2, no run written) instead of erroring every trial; cancelled trials leave no folder
 * behind, so after --resume the run holds exactly one trial folder per trial; what a SIGKILLed run leaves (a
 * running verifier container, the image committed for it) is removed by `corral cleanup` and by the next run.
 */
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDockerConnection } from '../../src/sandbox/docker/docker-connection.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { containersOwnedBy, readResults, runCorral, spawnCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const TEMPLATE = resolve(import.meta.dirname, '../fixtures/terminal/hostile/always-zero');
const TRIAL_FOLDER = /__[A-Za-z0-9]{7}$/;

let workDirectory: string;
beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), 'corral-terminal-lifecycle-'));
});
afterAll(async () => {
  if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
});

/** A copy of the always-zero task whose solve.sh is `script`. */
async function task(name: string, script: string): Promise<string> {
  const directory = join(workDirectory, name);
  await cp(TEMPLATE, directory, { recursive: true });
  await writeFile(join(directory, 'solution/solve.sh'), `#!/bin/bash\n${script}\n`, { mode: 0o755 });
  return directory;
}

const trialFolders = async (out: string) => (await readdir(out).catch(() => [])).filter((name) => TRIAL_FOLDER.test(name));

describe('corral eval terminal without a Docker daemon', () => {
  it('refuses to start with exit 2 and SBX_ERR_UNAVAILABLE, writing no run', async () => {
    const tasks = await task('no-daemon', 'true');
    const out = join(workDirectory, 'no-daemon-run');
    const result = await runCorral(['eval', 'terminal', '--tasks', tasks, '--agent', 'oracle', '--out', out, '--no-progress'], {
      DOCKER_HOST: `unix://${join(workDirectory, 'no-docker.sock')}`,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('SBX_ERR_UNAVAILABLE');
    expect(existsSync(join(out, 'results.jsonl'))).toBe(false);
  }, 120_000);
});

describe.runIf(dockerAvailable)('corral eval terminal: cancel and resume', () => {
  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
  }, 1_500_000);

  it('cancelled trials leave no folder; after --resume there is one trial folder per trial and Harbor counts each once', async () => {
    const tasks = await task('cancel-me', 'sleep 600');
    const out = join(workDirectory, 'cancel-run');
    const child = spawnCorral(['eval', 'terminal', '--tasks', tasks, '--agent', 'oracle', '-r', '3', '-c', '2', '--out', out, '--no-progress']);
    // Both in-flight trials are in their agent phase (solve.sh sleeping) once two trial folders hold agent/.
    for (let waited = 0; (await trialFolders(out)).length < 2; waited += 200) {
      expect(waited, child.output.stderr).toBeLessThan(120_000);
      await new Promise((resolveWait) => setTimeout(resolveWait, 200));
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 2_000));
    child.kill('SIGINT');
    expect(await child.exited, child.output.stderr).toBe(130);
    expect(readResults(out)).toEqual([]);
    expect(await trialFolders(out)).toEqual([]);

    await writeFile(join(tasks, 'solution/solve.sh'), '#!/bin/bash\ntrue\n', { mode: 0o755 });
    const resumed = await runCorral(['eval', '--resume', out, '--no-progress']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readResults(out).map((record) => [record.rollout_index, record.reward, record.error])).toEqual([
      [0, 0, null],
      [1, 0, null],
      [2, 0, null],
    ]);
    expect(await trialFolders(out)).toHaveLength(3);
    const job = JSON.parse(await readFile(join(out, 'result.json'), 'utf8')) as { stats: { n_trials: number; n_errors: number } };
    expect(job.stats).toMatchObject({ n_trials: 3, n_errors: 0 });
  }, 600_000);

  it('a resumed run removes trial folders that no record stands for (a killed run left them)', async () => {
    const tasks = await task('leftovers', 'true');
    const out = join(workDirectory, 'leftover-run');
    const first = await runCorral(['eval', 'terminal', '--tasks', tasks, '--agent', 'oracle', '-r', '2', '--out', out, '--no-progress']);
    expect(first.code, first.stderr).toBe(0);
    const kept = await trialFolders(out);
    expect(kept).toHaveLength(2);
    // What a SIGKILLed run leaves: a folder mid-trial (no result.json), and a finished trial whose group was never recorded.
    await cp(join(out, kept[0]!), join(out, 'leftovers__abcdefg'), { recursive: true });
    await rm(join(out, 'leftovers__abcdefg', 'result.json'));
    const unrecorded = JSON.parse(await readFile(join(out, kept[1]!, 'result.json'), 'utf8')) as { agent_result: { metadata: { rollout_index: number } } };
    unrecorded.agent_result.metadata.rollout_index = 7;
    await cp(join(out, kept[1]!), join(out, 'leftovers__hijkmnp'), { recursive: true });
    await writeFile(join(out, 'leftovers__hijkmnp', 'result.json'), JSON.stringify(unrecorded));

    const resumed = await runCorral(['eval', '--resume', out, '--no-progress']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await trialFolders(out)).sort()).toEqual([...kept].sort());
    const job = JSON.parse(await readFile(join(out, 'result.json'), 'utf8')) as { stats: { n_trials: number } };
    expect(job.stats.n_trials).toBe(2);
  }, 600_000);

  describe('after SIGKILL of corral during verification', () => {
    /** corral-trial images whose owner label names this host and pid. */
    const committedImagesOwnedBy = async (pid: number) => {
      const { docker, close } = openDockerConnection();
      try {
        const images = await docker.listImages({ filters: { reference: ['corral-trial'] } });
        return images.filter((image) => image.Labels?.['corral.owner']?.startsWith(`${hostname()}:${pid}:`)).map((image) => image.Id);
      } finally {
        close();
      }
    };

    /** Starts a run whose verifier sleeps, waits until its image is committed and its verifier runs, then SIGKILLs it. */
    async function killDuringVerification(name: string): Promise<number> {
      const tasks = await task(name, 'true');
      await writeFile(join(tasks, 'tests/test.sh'), '#!/bin/bash\nsleep 600\n', { mode: 0o755 });
      const child = spawnCorral(['eval', 'terminal', '--tasks', tasks, '--agent', 'oracle', '--out', join(workDirectory, `${name}-run`), '--no-progress']);
      const pid = child.pid!;
      for (let waited = 0; (await committedImagesOwnedBy(pid)).length === 0 || (await containersOwnedBy(pid)).length === 0; waited += 250) {
        expect(waited, child.output.stderr).toBeLessThan(120_000);
        await new Promise((resolveWait) => setTimeout(resolveWait, 250));
      }
      child.kill('SIGKILL');
      await child.exited;
      expect(await committedImagesOwnedBy(pid)).toHaveLength(1);
      return pid;
    }

    it('corral cleanup removes its verifier container and the committed image', async () => {
      const pid = await killDuringVerification('killed-then-cleanup');
      const cleanup = await runCorral(['cleanup']);
      expect(cleanup.code, cleanup.stderr).toBe(0);
      expect(await containersOwnedBy(pid)).toEqual([]);
      expect(await committedImagesOwnedBy(pid)).toEqual([]);
    }, 300_000);

    it('the next corral eval terminal removes them when it starts', async () => {
      const pid = await killDuringVerification('killed-then-rerun');
      const next = await runCorral([
        'eval',
        'terminal',
        '--tasks',
        await task('next-run', 'true'),
        '--agent',
        'nop',
        '--out',
        join(workDirectory, 'next-run'),
        '--no-progress',
      ]);
      expect(next.code, next.stderr).toBe(0);
      expect(await containersOwnedBy(pid)).toEqual([]);
      expect(await committedImagesOwnedBy(pid)).toEqual([]);
    }, 300_000);
  });
});
