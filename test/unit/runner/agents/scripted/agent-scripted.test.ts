import { describe, expect, it } from 'vitest';
import { CorralError } from '../../../../../src/core/errors.js';
import { ScriptedAgent, type Script } from '../../../../../src/runner/agents/scripted/scripted-agent.js';
import type { ToolAccess } from '../../../../../src/runner/contract/tool-access.js';
import { TrajectoryRecorder } from '../../../../../src/runner/trajectory/trajectory-recorder.js';

/** echo returns its text after `ms` (honouring abort) and logs start/end, so tests can see concurrency. */
function fakeTools(): ToolAccess & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    tools: [{ name: 'echo', description: 'Echoes text after ms.', inputSchema: { type: 'object' } }],
    async call(_name, args, options) {
      log.push(`start ${String(args['text'])}`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, Number(args['ms'] ?? 0));
        options?.abortSignal?.addEventListener('abort', () => (clearTimeout(timer), reject(new CorralError('ERR_ABORTED', 'cancelled'))), { once: true });
      });
      log.push(`end ${String(args['text'])}`);
      return { text: String(args['text']), isError: false };
    },
  };
}

async function play(script: Script, options: { maxTurns?: number; abortSignal?: AbortSignal; tools?: ToolAccess } = {}) {
  const recorder = new TrajectoryRecorder();
  const tools = options.tools ?? fakeTools();
  await new ScriptedAgent(script).run({
    example: { id: 'question-7', prompt: 'hello' },
    systemPrompt: 'system',
    tools,
    maxTurns: options.maxTurns ?? 10,
    recorder,
    abortSignal: options.abortSignal ?? new AbortController().signal,
    rolloutIndex: 2,
  });
  return recorder.snapshot();
}

describe('ScriptedAgent', () => {
  it('is named scripted, plays tool-call steps and stops at the answer', async () => {
    const agent = new ScriptedAgent([]);
    expect([agent.name, agent.model]).toEqual(['scripted', 'scripted']);
    const trajectory = await play([
      { toolCalls: [{ name: 'echo', arguments: { text: 'one' } }], content: 'thinking' },
      { answer: '42' },
      { answer: 'never reached' },
    ]);
    expect(trajectory.completion).toEqual([
      { role: 'assistant', content: 'thinking', tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'echo', arguments: '{"text":"one"}' } }] },
      { role: 'tool', tool_call_id: 'call_1_0', content: 'one' },
      { role: 'assistant', content: '42' },
    ]);
    expect([trajectory.answer, trajectory.turns]).toEqual(['42', 2]);
    expect(trajectory.events.filter((event) => event.type === 'model-response')).toHaveLength(2);
  });

  it('runs a step’s tool calls concurrently and records their results in call order', async () => {
    const tools = fakeTools();
    const trajectory = await play(
      [
        {
          toolCalls: [
            { name: 'echo', arguments: { text: 'slow', ms: 80 } },
            { name: 'echo', arguments: { text: 'fast', ms: 1 } },
          ],
        },
      ],
      { tools },
    );
    expect(tools.log).toEqual(['start slow', 'start fast', 'end fast', 'end slow']);
    expect(trajectory.completion.slice(1)).toEqual([
      { role: 'tool', tool_call_id: 'call_1_0', content: 'slow' },
      { role: 'tool', tool_call_id: 'call_1_1', content: 'fast' },
    ]);
  });

  it('builds its steps from the example and rollout index when the script is a function', async () => {
    const trajectory = await play((example, { rolloutIndex }) => [{ answer: `${example.id}#${rolloutIndex}` }]);
    expect(trajectory.answer).toBe('question-7#2');
  });

  it('sends string arguments as is and unknown tools back as readable errors', async () => {
    const trajectory = await play([
      {
        toolCalls: [
          { name: 'echo', arguments: '{oops' },
          { name: 'missing', arguments: {} },
        ],
      },
      { answer: 'done' },
    ]);
    const tools = trajectory.completion.filter((message) => message.role === 'tool');
    expect(tools[0]!.content).toMatch(/not valid JSON/);
    expect(tools[1]!.content).toBe("Error: unknown tool 'missing'. Available tools: echo.");
    expect(trajectory.answer).toBe('done');
  });

  it('stops at maxTurns, or when the script runs out, without an answer', async () => {
    const step = { toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] };
    expect((await play([step, step, step], { maxTurns: 2 })).turns).toBe(2);
    const ranOut = await play([step]);
    expect([ranOut.turns, ranOut.answer]).toEqual([1, null]);
  });

  it('honours abortSignal during a tool call', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const run = play([{ toolCalls: [{ name: 'echo', arguments: { text: 'long', ms: 10_000 } }] }], { abortSignal: controller.signal });
    await expect(run).rejects.toMatchObject({ code: 'ERR_ABORTED' });
  });
});
