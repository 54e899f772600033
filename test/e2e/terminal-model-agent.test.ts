/**
 * `corral eval terminal --agent openai` as a child process with the real Docker engine and the scripted model
 * server (issue 21): a model endpoint that answers /models but fails its completions errors the trial (reward null,
 * the model's code, exit 1, an exception in Harbor's stats) instead of scoring a clean 0; token ids and logprobs the
 * server returned are on the record, as for every environment.
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { readResults, runCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const TEMPLATE = resolve(import.meta.dirname, '../fixtures/terminal/hostile/always-zero');

describe.runIf(dockerAvailable)('corral eval terminal --agent openai: model failures and token data', () => {
  let workDirectory: string;
  let task: string;

  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
    workDirectory = await mkdtemp(join(tmpdir(), 'corral-terminal-model-'));
    task = join(workDirectory, 'always-zero');
    await cp(TEMPLATE, task, { recursive: true });
  }, 1_500_000);

  afterAll(async () => {
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  const evalArgs = (baseURL: string, out: string) => [
    'eval',
    'terminal',
    '--tasks',
    task,
    '--agent',
    'openai',
    '-m',
    'scripted',
    '--base-url',
    baseURL,
    '--api-key',
    'test-key',
    '--out',
    out,
    '--no-progress',
  ];

  describe('an endpoint that answers /models but fails every completion', () => {
    let model: ScriptedModelServer;
    beforeAll(async () => {
      model = await startScriptedModelServer(() => ({ kind: 'http-error', status: 500, message: 'the model crashed' }));
    });
    afterAll(async () => model?.close());

    it('errors the trial (reward null, the model code, exit 1, Harbor counts an exception), never a clean 0', async () => {
      const out = join(workDirectory, 'failing');
      const result = await runCorral([...evalArgs(model.baseURL, out), '--model-retries', '0']);
      expect(result.code, result.stderr).toBe(1);
      const [record, ...rest] = readResults(out);
      expect(rest).toEqual([]);
      expect(record!.reward).toBeNull();
      expect(record!.error).toMatchObject({ boundary: 'model', code: 'MODEL_ERR_SERVER' });
      const job = JSON.parse(await readFile(join(out, 'result.json'), 'utf8')) as { stats: { n_errors: number; evals: Record<string, unknown> } };
      expect(job.stats.n_errors).toBe(1);
      const trial = JSON.parse(await readFile(join(out, (record!.info as { trial_name: string }).trial_name, 'result.json'), 'utf8')) as {
        exception_info: { exception_type: string } | null;
        verifier_result: unknown;
      };
      expect(trial.exception_info?.exception_type).toBe('MODEL_ERR_SERVER');
      expect(trial.verifier_result).toBeNull();
    }, 300_000);
  });

  describe('an endpoint that returns token ids and logprobs', () => {
    let model: ScriptedModelServer;
    beforeAll(async () => {
      model = await startScriptedModelServer((request) =>
        request.messages.at(-1)?.role === 'tool'
          ? { kind: 'text', content: 'done', tokens: { promptTokenIds: [1, 2, 3, 4], completionTokenIds: [7, 8], logprobs: [-0.5, -0.25] } }
          : {
              kind: 'tool-calls',
              toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }],
              tokens: { promptTokenIds: [1, 2], completionTokenIds: [5, 6], logprobs: [-0.1, -0.2] },
            },
      );
    });
    afterAll(async () => model?.close());

    it('keeps them on the record, per model turn', async () => {
      const out = join(workDirectory, 'tokens');
      const result = await runCorral([...evalArgs(model.baseURL, out), '--sampling', '{"logprobs": true}']);
      expect(result.code, result.stderr).toBe(0);
      const [record] = readResults(out);
      expect({ reward: record!.reward, error: record!.error }).toEqual({ reward: 0, error: null });
      expect(record!.tokens).toEqual([
        { turn: 1, prompt_token_ids: [1, 2], completion_token_ids: [5, 6], completion_logprobs: [-0.1, -0.2] },
        { turn: 2, prompt_token_ids: [1, 2, 3, 4], completion_token_ids: [7, 8], completion_logprobs: [-0.5, -0.25] },
      ]);
    }, 300_000);
  });
});
