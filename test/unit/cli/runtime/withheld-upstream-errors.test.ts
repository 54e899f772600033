/**
 * The openai agent as `corral serve` builds it for a client's endpoint (wrapped so upstream error text is withheld)
 * still takes environment replies: an environment with respond runs with it instead of being refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIAgent } from '../../../../src/cli/eval/agent-factory.js';
import { ModelHttpClient } from '../../../../src/runner/agents/openai/model-http-client.js';
import { defineEnvironment } from '../../../../src/runner/contract/environment.js';
import { runEvaluation } from '../../../../src/runner/scheduler/run-evaluation.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../../src/testing/scripted-model-server.js';

describe("a client endpoint's openai agent", () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer((request) => ({ kind: 'text', content: request.messages.at(-1)!.content === 'again' ? 'second' : 'first' }));
  });
  afterAll(() => server.close());

  it('continues after the environment reply', async () => {
    const agent = createOpenAIAgent({
      model: 'm',
      baseURL: server.baseURL,
      samplingArgs: {},
      clientEndpoint: { httpClient: new ModelHttpClient(), onWithheld: () => undefined },
    });
    const environment = defineEnvironment({
      name: 'echo-twice',
      dataset: () => [],
      systemPrompt: 'answer',
      respond: ({ turn }) => (turn === 1 ? { messages: 'again' } : { done: true, reason: 'twice' }),
      rubric: [{ name: 'turns', weight: 1, score: ({ trajectory }) => trajectory.turns }],
    });
    const records: ResultRecord[] = [];
    await runEvaluation({
      environment,
      agent,
      tools: { open: async () => ({ tools: [], call: async () => ({ text: '', isError: true }), close: async () => undefined }) },
      examples: [{ id: 'e', prompt: 'go' }],
      rolloutsPerExample: 1,
      concurrency: 1,
      abortSignal: new AbortController().signal,
      onGroup: (group) => records.push(...group),
    });
    expect(records[0]).toMatchObject({ reward: 2, error: null, final_answer: 'second' });
  });
});
