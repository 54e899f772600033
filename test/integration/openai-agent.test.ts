// OpenAIAgent over real HTTP against the scripted model server, with an in-memory fake ToolAccess.
import { afterEach, describe, expect, it } from 'vitest';
import { CorralError } from '../../src/core/errors.js';
import { OpenAIAgent, type OpenAIAgentOptions } from '../../src/runner/agents/openai/openai-agent.js';
import type { Example } from '../../src/runner/contract/environment.js';
import type { ToolAccess, ToolOutcome } from '../../src/runner/contract/tool-access.js';
import { TrajectoryRecorder } from '../../src/runner/trajectory/trajectory-recorder.js';
import { startScriptedModelServer, type ModelReply, type ModelScript, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';

const SYSTEM_PROMPT = 'You are a careful test agent.';

/** Ten minutes: longer than any test timeout, so a wait this long can only end by a timeout, an abort or a cancel. */
const STALL_MS = 600_000;

/** echo, add, sleep (logs `start:<label>` and `end:<label>`, honours abort), fail (isError), picky (model-audience throw), broken (infrastructure throw). */
function fakeTools(): ToolAccess & { sleepLog: string[] } {
  const sleepLog: string[] = [];
  const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties, additionalProperties: false });
  return {
    sleepLog,
    tools: [
      { name: 'echo', description: 'Echoes text back.', inputSchema: schema({ text: { type: 'string' } }) },
      { name: 'add', description: 'Adds two numbers.', inputSchema: schema({ a: { type: 'number' }, b: { type: 'number' } }) },
      { name: 'sleep', description: 'Waits ms, returns label.', inputSchema: schema({ ms: { type: 'number' }, label: { type: 'string' } }) },
      { name: 'fail', description: 'Always fails inside the tool.', inputSchema: schema({}) },
      { name: 'picky', description: 'Rejects its input.', inputSchema: schema({}) },
      { name: 'broken', description: 'Its sandbox is down.', inputSchema: schema({}) },
    ],
    async call(name, args, options): Promise<ToolOutcome> {
      switch (name) {
        case 'echo':
          return { text: String(args['text']), isError: false };
        case 'add':
          return { text: String(Number(args['a']) + Number(args['b'])), isError: false };
        case 'sleep': {
          sleepLog.push(`start:${String(args['label'])}`);
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, Number(args['ms']));
            options?.abortSignal?.addEventListener('abort', () => (clearTimeout(timer), reject(new CorralError('ERR_ABORTED', 'tool call cancelled'))), {
              once: true,
            });
          });
          sleepLog.push(`end:${String(args['label'])}`);
          return { text: String(args['label']), isError: false };
        }
        case 'fail':
          return { text: 'Traceback: boom', isError: true };
        case 'picky':
          throw new CorralError('SBX_ERR_INVALID_ARGUMENT', 'old text not found in file');
        case 'broken':
          throw new CorralError('SBX_ERR_UNAVAILABLE', 'no Docker daemon');
        default:
          throw new Error(`fake ToolAccess has no tool ${name}`);
      }
    },
  };
}

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: ModelScript): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer(script);
  servers.push(server);
  return server;
}

function agentFor(server: ScriptedModelServer, options: Partial<OpenAIAgentOptions> = {}): OpenAIAgent {
  return new OpenAIAgent({
    model: 'test-model',
    baseURL: server.baseURL,
    apiKey: 'test-key',
    maxRetries: 2,
    requestTimeoutMs: 5_000,
    backoffBaseMs: 5,
    backoffMaxMs: 20,
    ...options,
  });
}

interface RunOptions {
  prompt?: Example['prompt'];
  tools?: ToolAccess;
  maxTurns?: number;
  abortSignal?: AbortSignal;
  seed?: number;
  rolloutIndex?: number;
}

function runAgent(agent: OpenAIAgent, options: RunOptions = {}): { recorder: TrajectoryRecorder; done: Promise<void> } {
  const recorder = new TrajectoryRecorder();
  const done = agent.run({
    example: { id: 'example-1', prompt: options.prompt ?? 'What is 2 + 3?' },
    systemPrompt: SYSTEM_PROMPT,
    tools: options.tools ?? fakeTools(),
    maxTurns: options.maxTurns ?? 10,
    recorder,
    abortSignal: options.abortSignal ?? new AbortController().signal,
    rolloutIndex: options.rolloutIndex ?? 0,
    seed: options.seed,
  });
  return { recorder, done };
}

async function runFailing(agent: OpenAIAgent, options: RunOptions = {}): Promise<{ error: CorralError; recorder: TrajectoryRecorder }> {
  const { recorder, done } = runAgent(agent, options);
  const error = await done.then(
    () => expect.fail('the agent should have thrown'),
    (thrown: unknown) => thrown,
  );
  expect(CorralError.isInstance(error), String(error)).toBe(true);
  return { error: error as CorralError, recorder };
}

const text = (content: string, extra: Partial<Extract<ModelReply, { kind: 'text' }>> = {}): ModelReply => ({ kind: 'text', content, ...extra });
const calls = (...toolCalls: { name: string; arguments: string | Record<string, unknown> }[]): ModelReply => ({ kind: 'tool-calls', toolCalls });
const toolMessages = (recorder: TrajectoryRecorder) => recorder.snapshot().completion.filter((message) => message.role === 'tool');

describe('OpenAIAgent over HTTP', () => {
  it('uses tools over several turns, then answers; the conversation sent is the prompt plus the recorded completion', async () => {
    const server = await serve(
      (_request, index) =>
        [calls({ name: 'add', arguments: { a: 2, b: 3 } }), calls({ name: 'echo', arguments: { text: 'checked' } }), text('The sum is 5.')][index]!,
    );
    const { recorder, done } = runAgent(agentFor(server));
    await done;
    const trajectory = recorder.snapshot();
    expect(trajectory.answer).toBe('The sum is 5.');
    expect(trajectory.turns).toBe(3);
    expect(trajectory.completion.map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(toolMessages(recorder).map((message) => message.content)).toEqual(['5', 'checked']);
    const prompt = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'What is 2 + 3?' },
    ];
    expect(server.requests.map((request) => request.body.messages)).toEqual([
      prompt,
      [...prompt, ...trajectory.completion.slice(0, 2)],
      [...prompt, ...trajectory.completion.slice(0, 4)],
    ]);
    expect(trajectory.events.filter((event) => event.type === 'model-response')).toHaveLength(3);
    expect(trajectory.toolCalls.map((call) => [call.name, call.turn, call.isError])).toEqual([
      ['add', 1, false],
      ['echo', 2, false],
    ]);
  });

  it('runs one turn of tool calls concurrently and returns their results in call order', async () => {
    const server = await serve((_request, index) =>
      index === 0
        ? calls(
            { name: 'sleep', arguments: { ms: 300, label: 'slow' } },
            { name: 'sleep', arguments: { ms: 20, label: 'fast' } },
            { name: 'echo', arguments: { text: 'instant' } },
          )
        : text('done'),
    );
    const tools = fakeTools();
    const { recorder, done } = runAgent(agentFor(server), { tools });
    await done;
    // Both started before either ended (they ran at once), and the fast one ended first.
    expect(tools.sleepLog).toEqual(['start:slow', 'start:fast', 'end:fast', 'end:slow']);
    const expected = [
      { role: 'tool', tool_call_id: 'call_0_0', content: 'slow' },
      { role: 'tool', tool_call_id: 'call_0_1', content: 'fast' },
      { role: 'tool', tool_call_id: 'call_0_2', content: 'instant' },
    ];
    expect(toolMessages(recorder)).toEqual(expected);
    expect(server.requests[1]!.body.messages.slice(-3)).toEqual(expected);
    // The tools finished in another order than they were called, so the ordering above is the agent's doing.
    const finished = recorder.snapshot().events.flatMap((event) => (event.type === 'tool-result' ? [event.callId] : []));
    expect(finished).not.toEqual(['call_0_0', 'call_0_1', 'call_0_2']);
  });

  it('sends malformed arguments, unknown tools and tool failures back to the model as readable errors, and carries on', async () => {
    const server = await serve((_request, index) =>
      index === 0
        ? calls(
            { name: 'echo', arguments: '{"text": "unterminated' },
            { name: 'nope', arguments: {} },
            { name: 'fail', arguments: {} },
            { name: 'picky', arguments: {} },
            { name: 'echo', arguments: '[1]' },
          )
        : text('recovered'),
    );
    const { recorder, done } = runAgent(agentFor(server));
    await done;
    const contents = toolMessages(recorder).map((message) => message.content);
    expect(contents[0]).toMatch(/not valid JSON/);
    expect(contents[1]).toBe("Error: unknown tool 'nope'. Available tools: echo, add, sleep, fail, picky, broken.");
    expect(contents[2]).toBe('Traceback: boom');
    expect(contents[3]).toBe('Error: old text not found in file');
    expect(contents[4]).toMatch(/must be a JSON object/);
    expect(recorder.snapshot().toolCalls.every((call) => call.isError)).toBe(true);
    expect(server.requests[1]!.body.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual(contents);
    expect(recorder.snapshot().answer).toBe('recovered');
  });

  it('sends sampling args (extra fields included), tool schemas, the message-list prompt and the API key', async () => {
    const server = await serve(() => text('ok'));
    const samplingArgs = { temperature: 0.7, top_p: 0.9, max_tokens: 64, seed: 7, logprobs: true, return_token_ids: true, top_k: 20 };
    const prompt = [
      { role: 'user' as const, content: 'q1' },
      { role: 'assistant' as const, content: 'a1' },
      { role: 'user' as const, content: 'q2' },
    ];
    const tools = fakeTools();
    await runAgent(agentFor(server, { samplingArgs }), { prompt, tools, seed: 100, rolloutIndex: 3 }).done;
    const { body, headers } = server.requests[0]!;
    expect(body).toMatchObject({ ...samplingArgs, model: 'test-model' });
    expect(body.seed).toBe(7); // an explicit sampling seed wins over the run seed
    expect(body.messages).toEqual([{ role: 'system', content: SYSTEM_PROMPT }, ...prompt]);
    expect(body.tools).toEqual(
      tools.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } })),
    );
    expect(headers.authorization).toBe('Bearer test-key');
  });

  it('derives a per-rollout seed from the run seed, and sends no tools field when there are none', async () => {
    const server = await serve(() => text('ok'));
    const agent = agentFor(server);
    await runAgent(agent, { seed: 100, rolloutIndex: 3, tools: { tools: [], call: () => Promise.reject(new Error('unused')) } }).done;
    await runAgent(agent).done;
    expect(server.requests[0]!.body.seed).toBe(103);
    expect('tools' in server.requests[0]!.body).toBe(false);
    expect('seed' in server.requests[1]!.body).toBe(false);
  });

  it('rejects samplingArgs that would override what the agent sends', () => {
    expect(() => new OpenAIAgent({ model: 'm', samplingArgs: { stream: true } })).toThrow(/stream/);
  });

  it('retries 500s and honours Retry-After on 429, then succeeds', async () => {
    // When the 429 goes out, a marker timer starts for half the Retry-After. The agent's own backoff is 5-20 ms, so
    // a retry that ignored Retry-After would arrive before the marker fires; one that waited arrives after it.
    let markerFired = false;
    let retryAfterMarker: boolean | undefined;
    const replies: ModelReply[] = [
      { kind: 'http-error', status: 500 },
      { kind: 'http-error', status: 429, headers: { 'retry-after-ms': '1000' } },
      text('finally'),
    ];
    const server = await serve((_request, index) => {
      if (index === 1) setTimeout(() => (markerFired = true), 500);
      if (index === 2) retryAfterMarker = markerFired;
      return replies[index]!;
    });
    const { recorder, done } = runAgent(agentFor(server));
    await done;
    expect(recorder.snapshot().answer).toBe('finally');
    expect(server.requests).toHaveLength(3);
    expect(retryAfterMarker).toBe(true);
    expect(recorder.snapshot().turns).toBe(1);
  });

  it('throws a transient MODEL_ERR_SERVER with the status once retries are exhausted', async () => {
    const server = await serve(() => ({ kind: 'http-error', status: 503, message: 'overloaded' }));
    const { error, recorder } = await runFailing(agentFor(server, { maxRetries: 2 }));
    expect(error.code).toBe('MODEL_ERR_SERVER');
    expect(error.audience).toBe('infrastructure');
    expect(error.transient).toBe(true);
    expect(error.details).toMatchObject({ status: 503, attempts: 3, model: 'test-model' });
    expect(error.message).toMatch(/overloaded/);
    expect(server.requests).toHaveLength(3);
    expect(recorder.snapshot().events.some((event) => event.type === 'model-response')).toBe(false);
  });

  it('does not retry client errors: 400 is MODEL_ERR_HTTP, a context overflow is MODEL_ERR_CONTEXT_LENGTH, 429 to the end is MODEL_ERR_RATE_LIMITED', async () => {
    const cases: [ModelReply, string, number, boolean][] = [
      [{ kind: 'http-error', status: 400, message: 'unknown field' }, 'MODEL_ERR_HTTP', 1, false],
      [{ kind: 'http-error', status: 400, message: "This model's maximum context length is 4096 tokens." }, 'MODEL_ERR_CONTEXT_LENGTH', 1, false],
      [
        { kind: 'http-error', status: 400, message: 'The input (5000 tokens) is longer than the model context length (4096 tokens).', flat: true },
        'MODEL_ERR_CONTEXT_LENGTH',
        1,
        false,
      ],
      [{ kind: 'http-error', status: 429 }, 'MODEL_ERR_RATE_LIMITED', 2, true],
    ];
    for (const [reply, code, attempts, transient] of cases) {
      const server = await serve(() => reply);
      const { error } = await runFailing(agentFor(server, { maxRetries: 1 }));
      expect([error.code, error.details['status'], server.requests.length, error.transient]).toEqual([
        code,
        reply.kind === 'http-error' ? reply.status : null,
        attempts,
        transient,
      ]);
    }
  });

  it('times out a stalled request, retries it, and throws MODEL_ERR_TIMEOUT when every attempt stalls', async () => {
    // Each answer would take STALL_MS: the run can only end within the test timeout because every attempt timed out.
    const server = await serve(() => ({ kind: 'text', content: 'too late', delayMs: STALL_MS }));
    const { error } = await runFailing(agentFor(server, { requestTimeoutMs: 150, maxRetries: 1 }));
    expect(error.code).toBe('MODEL_ERR_TIMEOUT');
    expect(error.transient).toBe(true);
    expect(error.details['attempts']).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('recovers when only the first attempt stalls', async () => {
    const server = await serve((_request, index) => (index === 0 ? { kind: 'text', content: 'too late', delayMs: STALL_MS } : text('in time')));
    const { recorder, done } = runAgent(agentFor(server, { requestTimeoutMs: 150 }));
    await done;
    expect(recorder.snapshot().answer).toBe('in time');
  });

  it('treats a body that is not a chat completion as MODEL_ERR_BAD_RESPONSE, without retrying', async () => {
    const bodies: ModelReply[] = [
      { kind: 'malformed', body: '{"choices": [' },
      { kind: 'malformed', body: '{"object": "list"}' },
      { kind: 'malformed', body: '<html>gateway</html>', contentType: 'text/html' },
    ];
    for (const reply of bodies) {
      const server = await serve(() => reply);
      const { error } = await runFailing(agentFor(server));
      expect([error.code, error.transient, server.requests.length]).toEqual(['MODEL_ERR_BAD_RESPONSE', false, 1]);
    }
  });

  it('throws MODEL_ERR_CONNECTION when nothing listens', async () => {
    const server = await startScriptedModelServer(() => text('unused'));
    await server.close();
    const { error } = await runFailing(agentFor(server, { maxRetries: 1 }));
    expect(error.code).toBe('MODEL_ERR_CONNECTION');
    expect(error.transient).toBe(true);
    expect(error.details).toMatchObject({ status: null, attempts: 2 });
  });

  it('records token ids and logprobs per turn exactly as the server sent them', async () => {
    const first = {
      promptTokenIds: [151644, 8948, 198],
      completionTokenIds: [40, 1184, 151645],
      logprobs: [-0.000123456789012345, -1.2345678901234567, -9999],
    };
    const second = { promptTokenIds: [151644, 8948, 198, 40, 1184, 151645, 77], completionTokenIds: [20], logprobs: [-0.5] };
    const server = await serve((_request, index) =>
      index === 0 ? { kind: 'tool-calls', toolCalls: [{ name: 'echo', arguments: { text: 'x' } }], tokens: first } : text('5', { tokens: second }),
    );
    const { recorder, done } = runAgent(agentFor(server, { samplingArgs: { logprobs: true, return_token_ids: true } }));
    await done;
    expect(recorder.snapshot().tokens).toEqual([
      { turn: 1, prompt_token_ids: first.promptTokenIds, completion_token_ids: first.completionTokenIds, completion_logprobs: first.logprobs },
      { turn: 2, prompt_token_ids: second.promptTokenIds, completion_token_ids: second.completionTokenIds, completion_logprobs: second.logprobs },
    ]);
  });

  it('records an entry without token data when the server sends none (so training samples see the turn lacked them)', async () => {
    const server = await serve(() => text('plain'));
    const { recorder, done } = runAgent(agentFor(server));
    await done;
    expect(recorder.snapshot().tokens).toEqual([{ turn: 1 }]);
  });

  it('stops at maxTurns without an answer', async () => {
    const server = await serve(() => calls({ name: 'echo', arguments: { text: 'again' } }));
    const { recorder, done } = runAgent(agentFor(server), { maxTurns: 3 });
    await done;
    const trajectory = recorder.snapshot();
    expect([trajectory.turns, trajectory.answer, trajectory.completion.length, server.requests.length]).toEqual([3, null, 6, 3]);
  });

  it('cancels through abortSignal: during a request, a backoff, and a tool call', async () => {
    // Every wait here is STALL_MS (the request, the backoff, the tool), so within the test timeout only the abort
    // can end a run. Each abort fires once the run is observably inside the wait it targets.
    const stalled = await serve(() => ({ kind: 'text', content: 'never', delayMs: STALL_MS }));
    const failing = await serve(() => ({ kind: 'http-error', status: 500 }));
    const toolTurn = await serve(() => calls({ name: 'sleep', arguments: { ms: STALL_MS, label: 'long' } }));
    const tools = fakeTools();
    const scenarios: [ScriptedModelServer, Partial<OpenAIAgentOptions>, () => boolean][] = [
      [stalled, {}, () => stalled.requests.length === 1],
      [failing, { backoffBaseMs: STALL_MS, backoffMaxMs: STALL_MS }, () => failing.requests.length === 1],
      [toolTurn, {}, () => tools.sleepLog.includes('start:long')],
    ];
    for (const [server, options, inside] of scenarios) {
      const controller = new AbortController();
      const failed = runFailing(agentFor(server, options), { abortSignal: controller.signal, tools });
      await expect.poll(inside, { timeout: 20_000 }).toBe(true);
      controller.abort();
      const { error } = await failed;
      expect(error.code).toBe('ERR_ABORTED');
      expect(server.requests).toHaveLength(1);
    }
    expect(tools.sleepLog).toEqual(['start:long']);
  });

  it('throws an infrastructure fault from a tool, cancelling its sibling calls', async () => {
    // The sibling would sleep STALL_MS: the run ends within the test timeout only because the fault cancelled it.
    const server = await serve(() => calls({ name: 'sleep', arguments: { ms: STALL_MS, label: 'sibling' } }, { name: 'broken', arguments: {} }));
    const tools = fakeTools();
    const { error, recorder } = await runFailing(agentFor(server), { tools });
    expect(error.code).toBe('SBX_ERR_UNAVAILABLE');
    expect(tools.sleepLog).toEqual(['start:sibling']);
    expect(recorder.snapshot().events.filter((event) => event.type === 'tool-error')).toHaveLength(2);
  });
});
