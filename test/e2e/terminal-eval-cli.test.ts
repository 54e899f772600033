/**
 * `corral eval terminal` as a child process with the real Docker engine: the oracle scores 1 and nop 0 on every
 * task of terminal-tasks-harbor at -c 4, each run writes results.jsonl and Harbor's job layout (its result.json
 * fields are checked), and the openai agent, driven by the scripted model server, solves hello-world through the
 * bash tool running in the task container (-r 2: pass@k is reported), each trial keeping the agent's final file
 * system, which `corral rescore --tasks <changed tests>` verifies again without the agent (no model call; the reward
 * changes only for the task whose tests changed); a task whose image cannot be built is errored with its code while
 * the others run, and --resume keeps what is done.
 */
import { existsSync, statSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { dataDirectoryWith } from '../helpers/test-gates.js';
import { readMetadata, readResults, runCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const FIXTURES = resolve(import.meta.dirname, '../fixtures/terminal');
const dataDir = dataDirectoryWith(['terminal-tasks-harbor/hello-world/task.toml', 'terminal-tasks-harbor/processing-pipeline/task.toml']);

interface TrialResultJson {
  task_name: string;
  trial_name: string;
  agent_info: { name: string; model_info: { name: string } | null };
  verifier_result: { rewards: Record<string, number> } | null;
  exception_info: unknown;
  started_at: string;
  finished_at: string;
  agent_execution: { started_at: string; finished_at: string } | null;
  verifier: { started_at: string; finished_at: string } | null;
}

async function trialResultJson(directory: string, trialName: string): Promise<TrialResultJson> {
  return JSON.parse(await readFile(join(directory, trialName, 'result.json'), 'utf8')) as TrialResultJson;
}

describe.runIf(dockerAvailable && dataDir)('corral eval terminal', () => {
  let outRoot: string;
  const tasks = () => join(dataDir!, 'terminal-tasks-harbor');

  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
    outRoot = await mkdtemp(join(tmpdir(), 'corral-eval-terminal-'));
  }, 600_000);

  afterAll(async () => {
    if (outRoot) await rm(outRoot, { recursive: true, force: true });
  });

  it('--agent oracle -c 4: reward 1 on every task, with results.jsonl records and the Harbor job layout beside them', async () => {
    const out = join(outRoot, 'oracle');
    const result = await runCorral(['eval', 'terminal', '--tasks', tasks(), '--agent', 'oracle', '-c', '4', '--no-internet', '--out', out, '--no-progress']);
    expect(result.code, result.stderr).toBe(0);
    const records = readResults(out);
    expect(records).toHaveLength(10);
    for (const record of records) {
      expect({ task: record.example_id, reward: record.reward, error: record.error }).toEqual({ task: record.example_id, reward: 1, error: null });
      expect(record['reward']).toBe(1);
      const phases = (record.timing as unknown as { phases: Record<string, number> }).phases;
      expect(Object.keys(phases).sort()).toEqual(['agent_ms', 'commit_ms', 'container_start_ms', 'container_wait_ms', 'image_ms', 'test_ms', 'verifier_ms']);
      expect((record.info as { agent_phase: unknown }).agent_phase).toEqual({ exit_code: 0, timed_out: false, error: null });
    }
    expect(readMetadata(out)).toMatchObject({ env: 'terminal', agent: 'oracle', status: 'complete', terminal: { forbid_egress: true, timeout_multiplier: 1 } });

    const job = JSON.parse(await readFile(join(out, 'result.json'), 'utf8')) as {
      n_total_trials: number;
      finished_at: string | null;
      stats: { n_trials: number; n_errors: number; evals: Record<string, { metrics: Array<{ mean: number }> }> };
    };
    expect(job.n_total_trials).toBe(10);
    expect(job.finished_at).not.toBeNull();
    expect(job.stats.n_trials).toBe(10);
    expect(job.stats.n_errors).toBe(0);
    expect(Object.values(job.stats.evals).map((entry) => entry.metrics[0]?.mean)).toEqual([1]);
    for (const record of records) {
      const trialName = (record.info as { trial_name: string }).trial_name;
      const trial = await trialResultJson(out, trialName);
      expect(trial).toMatchObject({
        task_name: record.example_id,
        trial_name: trialName,
        agent_info: { name: 'oracle' },
        verifier_result: { rewards: { reward: 1 } },
      });
      expect(trial.exception_info).toBeNull();
      expect(Date.parse(trial.agent_execution!.finished_at)).toBeGreaterThanOrEqual(Date.parse(trial.agent_execution!.started_at));
      expect(Date.parse(trial.verifier!.started_at)).toBeGreaterThanOrEqual(Date.parse(trial.agent_execution!.finished_at));
      expect(await readFile(join(out, trialName, 'verifier', 'reward.txt'), 'utf8')).toBe('1\n');
    }
  }, 900_000);

  it('--agent nop -c 4: reward 0 on every task, none errored', async () => {
    const out = join(outRoot, 'nop');
    const result = await runCorral(['eval', 'terminal', '--tasks', tasks(), '--agent', 'nop', '-c', '4', '--out', out, '--no-progress']);
    expect(result.code, result.stderr).toBe(0);
    const records = readResults(out);
    expect(records.map((record) => [record.example_id, record.reward, record.error])).toEqual(records.map((record) => [record.example_id, 0, null]));
    expect(records).toHaveLength(10);
  }, 900_000);

  it('a task whose image fails to build is errored with the build code and log; the others run; --resume adds nothing to a complete run', async () => {
    const dataset = join(outRoot, 'mixed-dataset');
    await cp(join(FIXTURES, 'harbor/broken-build'), join(dataset, 'broken-build'), { recursive: true });
    await cp(join(tasks(), 'hello-world'), join(dataset, 'hello-world'), { recursive: true });
    const out = join(outRoot, 'mixed');
    const result = await runCorral(['eval', 'terminal', '--tasks', dataset, '--agent', 'oracle', '-c', '2', '--out', out, '--no-progress']);
    expect(result.code, result.stderr).toBe(1); // errored trials
    const byTask = new Map(readResults(out).map((record) => [record.example_id, record]));
    expect(byTask.get('terminal-bench/hello-world')).toMatchObject({ reward: 1, error: null });
    const broken = byTask.get('corral-fixtures/broken-build')!;
    expect(broken.reward).toBeNull();
    expect(broken.error).toMatchObject({ boundary: 'sandbox', code: 'TASK_ERR_IMAGE_BUILD_FAILED' });
    const logPath = (broken.error as unknown as { details: { logPath: string } }).details.logPath;
    expect(logPath.startsWith(join(out, 'build-logs'))).toBe(true);
    expect(await readFile(logPath, 'utf8')).not.toBe('');

    const resumed = await runCorral(['eval', '--resume', out, '--no-progress']);
    expect(resumed.stderr).toContain('2 already done');
    expect(readResults(out)).toHaveLength(2);
    const mismatch = await runCorral(['eval', '--resume', out, '--agent', 'nop', '--no-progress']);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toContain('RUNNER_ERR_RESUME_MISMATCH');
  }, 600_000);

  describe('the openai agent', () => {
    let model: ScriptedModelServer;
    let dataset: string;
    const out = () => join(outRoot, 'openai');
    beforeAll(async () => {
      // Stateless per trial: a bash call first (it also deletes a file of the image, makes a link and changes a folder's
      // mode, for the re-verification to find), then a final answer.
      model = await startScriptedModelServer((request) =>
        request.messages.at(-1)?.role === 'tool'
          ? { kind: 'text', content: 'hello.txt written' }
          : {
              kind: 'tool-calls',
              toolCalls: [
                {
                  name: 'bash',
                  arguments: {
                    command:
                      "printf 'Hello, world!\\n' > hello.txt && pwd && cat /etc/os-release | head -1 && rm /etc/issue && ln -s hello.txt link.txt && chmod 750 /app",
                  },
                },
              ],
            },
      );
      dataset = join(outRoot, 'openai-tasks');
      await cp(join(tasks(), 'hello-world'), join(dataset, 'hello-world'), { recursive: true });
      await cp(join(FIXTURES, 'harbor/hello-exists'), join(dataset, 'hello-exists'), { recursive: true });
    });
    afterAll(async () => model?.close());

    it('solves hello-world through the bash tool, run in the task container (-r 2, pass@k); with --keep-file-system each trial keeps its final file system', async () => {
      const args = ['eval', 'terminal', '--tasks', dataset, '--agent', 'openai', '--model', 'scripted', '--base-url', model.baseURL];
      const result = await runCorral([...args, '--api-key', 'test-key', '-r', '2', '-c', '4', '--keep-file-system', '--out', out(), '--no-progress']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/pass@2\s+1\.0000/);
      const records = readResults(out()).sort((a, b) => `${a.example_id}#${a.rollout_index}`.localeCompare(`${b.example_id}#${b.rollout_index}`));
      expect(records.map((record) => [record.example_id, record.rollout_index, record.reward, record.error])).toEqual([
        ['corral-fixtures/hello-exists', 0, 1, null],
        ['corral-fixtures/hello-exists', 1, 1, null],
        ['terminal-bench/hello-world', 0, 1, null],
        ['terminal-bench/hello-world', 1, 1, null],
      ]);
      const hello = records[2]!;
      const toolResult = hello.completion.find((message) => message.role === 'tool');
      // The tool ran in the trial container: the task's working directory, the task image's Debian.
      expect(toolResult?.content).toContain('/app');
      expect(toolResult?.content).toContain('Debian');
      expect(hello.final_answer).toBe('hello.txt written');
      const trial = await trialResultJson(out(), (hello.info as { trial_name: string }).trial_name);
      expect(trial.agent_info).toMatchObject({ name: 'openai', model_info: { name: 'scripted' } });
      for (const record of records) {
        const kept = record.info['final_file_system'] as { path: string; image: string; changes: number; bytes: number };
        expect(kept.path).toBe(`${(record.info as { trial_name: string }).trial_name}/final-file-system.tar.gz`);
        expect(kept.image).toBe(record.info['image']);
        expect(kept.changes).toBeGreaterThan(0);
        expect(statSync(join(out(), kept.path)).size).toBe(kept.bytes);
      }
    }, 300_000);

    it('corral rescore --tasks <changed tests>: the verifier runs again on the kept file systems, the agent does not', async () => {
      const changed = join(outRoot, 'openai-tasks-changed');
      await cp(dataset, changed, { recursive: true });
      // hello-world's tests now read what the agent left: half a point for "world" in hello.txt, whether the file the
      // agent deleted from the image is still gone, its link, and the mode it gave /app.
      await writeFile(
        join(changed, 'hello-world/tests/test.sh'),
        [
          '#!/bin/bash',
          'reward=0; grep -q world /app/hello.txt && reward=0.5',
          'deleted=0; [ -e /etc/issue ] || deleted=1',
          'link=0; [ "$(readlink /app/link.txt)" = hello.txt ] && link=1',
          'echo "{\\"reward\\": $reward, \\"issue_deleted\\": $deleted, \\"link_kept\\": $link, \\"app_mode\\": $(stat -c %a /app)}" > /logs/verifier/reward.json',
          '',
        ].join('\n'),
      );
      const modelCalls = model.requests.length;
      const rescored = join(outRoot, 'openai-rescored');
      const result = await runCorral(['rescore', out(), '--tasks', changed, '--out', rescored, '-c', '4', '--no-progress']);
      expect(result.code, result.stderr).toBe(0);
      // The agent did not run again: not one more model call.
      expect(model.requests.length).toBe(modelCalls);
      const source = new Map(readResults(out()).map((record) => [`${record.example_id}#${record.rollout_index}`, record]));
      const records = readResults(rescored);
      expect(records).toHaveLength(4);
      for (const record of records) {
        const key = `${record.example_id}#${record.rollout_index}`;
        const before = source.get(key)!;
        expect(record.lineage).toEqual({ kind: 'rescore', source_run: out(), source_record: key });
        expect(record.completion).toEqual(before.completion);
        expect(record.info['trial_name']).not.toBe(before.info['trial_name']);
        const trialName = record.info['trial_name'] as string;
        expect(existsSync(join(rescored, trialName, 'final-file-system.tar.gz'))).toBe(true);
        if (record.example_id === 'terminal-bench/hello-world') {
          // What the agent did to the image's files is what the verifier sees: a file deleted, a link, a folder's mode.
          expect([record.reward, record.error]).toEqual([0.5, null]);
          expect(record.metrics).toEqual({ reward: 0.5, issue_deleted: 1, link_kept: 1, app_mode: 750 });
          expect(JSON.parse(await readFile(join(rescored, trialName, 'verifier', 'reward.json'), 'utf8'))).toEqual(record.metrics);
        } else {
          // Unchanged tests, unchanged reward.
          expect([record.reward, record.error]).toEqual([before.reward, null]);
        }
        expect((await trialResultJson(rescored, trialName)).verifier_result).toMatchObject({ rewards: record.metrics });
      }
      expect(readMetadata(rescored)).toMatchObject({
        env: 'terminal',
        status: 'complete',
        terminal: { tasks: changed },
        lineage: { kind: 'rescore', source_run: out(), env: 'terminal', env_source: { kind: 'task-folder', path: changed } },
      });
      const job = JSON.parse(await readFile(join(rescored, 'result.json'), 'utf8')) as { n_total_trials: number; stats: { n_trials: number } };
      expect([job.n_total_trials, job.stats.n_trials]).toEqual([4, 4]);
    }, 300_000);
  });
});
