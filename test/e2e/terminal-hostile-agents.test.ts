/**
 * Hostile agent phases through real trials on Docker (issue 20). Each task is a copy of the always-zero fixture
 * (test.sh writes 0) with its own solve.sh, run by the oracle: whatever the agent does to its own file system
 * (links at /logs/verifier, /logs/agent or /tests, /logs or /tests made a file) the trial ends with the verifier's 0,
 * never 1, never errored, never missing, and the host never reads or writes through what the agent planted.
 */
import { cp, lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDockerConnection } from '../../src/sandbox/docker/docker-connection.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { DEFAULT_BASE_IMAGE_MAP } from '../../src/terminal/base-image-map.js';
import { loadTask } from '../../src/terminal/dataset-loader.js';
import { buildTaskImages } from '../../src/terminal/task-image-builder.js';
import type { TerminalTask } from '../../src/terminal/terminal-task.js';
import { oracleAgent } from '../../src/terminal/trial/oracle-agent.js';
import { runTrial } from '../../src/terminal/trial/run-trial.js';
import type { TrialAgent } from '../../src/terminal/trial/trial-agent.js';
import { TrialContainerPool } from '../../src/terminal/trial/trial-container-pool.js';
import type { TrialResult } from '../../src/terminal/trial/trial-result.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { readResults, runCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const TEMPLATE = resolve(import.meta.dirname, '../fixtures/terminal/hostile/always-zero');
const policy = { forbidEgress: true };

/** A copy of the always-zero task named `name` whose solve.sh is `script`. */
async function hostileTask(root: string, name: string, script: string): Promise<string> {
  const directory = join(root, name);
  await cp(TEMPLATE, directory, { recursive: true });
  const toml = await readFile(join(directory, 'task.toml'), 'utf8');
  await writeFile(join(directory, 'task.toml'), toml.replace('corral-fixtures/always-zero', `corral-fixtures/hostile-${name}`));
  await writeFile(join(directory, 'solution/solve.sh'), `#!/bin/bash\n${script}\n`, { mode: 0o755 });
  return directory;
}

async function isRealDirectory(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  return info !== undefined && info.isDirectory() && !info.isSymbolicLink();
}

describe.runIf(dockerAvailable)('terminal trials: what an agent phase does to its file system never decides what the host reads', () => {
  const { docker, close } = openDockerConnection();
  let workDirectory: string;
  /** A host folder the agents point their links at: it holds a forged reward and files the host must not touch. */
  let hostDirectory: string;
  let pool: TrialContainerPool;

  async function trial(task: TerminalTask, agent: TrialAgent): Promise<TrialResult> {
    const [built] = await buildTaskImages([task], {
      docker,
      map: { entries: DEFAULT_BASE_IMAGE_MAP },
      logDirectory: join(workDirectory, 'build-logs'),
      log: () => {},
    });
    expect(built?.error).toBeUndefined();
    return runTrial({
      docker,
      pool,
      task,
      image: built!.image,
      imageMs: 0,
      agent,
      trialDirectory: join(workDirectory, 'trials', `${task.name.replace(/\W+/g, '-')}-${Math.random().toString(36).slice(2, 8)}`),
      timeoutMultiplier: 1,
      policy,
      rolloutIndex: 0,
      abortSignal: new AbortController().signal,
    });
  }

  async function oracleTrial(name: string, script: string): Promise<TrialResult> {
    return trial(await loadTask(await hostileTask(join(workDirectory, 'tasks'), name, script)), oracleAgent);
  }

  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
    workDirectory = await mkdtemp(join(tmpdir(), 'corral-terminal-hostile-'));
    hostDirectory = join(workDirectory, 'host');
    await mkdir(hostDirectory);
    await writeFile(join(hostDirectory, 'reward.txt'), '1\n');
    pool = new TrialContainerPool({ docker, policy, lifetimeMs: 3_600_000 });
  }, 1_500_000);

  afterAll(async () => {
    await pool?.close();
    close();
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  it('a relative link /logs/verifier -> agent (with reward 1 in /logs/agent) gives the verifier 0, not 1', async () => {
    const result = await oracleTrial('relative-verifier-link', 'echo 1 > /logs/agent/reward.txt; rm -rf /logs/verifier; ln -s agent /logs/verifier');
    expect({ reward: result.reward, error: result.error }).toEqual({ reward: 0, error: null });
    expect(await isRealDirectory(join(result.directories.trial, 'verifier'))).toBe(true);
    expect(await readFile(join(result.directories.trial, 'verifier', 'test-stdout.txt'), 'utf8')).toContain('the verdict is always 0');
  }, 300_000);

  it('an absolute link /logs/verifier -> a host folder holding reward 1 gives 0: no host path is read', async () => {
    const result = await oracleTrial('absolute-verifier-link', `rm -rf /logs/verifier; ln -s ${hostDirectory} /logs/verifier`);
    expect({ reward: result.reward, error: result.error }).toEqual({ reward: 0, error: null });
    expect(await isRealDirectory(join(result.directories.trial, 'verifier'))).toBe(true);
  }, 300_000);

  it('/logs/verifier -> /nonexistent, /logs a regular file, /tests a file or a link: the verifier still gives its 0', async () => {
    const scripts = {
      'verifier-dangling-link': 'rm -rf /logs/verifier; ln -s /nonexistent /logs/verifier',
      'logs-a-file': 'rm -rf /logs; echo not a folder > /logs',
      'tests-a-file': 'echo not a folder > /tests',
      'tests-a-link': 'mkdir -p /tmp/elsewhere; ln -s /tmp/elsewhere /tests',
    };
    const results = await Promise.all(Object.entries(scripts).map(([name, script]) => oracleTrial(name, script)));
    expect(results.map((result) => [result.task, result.reward, result.error])).toEqual(
      Object.keys(scripts).map((name) => [`corral-fixtures/hostile-${name}`, 0, null]),
    );
  }, 300_000);

  it('an agent that kills its own in-sandbox agent (SBX_ERR_*) is verified like any attempt: 0, not errored', async () => {
    const killer = `python3 -c "import os; [os.kill(int(p), 9) for p in os.listdir('/proc') if p.isdigit() and b'/opt/corral/agent' in open('/proc/%s/cmdline' % p, 'rb').read()]"`;
    const result = await oracleTrial('kills-its-agent', killer);
    expect(result.agentPhase.error?.code).toMatch(/^SBX_ERR_/);
    expect({ reward: result.reward, error: result.error }).toEqual({ reward: 0, error: null });
  }, 300_000);

  it('/logs/agent -> a host folder: the host writes the agent files into the trial folder, never through the link', async () => {
    await writeFile(join(hostDirectory, 'cli-stdout.txt'), 'precious\n');
    const linking: TrialAgent = {
      name: 'linker',
      model: 'linker',
      async run(context) {
        const linked = await context.exec(`python3 -c "import os, shutil; shutil.rmtree('/logs/agent'); os.symlink('${hostDirectory}', '/logs/agent')"`);
        return { exitCode: linked.exitCode, agentFiles: [{ name: 'cli-stdout.txt', content: 'from the host side\n' }] };
      },
    };
    const task = await loadTask(await hostileTask(join(workDirectory, 'tasks'), 'agent-link', 'true'));
    const result = await trial(task, linking);
    expect({ exitCode: result.agentPhase.exitCode, reward: result.reward, error: result.error }).toEqual({ exitCode: 0, reward: 0, error: null });
    expect(await readFile(join(hostDirectory, 'cli-stdout.txt'), 'utf8')).toBe('precious\n');
    expect(await isRealDirectory(join(result.directories.trial, 'agent'))).toBe(true);
    expect(await readFile(join(result.directories.trial, 'agent', 'cli-stdout.txt'), 'utf8')).toBe('from the host side\n');
  }, 300_000);

  it('corral eval terminal --agent oracle on the hostile tasks: one record each, every reward 0, none errored, exit 0', async () => {
    const dataset = join(workDirectory, 'dataset');
    const scripts = {
      'relative-verifier-link': 'echo 1 > /logs/agent/reward.txt; rm -rf /logs/verifier; ln -s agent /logs/verifier',
      'absolute-verifier-link': `rm -rf /logs/verifier; ln -s ${hostDirectory} /logs/verifier`,
      'verifier-dangling-link': 'rm -rf /logs/verifier; ln -s /nonexistent /logs/verifier',
      'agent-link': `python3 -c "import os, shutil; shutil.rmtree('/logs/agent'); os.symlink('${hostDirectory}', '/logs/agent')"`,
      'logs-a-file': 'rm -rf /logs; echo not a folder > /logs',
      'tests-a-link': 'ln -s /nonexistent /tests',
    };
    for (const [name, script] of Object.entries(scripts)) await hostileTask(dataset, name, script);
    await writeFile(join(hostDirectory, 'trajectory.json'), 'precious\n');
    const out = join(workDirectory, 'run');
    const result = await runCorral(['eval', 'terminal', '--tasks', dataset, '--agent', 'oracle', '-c', '3', '--out', out, '--no-progress']);
    expect(result.code, result.stderr).toBe(0);
    const records = readResults(out);
    expect(records.map((record) => [record.example_id, record.reward, record.error]).sort()).toEqual(
      Object.keys(scripts)
        .map((name) => [`corral-fixtures/hostile-${name}`, 0, null])
        .sort(),
    );
    for (const record of records) {
      const trialDirectory = join(out, (record.info as { trial_name: string }).trial_name);
      for (const folder of ['agent', 'verifier']) expect(await isRealDirectory(join(trialDirectory, folder)), `${record.example_id} ${folder}`).toBe(true);
    }
    expect((await readdir(hostDirectory)).sort()).toEqual(['cli-stdout.txt', 'reward.txt', 'trajectory.json']);
    expect(await readFile(join(hostDirectory, 'trajectory.json'), 'utf8')).toBe('precious\n');
  }, 600_000);

  it('[environment].storage_mb: an agent phase that leaves more scores 0 unverified; one within it is verified', async () => {
    const storageTask = async (name: string, megabytes: number) => {
      const directory = await hostileTask(join(workDirectory, 'tasks'), name, `head -c ${megabytes}M /dev/urandom > /app/blob`);
      const toml = await readFile(join(directory, 'task.toml'), 'utf8');
      await writeFile(join(directory, 'task.toml'), toml.replace('network_mode = "no-network"', 'network_mode = "no-network"\nstorage_mb = 64'));
      // This verifier passes anything: only the storage check can make the trial 0.
      await writeFile(join(directory, 'tests/test.sh'), '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n', { mode: 0o755 });
      return loadTask(directory);
    };
    const [over, within] = await Promise.all([
      storageTask('storage-over', 100).then((task) => trial(task, oracleAgent)),
      storageTask('storage-within', 8).then((task) => trial(task, oracleAgent)),
    ]);
    expect({ reward: over.reward, error: over.error, code: over.agentPhase.error?.code, verifier: over.verifierPhase }).toEqual({
      reward: 0,
      error: null,
      code: 'TERMINAL_ERR_STORAGE_EXCEEDED',
      verifier: null,
    });
    expect({ reward: within.reward, error: within.error, agentError: within.agentPhase.error }).toEqual({ reward: 1, error: null, agentError: null });
  }, 300_000);
});
