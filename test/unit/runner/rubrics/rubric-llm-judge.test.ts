import { describe, expect, it } from 'vitest';
import { CorralError } from '../../../../src/core/errors.js';
import type { Agent } from '../../../../src/runner/agents/agent.js';
import type { Example } from '../../../../src/runner/contract/environment.js';
import type { ToolSessionFactory } from '../../../../src/runner/contract/tool-session.js';
import { createWikiSearchEnvironment } from '../../../../src/runner/environments/index.js';
import { llmJudge, parseGrade } from '../../../../src/runner/rubrics/llm-judge.js';
import type { RubricInput } from '../../../../src/runner/rubrics/rubric.js';
import { runRollout } from '../../../../src/runner/scheduler/run-rollout.js';

const example: Example = {
  id: 'q1',
  prompt: 'Who opened the railway?',
  answer: 'Harriet Lowell',
  info: { answers: ['Harriet Lowell', 'the engineer Harriet Lowell'] },
};
const input = (answer: string | null): RubricInput => ({
  example,
  state: {},
  trajectory: { completion: [], answer, events: [], toolCalls: [], turns: 1, tokens: [], failure: null },
  tools: { tools: [], call: () => Promise.reject(new Error('unused')) },
});

/** A fetch that records requests and answers with the given status and body. */
function fakeFetch(status: number, body: unknown) {
  const requests: { url: string; init: RequestInit }[] = [];
  const fetchFunction = (async (url: string | URL | Request, init?: RequestInit) => {
    requests.push({ url: String(url), init: init ?? {} });
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { requests, fetchFunction };
}

const reply = (content: unknown) => ({ choices: [{ message: { role: 'assistant', content } }] });

describe('llmJudge', () => {
  it('posts an OpenAI-compatible request and scores yes as 1', async () => {
    const { requests, fetchFunction } = fakeFetch(200, reply('Yes.'));
    const judge = llmJudge({ baseURL: 'http://judge.test/v1/', apiKey: 'k-123', model: 'grader', fetch: fetchFunction });
    expect([judge.name, judge.weight]).toEqual(['judge', 1]);
    expect(await judge.score(input('Lowell'))).toBe(1);
    expect(requests[0]!.url).toBe('http://judge.test/v1/chat/completions');
    expect((requests[0]!.init.headers as Record<string, string>).authorization).toBe('Bearer k-123');
    const body = JSON.parse(String(requests[0]!.init.body)) as { model: string; messages: { content: string }[] };
    expect(body.model).toBe('grader');
    expect(body.messages[1]!.content).toContain('Who opened the railway?');
    expect(body.messages[1]!.content).toContain('"the engineer Harriet Lowell"');
    expect(body.messages[1]!.content).toContain('Response: Lowell');
  });

  it('scores no as 0 and skips the request when there is no answer', async () => {
    const { requests, fetchFunction } = fakeFetch(200, reply('no'));
    const judge = llmJudge({ baseURL: 'http://judge.test/v1', apiKey: 'k', model: 'm', fetch: fetchFunction, weight: 0, name: 'judge_metric' });
    expect(await judge.score(input('Someone else'))).toBe(0);
    expect(await judge.score(input(null))).toBe(0);
    expect(requests).toHaveLength(1);
    expect([judge.name, judge.weight]).toEqual(['judge_metric', 0]);
  });

  it('reads a grade after a reasoning block, and refuses anything that is not yes/no', () => {
    expect(parseGrade('<think>the answer names the same person</think>\nYES')).toBe(1);
    expect(parseGrade('"no" - different person')).toBe(0);
    expect(() => parseGrade('It depends.')).toThrow(/no yes\/no grade/);
    expect(() => parseGrade('nothing')).toThrow(CorralError);
  });

  it.each([
    ['an HTTP error', fakeFetch(503, 'overloaded').fetchFunction],
    ['a reply without content', fakeFetch(200, { choices: [] }).fetchFunction],
    ['an unreadable grade', fakeFetch(200, reply('maybe')).fetchFunction],
    ['a network failure', (async () => Promise.reject(new TypeError('fetch failed'))) as unknown as typeof fetch],
  ])('throws RUBRIC_ERR_JUDGE_FAILED on %s', async (_case, fetchFunction) => {
    const judge = llmJudge({ baseURL: 'http://judge.test/v1', apiKey: 'k', model: 'm', fetch: fetchFunction });
    const error = await Promise.resolve(judge.score(input('Lowell'))).catch((caught: unknown) => caught);
    expect(CorralError.hasCode(error, 'RUBRIC_ERR_JUDGE_FAILED')).toBe(true);
  });

  it('makes the rollout errored, never scored 0, when the judge fails', async () => {
    const environment = createWikiSearchEnvironment({
      corpus: [],
      judge: { baseURL: 'http://judge.test/v1', apiKey: 'k', model: 'm', fetch: fakeFetch(500, 'down').fetchFunction },
    });
    expect(environment.rubric.map((item) => [item.name, item.weight])).toEqual([
      ['exact_match', 0],
      ['f1', 0],
      ['tool_calls', 0],
      ['turns', 0],
      ['judge', 1],
    ]);
    const answering: Agent = {
      name: 'answers',
      model: 'answers',
      async run({ recorder }) {
        recorder.startTurn();
        recorder.message({ role: 'assistant', content: 'Harriet Lowell' });
        recorder.answer('Harriet Lowell');
      },
    };
    const tools: ToolSessionFactory = { open: async () => ({ tools: [], call: () => Promise.reject(new Error('unused')), close: async () => undefined }) };
    const record = await runRollout({ environment, agent: answering, tools, example, rolloutIndex: 0, abortSignal: new AbortController().signal });
    expect(record.reward).toBeNull();
    expect(record.error).toMatchObject({ boundary: 'rubric', code: 'RUBRIC_ERR_JUDGE_FAILED' });
  });
});
