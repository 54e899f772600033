/**
 * Infrastructure faults under `corral eval` on the Docker backend: a sandbox container killed mid-rollout marks
 * only that rollout errored (boundary 'sandbox', after the runner's retries), and an eval killed with SIGKILL
 * finishes with --resume without losing or duplicating a rollout, leaving no container behind.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { dataDirectoryWith } from '../helpers/test-gates.js';
import { CODE_FIXTURES, containersOwnedBy, docker, readMetadata, readResults, runCorral, spawnCorral } from './runner-cli.js';

const dockerBackend = await backendAvailable('docker');
const scratch = mkdtempSync(join(tmpdir(), 'corral-runner-faults-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const REFERENCES: Record<string, string> = {
  add_pair: 'def add_pair(a: int, b: int) -> int:\n    return a + b\n',
  shout: "def shout(word: str) -> str:\n    return word.upper() + '!'\n",
};
/** A command line no other test runs, so the test can tell which container is the victim's. */
const VICTIM_COMMAND = 'sleep 21';

/** Every rollout writes the reference and answers, except rollout 1 of `shout` (seed 100 + 1), which sleeps in bash. */
function script(body: ChatCompletionRequestBody): ModelReply {
  const question = String(body.messages.find((message) => message.role === 'user')?.content ?? '');
  const turn = body.messages.filter((message) => message.role === 'assistant').length;
  const [name, code] = Object.entries(REFERENCES).find(([entry]) => question.includes(entry))!;
  if (name === 'shout' && body.seed === 101) {
    return turn === 0
      ? { kind: 'tool-calls', toolCalls: [{ name: 'bash', arguments: { command: VICTIM_COMMAND, timeout_s: 60 } }] }
      : { kind: 'text', content: 'The sleep ended.' };
  }
  return turn === 0
    ? { kind: 'tool-calls', toolCalls: [{ name: 'write_file', arguments: { path: 'solution.py', content: code } }] }
    : { kind: 'text', content: 'Done.' };
}

/** Kills, until stopped, every container of `ownerPid` that is running the victim command; returns how many. */
function killVictimsOf(ownerPid: number): { stop(): Promise<number> } {
  let stopped = false;
  let kills = 0;
  const loop = (async () => {
    while (!stopped) {
      for (const id of await containersOwnedBy(ownerPid).catch(() => [])) {
        // docker top insists on a pid column.
        const processes = await docker('top', id, '-eo', 'pid,args').catch(() => '');
        if (!processes.includes(VICTIM_COMMAND)) continue;
        await docker('kill', id).then(
          () => kills++,
          () => undefined,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return kills;
    },
  };
}

/** The exit code, or 'timeout': a hung child must fail the test, not outlive it. */
function exitWithin(exited: Promise<number | null>, timeoutMs: number): Promise<number | null | 'timeout'> {
  return Promise.race([exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref())]);
}

describe.skipIf(!dockerBackend)('runner faults on the docker backend', () => {
  it("a container killed mid-rollout errors only that rollout (boundary 'sandbox', retried first); its siblings pass", async () => {
    const model = await startScriptedModelServer(script);
    const out = join(scratch, 'killed');
    const child = spawnCorral([
      'eval',
      'python-code',
      '--dataset',
      join(CODE_FIXTURES, 'humaneval-tiny.jsonl'),
      '--agent',
      'openai',
      '--model',
      'scripted',
      '--base-url',
      model.baseURL,
      '--backend',
      'docker',
      '-r',
      '2',
      '-c',
      '4',
      '--seed',
      '100',
      '--out',
      out,
      '--no-progress',
    ]);
    const killer = killVictimsOf(child.pid!);
    try {
      // One rollout errored: the run completes and exits 1, not 0.
      expect(await exitWithin(child.exited, 150_000), child.output.stderr).toBe(1);
    } finally {
      child.kill('SIGKILL');
      await model.close();
    }
    // The runner retries transient sandbox failures (3 attempts in all), and each attempt's container was killed.
    expect(await killer.stop()).toBe(3);
    const records = readResults(out);
    expect(records).toHaveLength(4);
    const victim = records.find((record) => record.example_id === 'Tiny/1' && record.rollout_index === 1)!;
    expect(victim.reward).toBeNull();
    expect(victim.error).toMatchObject({ boundary: 'sandbox', transient: true });
    expect(victim.error!.code).toMatch(/^SBX_ERR_(KILLED|CLOSED)$/);
    expect(victim.attempts).toBe(3);
    const siblings = records.filter((record) => record !== victim);
    expect(siblings.map((record) => [record.example_id, record.reward, record.error])).toEqual(
      expect.arrayContaining([
        ['Tiny/0', 1, null],
        ['Tiny/0', 1, null],
        ['Tiny/1', 1, null],
      ]),
    );
    expect(readMetadata(out)).toMatchObject({ rollouts: 4, errored: 1, avg_reward: 1 });
    expect(await containersOwnedBy(child.pid!)).toEqual([]);
  }, 180_000);

  const dataDir = dataDirectoryWith(['humaneval/HumanEval.jsonl']);

  it.skipIf(!dataDir)(
    'an eval killed with SIGKILL finishes with --resume: 40 unique rollouts, no duplicates, no container left',
    async () => {
      const out = join(scratch, 'resumed');
      const args = ['eval', 'python-code', '--agent', 'oracle', '-n', '40', '-c', '4', '--backend', 'docker', '--no-progress'];
      const environment = { CORRAL_DATA_DIR: dataDir! };
      const first = spawnCorral([...args, '--out', out], environment);
      const lines = () => (existsSync(join(out, 'results.jsonl')) ? readFileSync(join(out, 'results.jsonl'), 'utf8').split('\n').length - 1 : 0);
      try {
        while (lines() < 4) {
          if (first.exitCode !== null) throw new Error(`eval ended before it could be killed: ${first.output.stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        first.kill('SIGKILL');
        await first.exited;
      } finally {
        first.kill('SIGKILL');
      }
      const beforeResume = lines();
      expect(beforeResume).toBeLessThan(40);

      const second = spawnCorral([...args, '--resume', out], environment);
      try {
        expect(await exitWithin(second.exited, 200_000), second.output.stderr).toBe(0);
      } finally {
        second.kill('SIGKILL');
      }
      expect(second.output.stderr).toMatch(new RegExp(`${beforeResume} already done`));

      const records = readResults(out);
      const keys = records.map((record) => `${record.example_id}#${record.rollout_index}`);
      expect(keys).toHaveLength(40);
      expect(new Set(keys).size).toBe(40);
      expect(records.every((record) => record.reward === 1 && record.error === null)).toBe(true);
      expect(readMetadata(out)).toMatchObject({ status: 'complete', rollouts: 40, errored: 0, avg_reward: 1 });

      // The SIGKILLed owner could not release its containers; `corral cleanup` reaps them by label.
      const cleanup = await runCorral(['cleanup']);
      expect(cleanup.code, cleanup.stderr).toBe(0);
      expect(await containersOwnedBy(first.pid!)).toEqual([]);
      expect(await containersOwnedBy(second.pid!)).toEqual([]);
    },
    300_000,
  );

  it.skipIf(!dataDir)(
    'Ctrl-C (SIGINT) cancels an eval cleanly: exit 130, status cancelled, valid JSONL, its containers released without cleanup',
    async () => {
      const out = join(scratch, 'interrupted');
      const args = ['eval', 'python-code', '--agent', 'oracle', '-n', '60', '-c', '4', '--backend', 'docker', '--no-progress', '--out', out];
      const child = spawnCorral(args, { CORRAL_DATA_DIR: dataDir! });
      const lines = () => (existsSync(join(out, 'results.jsonl')) ? readFileSync(join(out, 'results.jsonl'), 'utf8').split('\n').length - 1 : 0);
      try {
        while (lines() < 4) {
          if (child.exitCode !== null) throw new Error(`eval ended before it could be interrupted: ${child.output.stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        child.kill('SIGINT');
        expect(await exitWithin(child.exited, 60_000), child.output.stderr).toBe(130);
      } finally {
        child.kill('SIGKILL');
      }
      expect(child.output.stderr).toContain('cancelling');
      const records = readResults(out);
      expect(records.length).toBeGreaterThan(0);
      expect(records.length).toBeLessThan(60);
      expect(records.every((record) => record.error === null && record.reward === 1)).toBe(true);
      expect(readMetadata(out)).toMatchObject({ status: 'cancelled' });
      // Released by the process itself on the way out: no `corral cleanup` ran.
      expect(await containersOwnedBy(child.pid!)).toEqual([]);
    },
    180_000,
  );
});
