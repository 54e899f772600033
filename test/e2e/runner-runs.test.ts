/**
 * Runs you can trust, through `corral eval` as a child process on the process backend: --resume rebuilds the run
 * from metadata.json (and refuses a flag that disagrees), a group cut by a SIGKILL gets whole-group statistics on
 * resume, exit statuses tell a clean run from an errored, stopped or refused one, preflight refuses runs that
 * cannot work, model output is recorded faithfully (truncation, reasoning, token usage), and a run outside a
 * terminal reports progress and keeps metadata.json current.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { CODE_FIXTURES, RUNNER_FIXTURES, readMetadata, readResults, runCorral, spawnCorral } from './runner-cli.js';

const processBackend = await backendAvailable('process');
const scratch = mkdtempSync(join(tmpdir(), 'corral-runner-runs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const TINY_CODE = join(CODE_FIXTURES, 'humaneval-tiny.jsonl');
const PAGES = join(RUNNER_FIXTURES, 'tiny-pages.jsonl');
const QUESTIONS = join(RUNNER_FIXTURES, 'tiny-questions.jsonl');
const oracle = (out: string, ...extra: string[]) => [
  'eval',
  'python-code',
  '--dataset',
  TINY_CODE,
  '--agent',
  'oracle',
  '--backend',
  'process',
  '--no-progress',
  '--out',
  out,
  ...extra,
];
const userQuestion = (body: ChatCompletionRequestBody) => String(body.messages.find((message) => message.role === 'user')?.content ?? '');
/** No vendor endpoint leaks in from the developer's shell. */
const NO_OPENAI_ENV = { OPENAI_BASE_URL: '', OPENAI_API_KEY: '' };

/** A pid that certainly belongs to no live process: a child that has already exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid;

describe.skipIf(!processBackend)('corral eval runs you can trust (process backend)', () => {
  it('--resume restores the run from metadata.json: -n is kept, a differing flag is refused naming both values, the run is unchanged', async () => {
    const out = join(scratch, 'resume-restores');
    const first = await runCorral(oracle(out, '-n', '1', '-r', '2'));
    expect(first.code, first.stderr).toBe(0);
    const metadata = readMetadata(out);
    expect(metadata).toMatchObject({
      status: 'complete',
      num_examples: 1,
      rollouts: 2,
      pid: expect.any(Number),
      hostname: expect.any(String),
      git_commit: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(metadata.command).toMatchObject({
      env: 'python-code',
      agent: 'oracle',
      num_examples: 1,
      rollouts_per_example: 2,
      backend: 'process',
      env_args: { dataset: TINY_CODE },
    });

    // Resumed with no flags but the directory: still one example (the old code went on to the whole dataset).
    const resumed = await runCorral(['eval', '--resume', out, '--no-progress']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('2 already done');
    expect(readResults(out)).toHaveLength(2);
    expect(readMetadata(out)).toMatchObject({ status: 'complete', num_examples: 1, rollouts: 2 });

    // A flag that differs from the stored run is refused before anything is written.
    const before = readFileSync(join(out, 'metadata.json'), 'utf8');
    const mismatched = await runCorral(['eval', 'python-code', '--resume', out, '-n', '5', '--no-progress']);
    expect(mismatched.code).toBe(2);
    expect(mismatched.stderr).toContain('RUNNER_ERR_RESUME_MISMATCH');
    expect(mismatched.stderr).toMatch(/--num-examples 5 differs from the run's 1/);
    expect(readFileSync(join(out, 'metadata.json'), 'utf8')).toBe(before);
  }, 120_000);

  it('a group cut by a SIGKILL (one record of four on disk, status running, its pid gone) resumes with statistics over the whole group', async () => {
    const out = join(scratch, 'partial-group');
    expect((await runCorral(oracle(out, '-n', '1', '-r', '4'))).code).toBe(0);
    // What a SIGKILL between two writes of one group left behind before groups were written in one write(2).
    const [kept] = readResults(out);
    writeFileSync(join(out, 'results.jsonl'), `${JSON.stringify({ ...kept, group: { mean: 1, std: 0, size: 1, advantage: 0 } })}\n`);
    const pid = deadPid();
    writeFileSync(join(out, 'metadata.json'), JSON.stringify({ ...readMetadata(out), status: 'running', pid }));

    const resumed = await runCorral(['eval', '--resume', out, '--no-progress']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming an interrupted run: pid ${pid}`);
    const records = readResults(out);
    expect(records).toHaveLength(4);
    expect(new Set(records.map((record) => record.rollout_index))).toEqual(new Set([0, 1, 2, 3]));
    for (const record of records) expect(record.group).toEqual({ mean: 1, std: 0, size: 4, advantage: 0 });
    expect(readMetadata(out)).toMatchObject({ status: 'complete', rollouts: 4 });
  }, 120_000);

  it('--resume refuses a run whose writer is still alive on this host', async () => {
    const out = join(scratch, 'active');
    expect((await runCorral(oracle(out, '-n', '1'))).code).toBe(0);
    // This test process stands in for a live corral eval.
    writeFileSync(join(out, 'metadata.json'), JSON.stringify({ ...readMetadata(out), status: 'running', pid: process.pid }));
    const resumed = await runCorral(['eval', '--resume', out, '--no-progress']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('RUNNER_ERR_RUN_ACTIVE');
    expect(resumed.stderr).toContain(`pid ${process.pid}`);
  }, 60_000);

  it('exit statuses: 1 when rollouts errored (with the count and a sample message), 3 when --max-errors stops the run', async () => {
    const model = await startScriptedModelServer(() => ({ kind: 'http-error', status: 500, message: 'scripted outage' }));
    try {
      const args = [
        'eval',
        'python-code',
        '--dataset',
        TINY_CODE,
        '--model',
        'scripted',
        '--base-url',
        model.baseURL,
        '--backend',
        'process',
        '--model-retries',
        '0',
        '--no-progress',
        '-c',
        '1',
      ];
      const errored = await runCorral([...args, '--out', join(scratch, 'all-errored')], NO_OPENAI_ENV);
      expect(errored.code, errored.stderr).toBe(1);
      expect(errored.stderr).toContain('2 of 2 rollouts errored');
      expect(errored.stdout).toMatch(/error MODEL_ERR_SERVER\s+2, e\.g\. .*500/);
      // Each rollout asked once: --model-retries 0.
      expect(model.requests).toHaveLength(2);
      expect(readMetadata(join(scratch, 'all-errored'))).toMatchObject({
        status: 'complete',
        errored: 2,
        error_samples: { MODEL_ERR_SERVER: expect.stringContaining('500') },
      });

      const stopped = await runCorral([...args, '-r', '3', '--max-errors', '0', '--out', join(scratch, 'stopped')], NO_OPENAI_ENV);
      expect(stopped.code, stopped.stderr).toBe(3);
      expect(stopped.stderr).toContain('--max-errors 0');
      const metadata = readMetadata(join(scratch, 'stopped'));
      expect(metadata.status).toBe('stopped');
      expect(metadata.rollouts as number).toBeLessThan(6);
    } finally {
      await model.close();
    }
  }, 120_000);

  it('preflight refuses, with exit 2 and before any rollout: an unreachable model, --model without --base-url, and an agent made for another environment', async () => {
    const closed = await startScriptedModelServer(() => ({ kind: 'text', content: 'x' }));
    const unreachableURL = closed.baseURL;
    await closed.close();
    const unreachable = await runCorral(
      [
        'eval',
        'python-code',
        '--dataset',
        TINY_CODE,
        '--model',
        'm',
        '--base-url',
        unreachableURL,
        '--backend',
        'process',
        '--no-progress',
        '--out',
        join(scratch, 'unreachable'),
      ],
      NO_OPENAI_ENV,
    );
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toContain('MODEL_ERR_CONNECTION');
    expect(unreachable.stderr).toContain(unreachableURL);
    expect(existsSync(join(scratch, 'unreachable', 'results.jsonl'))).toBe(false);

    const noBaseUrl = await runCorral(
      [
        'eval',
        'python-code',
        '--dataset',
        TINY_CODE,
        '--model',
        'gpt-4.1-mini',
        '--backend',
        'process',
        '--no-progress',
        '--out',
        join(scratch, 'no-base-url'),
      ],
      NO_OPENAI_ENV,
    );
    expect(noBaseUrl.code).toBe(2);
    expect(noBaseUrl.stderr).toMatch(/--model gpt-4\.1-mini needs --base-url/);

    const mismatched = await runCorral([
      'eval',
      'wiki-search',
      '--agent',
      'oracle',
      '--corpus',
      PAGES,
      '--questions',
      QUESTIONS,
      '--backend',
      'process',
      '--no-progress',
      '--out',
      join(scratch, 'oracle-on-wiki'),
    ]);
    expect(mismatched.code).toBe(2);
    expect(mismatched.stderr).toContain('RUNNER_ERR_AGENT_MISMATCH');
    expect(mismatched.stderr).toMatch(/--agent oracle serves python-code, not wiki-search.*baseline/);
    expect(existsSync(join(scratch, 'oracle-on-wiki', 'results.jsonl'))).toBe(false);
  }, 120_000);

  it('flags are named as typed in validation messages, and a usage error exits 2', async () => {
    const invalid = await runCorral(['eval', 'python-code', '--num-examples', 'lots', '--model-timeout', '0']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('--num-examples:');
    expect(invalid.stderr).toContain('--model-timeout:');
    expect(invalid.stderr).not.toContain('--numExamples');
    const unknown = await runCorral(['eval', 'python-code', '--no-such-flag']);
    expect(unknown.code).toBe(2);
  }, 60_000);

  it('--backend auto reaches docker the way the pool does: a DOCKER_HOST with no daemon makes it choose process', async () => {
    const out = join(scratch, 'auto');
    const noDaemon = { DOCKER_HOST: `unix://${join(scratch, 'no-daemon.sock')}`, CORRAL_DOCKER_SOCKET: '' };
    const result = await runCorral(
      ['eval', 'python-code', '--dataset', TINY_CODE, '--agent', 'oracle', '--backend', 'auto', '--no-progress', '--out', out],
      noDaemon,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('backend auto: process');
    expect(readMetadata(out)).toMatchObject({ backend: 'process', errored: 0, avg_reward: 1 });
    // corral doctor asks the same daemon, so the two agree.
    const doctor = await runCorral(['doctor', '--json'], noDaemon);
    const docker = (JSON.parse(doctor.stdout) as { backends: { backend: string; ok: boolean; reason?: string }[] }).backends.find(
      (entry) => entry.backend === 'docker',
    );
    expect(docker).toMatchObject({ ok: false, reason: expect.stringContaining('no-daemon.sock') });
  }, 120_000);

  it('records truncation (finish_reason "length"), keeps <think> reasoning out of the final answer, sums token usage and reports pass@k', async () => {
    const model = await startScriptedModelServer((body): ModelReply => {
      if (userQuestion(body).includes('Who opened'))
        return { kind: 'text', content: '<think>Perhaps Daniel Whitcombe? No: the page says otherwise.</think>Harriet Lowell' };
      if (userQuestion(body).includes('How many stations')) return { kind: 'text', content: 'There are sev', finishReason: 'length' };
      return { kind: 'text', content: 'Daniel Whitcombe' };
    });
    const out = join(scratch, 'model-output');
    try {
      const result = await runCorral(
        [
          'eval',
          'wiki-search',
          '--model',
          'scripted',
          '--base-url',
          model.baseURL,
          '--corpus',
          PAGES,
          '--questions',
          QUESTIONS,
          '-n',
          '2',
          '-r',
          '2',
          '--backend',
          'process',
          '--no-progress',
          '--out',
          out,
        ],
        NO_OPENAI_ENV,
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/truncated\s+2/);
      expect(result.stdout).toMatch(/pass@2\s+0\.5000/);
    } finally {
      await model.close();
    }
    const records = readResults(out);
    for (const record of records.filter((entry) => entry.example_id === 'q1')) {
      expect(record.final_answer).toBe('Harriet Lowell');
      expect(record.reward).toBe(1);
      expect(record.truncated).toBe(false);
      expect(String(record.completion[0]!.content)).toContain('<think>');
    }
    for (const record of records.filter((entry) => entry.example_id === 'q2')) {
      expect(record.truncated).toBe(true);
      expect(record.error).toBeNull();
      expect(record.events.at(-1)).toMatchObject({ type: 'episode-end', reason: 'truncated' });
    }
    // The scripted server reports prompt_tokens = messages sent (2: system + user) and completion_tokens = 1.
    expect(readMetadata(out)).toMatchObject({ truncated: 2, usage: { prompt_tokens: 8, completion_tokens: 4 }, pass_at_k: { '1': 0.5, '2': 0.5 } });
  }, 120_000);

  it('outside a terminal, prints progress lines with an ETA while running and keeps metadata.json current (status running, pid, host)', async () => {
    const model = await startScriptedModelServer(() => ({ kind: 'text', content: 'Harriet Lowell', delayMs: 1_500 }));
    const out = join(scratch, 'progress');
    const child = spawnCorral(
      [
        'eval',
        'wiki-search',
        '--model',
        'scripted',
        '--base-url',
        model.baseURL,
        '--corpus',
        PAGES,
        '--questions',
        QUESTIONS,
        '-c',
        '1',
        '-n',
        '3',
        '--backend',
        'process',
        '--progress-interval',
        '0.5',
        '--out',
        out,
      ],
      NO_OPENAI_ENV,
    );
    try {
      let running: Record<string, unknown> | undefined;
      for (let attempt = 0; attempt < 600 && !running; attempt++) {
        if (existsSync(join(out, 'metadata.json'))) {
          const metadata = readMetadata(out);
          if (metadata.status === 'running') running = metadata;
        }
        if (!running) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(running).toMatchObject({ status: 'running', pid: child.pid, progress: { total: 3 } });
      expect(await child.exited, child.output.stderr).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await model.close();
    }
    const lines = child.output.stderr.split('\n').filter((line) => line.startsWith('[eval] progress '));
    // At least one line while rollouts were still outstanding, then the last one.
    expect(lines.some((line) => /progress [0-2]\/3 /.test(line) && /ETA /.test(line))).toBe(true);
    expect(lines.at(-1)).toMatch(/progress 3\/3 \(100\.0%\)/);
    expect(readMetadata(out)).toMatchObject({ status: 'complete', rollouts: 3 });
  }, 120_000);
});
