/**
 * Training samples through the real CLI: `corral eval --samples` on the custom-env example (python tool, process
 * backend) against the scripted model server tokenising with its chat template, then `corral export samples`.
 * Three servers: a template that keeps history (one sample per rollout), one that drops <think> from history
 * (a split at every turn), and one that loses the token ids of some calls (no sample for those rollouts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { puzzleExamples } from '../../examples/custom-env/puzzles.js';
import type { TrainingSample } from '../../src/runner/samples/training-sample.js';
import { type ScriptedTemplate, completionIds, decodeText, renderConversation, scriptedLogprobs } from '../../src/testing/scripted-chat-template.js';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { ROOT, readResults, runCorral } from './runner-cli.js';

const ENVIRONMENT = join(ROOT, 'examples', 'custom-env', 'index.ts');
const scratch = mkdtempSync(join(tmpdir(), 'corral-samples-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const solutions = new Map(puzzleExamples().map((example) => [String(example.prompt).split('\n')[0]!, String(example.info?.['solution'])]));

/** Turn 1: run the puzzle's reference code (thinking first when asked); turn 2: answer with what it printed. */
const puzzleScript =
  (options: { reasoning?: boolean; omitTokensFor?: (question: string) => boolean } = {}) =>
  (body: ChatCompletionRequestBody): ModelReply => {
    const question = String(body.messages.find((message) => message.role === 'user')?.content ?? '').split('\n')[0]!;
    const toolResult = body.messages.findLast((message) => message.role === 'tool');
    const reasoning = options.reasoning ? { reasoning: 'I should run the code first.' } : {};
    if (!toolResult)
      return { kind: 'tool-calls', toolCalls: [{ id: 'call_py', name: 'python', arguments: { code: solutions.get(question) ?? 'print(0)' } }], ...reasoning };
    return { kind: 'text', content: String(toolResult.content).trim(), ...(options.omitTokensFor?.(question) ? { omitTokens: true } : {}) };
  };

async function evalWithSamples(name: string, template: ScriptedTemplate, script: ReturnType<typeof puzzleScript>, extra: string[] = ['--samples']) {
  const model = await startScriptedModelServer(script, { template });
  const run = join(scratch, name);
  try {
    const result = await runCorral([
      'eval',
      ENVIRONMENT,
      ...['--agent', 'openai', '--model', 'scripted', '--base-url', model.baseURL, '--api-key', 'k'],
      ...['--backend', 'process', '-n', '2', '-r', '2', '-c', '2', '--out', run, '--no-progress', '--no-preflight'],
      ...extra,
    ]);
    expect(result.code, result.stderr).toBe(0);
    return { run, result, requests: model.requests, records: readResults(run) };
  } finally {
    await model.close();
  }
}

const readSamples = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TrainingSample);

describe('corral eval --samples and corral export samples', () => {
  it('a template that keeps history: one exact sample per rollout, sampled tokens masked 1, tool results masked 0', async () => {
    const { run, result, requests, records } = await evalWithSamples('keeps', 'keeps-history', puzzleScript());
    // --samples asked the server for token data in vLLM's spelling.
    expect(requests.every((request) => request.body['return_token_ids'] === true && request.body['logprobs'] === true)).toBe(true);
    expect(result.stderr).toContain('4 samples from 4 rollouts; 0 split at a prefix break; 0 without samples');
    const samples = readSamples(join(run, 'samples.jsonl'));
    expect(samples).toHaveLength(4);
    for (const record of records) {
      const sample = samples.find((candidate) => candidate.example_id === record.example_id && candidate.rollout_index === record.rollout_index)!;
      expect(sample.sample_index).toBe(0);
      expect(sample.reward).toBe(record.reward);
      expect(sample.advantage).toBe(record.group!.advantage);
      const [first, second] = record.tokens!;
      // Recomputed independently: the conversation as the server saw it, rendered by the same template.
      const firstRequest = requests.find(
        (request) =>
          request.body.messages.length === record.prompt.length && String(request.body.messages.at(-1)!.content) === String(record.prompt.at(-1)!.content),
      )!;
      expect(sample.prompt_ids).toEqual(renderConversation(firstRequest.body.messages, 'keeps-history', true));
      expect([...sample.prompt_ids, ...sample.completion_ids]).toEqual([...second!.prompt_token_ids!, ...second!.completion_token_ids!]);
      const inserted = second!.prompt_token_ids!.slice(first!.prompt_token_ids!.length + first!.completion_token_ids!.length);
      const firstLength = first!.completion_token_ids!.length;
      expect(sample.completion_mask).toEqual([
        ...Array(firstLength).fill(1),
        ...Array(inserted.length).fill(0),
        ...Array(second!.completion_token_ids!.length).fill(1),
      ]);
      expect(sample.completion_logprobs).toEqual([
        ...scriptedLogprobs(first!.completion_token_ids!),
        ...Array(inserted.length).fill(0),
        ...scriptedLogprobs(second!.completion_token_ids!),
      ]);
      // The masked-out part is the tool's reply (what python printed) and the next assistant header.
      expect(decodeText(inserted)).toContain(String(record.final_answer));
      expect(sample.completion_ids.slice(-second!.completion_token_ids!.length)).toEqual(completionIds(String(record.final_answer)));
    }
  }, 180_000);

  it('a template that drops <think> from history: split at the break, never spliced; export samples reports it', async () => {
    const { run, records } = await evalWithSamples('drops', 'drops-think', puzzleScript({ reasoning: true }));
    const exported = await runCorral(['export', 'samples', run, '--out', join(scratch, 'drops.jsonl')]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('8 samples from 4 rollouts; 4 split at a prefix break; 0 without samples (errored 0, tokens_missing 0)');
    const samples = readSamples(join(scratch, 'drops.jsonl'));
    for (const record of records) {
      const mine = samples.filter((sample) => sample.example_id === record.example_id && sample.rollout_index === record.rollout_index);
      const [first, second] = record.tokens!;
      expect(mine.map((sample) => sample.sample_index)).toEqual([0, 1]);
      expect(mine[0]).toMatchObject({
        prompt_ids: first!.prompt_token_ids,
        completion_ids: first!.completion_token_ids,
        completion_mask: first!.completion_token_ids!.map(() => 1),
      });
      expect(decodeText(mine[0]!.completion_ids)).toContain('<think>');
      expect(mine[1]).toMatchObject({ prompt_ids: second!.prompt_token_ids, completion_ids: second!.completion_token_ids });
      expect(decodeText(mine[1]!.prompt_ids)).not.toContain('<think>');
    }
  }, 180_000);

  it('a server that loses the token ids of some calls: those rollouts get no sample, and the run warns once', async () => {
    const firstQuestion = [...solutions.keys()][0]!;
    const { run, result } = await evalWithSamples('lossy', 'keeps-history', puzzleScript({ omitTokensFor: (question) => question === firstQuestion }));
    expect(result.stderr).toContain('2 samples from 2 rollouts; 0 split at a prefix break; 2 without samples (errored 0, tokens_missing 2)');
    expect(result.stderr.match(/warning: a rollout recorded no token ids/g)).toHaveLength(1);
    const samples = readSamples(join(run, 'samples.jsonl'));
    expect(new Set(samples.map((sample) => sample.example_id)).size).toBe(1);
    expect(samples.every((sample) => sample.completion_ids.length === sample.completion_mask.length)).toBe(true);
  }, 180_000);

  it('--token-in against the template that drops <think>: history is never re-tokenised, one sample per rollout', async () => {
    const { run, result, requests, records } = await evalWithSamples('token-in', 'drops-think', puzzleScript({ reasoning: true }), ['--samples', '--token-in']);
    expect(records.every((record) => record.reward === 1 && record.error === null)).toBe(true);
    expect(requests.filter((request) => request.route === 'completions')).toHaveLength(8);
    expect(requests.some((request) => request.route === 'chat')).toBe(false);
    expect(result.stderr).toContain('4 samples from 4 rollouts; 0 split at a prefix break; 0 without samples');
    const samples = readSamples(join(run, 'samples.jsonl'));
    for (const record of records) {
      const [first, second] = record.tokens!;
      const sample = samples.find((candidate) => candidate.example_id === record.example_id && candidate.rollout_index === record.rollout_index)!;
      // The second prompt keeps the first completion, <think> included, exactly as sampled.
      expect(second!.prompt_token_ids!.slice(0, first!.prompt_token_ids!.length + first!.completion_token_ids!.length)).toEqual([
        ...first!.prompt_token_ids!,
        ...first!.completion_token_ids!,
      ]);
      expect(decodeText(sample.completion_ids)).toContain('<think>I should run the code first.</think>');
      // The tool call came back as text and was parsed into a real call, which ran.
      expect(record.completion[0]).toMatchObject({
        role: 'assistant',
        reasoning_content: 'I should run the code first.',
        tool_calls: [{ function: { name: 'python' } }],
      });
      expect(sample.completion_mask.filter((bit) => bit === 1)).toHaveLength(first!.completion_token_ids!.length + second!.completion_token_ids!.length);
    }
  }, 180_000);

  it('--token-in with an agent that sends messages is refused before any rollout', async () => {
    const result = await runCorral([
      'eval',
      ENVIRONMENT,
      '--agent',
      'reference',
      '--token-in',
      '--backend',
      'process',
      '-n',
      '1',
      '--out',
      join(scratch, 'refused'),
      '--no-progress',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--token-in works with --agent openai only');
  }, 60_000);

  it('without --return-tokens or --samples, nothing asks for token ids and the record says so with null tokens', async () => {
    const { records, requests } = await evalWithSamples('plain', 'keeps-history', puzzleScript(), []);
    expect(requests.some((request) => 'return_token_ids' in request.body)).toBe(false);
    expect(records.every((record) => record.tokens === null)).toBe(true);
  }, 180_000);
});
