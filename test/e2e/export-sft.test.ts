/**
 * `corral eval` then `corral export sft` as child processes (custom-env example, python tool, process backend):
 * the scripted model answers right on even seeds and wrong on odd ones, and fails with HTTP 400 for one rollout (the second example's odd seed),
 * so the export's filters have something to choose from. Errored rollouts never appear.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { puzzleExamples } from '../../examples/custom-env/puzzles.js';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { ROOT, readResults, runCorral } from './runner-cli.js';

const ENVIRONMENT = join(ROOT, 'examples', 'custom-env', 'index.ts');
const scratch = mkdtempSync(join(tmpdir(), 'corral-export-sft-'));
const run = join(scratch, 'run');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const solutions = new Map(puzzleExamples().map((example) => [String(example.prompt).split('\n')[0]!, String(example.info?.['solution'])]));
const [firstQuestion, secondQuestion] = [...solutions.keys()];

function script(body: ChatCompletionRequestBody): ModelReply {
  const question = String(body.messages.find((message) => message.role === 'user')?.content ?? '').split('\n')[0]!;
  const seed = Number(body['seed']);
  if (question === secondQuestion && seed === 1) return { kind: 'http-error', status: 400, message: 'scripted refusal' };
  const toolResult = body.messages.findLast((message) => message.role === 'tool');
  if (!toolResult)
    return {
      kind: 'tool-calls',
      reasoning: 'run it',
      content: '<think>plan</think>Running it.',
      toolCalls: [{ name: 'python', arguments: { code: solutions.get(question)! } }],
    };
  return { kind: 'text', content: seed % 2 === 0 ? String(toolResult.content).trim() : 'no idea' };
}

type SftLine = {
  messages: { role: string; content: string | null; tool_calls?: unknown[]; reasoning_content?: string }[];
  tools: { function: { name: string } }[];
};
const readLines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SftLine);

describe('corral export sft', () => {
  beforeAll(async () => {
    const model = await startScriptedModelServer(script);
    try {
      const result = await runCorral([
        'eval',
        ENVIRONMENT,
        ...['--agent', 'openai', '--model', 'scripted', '--base-url', model.baseURL, '--api-key', 'k', '--seed', '0', '--model-retries', '0'],
        ...['--backend', 'process', '-n', '2', '-r', '2', '-c', '2', '--out', run, '--no-progress', '--no-preflight'],
      ]);
      expect([0, 1]).toContain(result.code);
    } finally {
      await model.close();
    }
    const records = readResults(run);
    expect(records.map((record) => [record.example_id === records[0]!.example_id, record.rollout_index, record.reward]).length).toBe(4);
    expect(records.filter((record) => record.error !== null)).toHaveLength(1);
  }, 180_000);

  it('writes every scored rollout as {messages, tools}, never an errored one, with the tool schemas offered', async () => {
    const out = join(scratch, 'all.jsonl');
    const exported = await runCorral(['export', 'sft', run, '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('wrote 3 conversations of 4 rollouts (left out: errored 1, below --min-reward 0, not the best of their example 0)');
    const lines = readLines(out);
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
      expect(line.messages[2]).toMatchObject({
        content: '<think>plan</think>Running it.',
        reasoning_content: 'run it',
        tool_calls: [{ function: { name: 'python' } }],
      });
      expect(line.tools.map((tool) => tool.function.name)).toContain('python');
    }
  }, 60_000);

  it('--min-reward, --best-per-example and --strip-thinking choose and clean', async () => {
    const out = join(scratch, 'best.jsonl');
    const filtered = await runCorral(['export', 'sft', run, '--out', join(scratch, 'rewarded.jsonl'), '--min-reward', '1']);
    expect(filtered.stdout).toContain('wrote 2 conversations of 4 rollouts (left out: errored 1, below --min-reward 1, not the best of their example 0)');
    const exported = await runCorral(['export', 'sft', run, '--out', out, '--best-per-example', '--strip-thinking']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('wrote 2 conversations of 4 rollouts (left out: errored 1, below --min-reward 0, not the best of their example 1)');
    const lines = readLines(out);
    expect(new Set(lines.map((line) => line.messages[1]!.content!.split('\n')[0]))).toEqual(new Set([firstQuestion, secondQuestion]));
    for (const line of lines) {
      expect(line.messages.at(-1)!.content).not.toBe('no idea');
      expect(line.messages[2]!.content).toBe('Running it.');
      expect(line.messages[2]).not.toHaveProperty('reasoning_content');
    }
  }, 60_000);
});
