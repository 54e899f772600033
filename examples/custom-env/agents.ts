/**
 * Model-free agents this environment ships, so it can be smoke-tested (and run in CI) with no model endpoint:
 * `reference` runs each puzzle's reference code with the python tool and answers with what it printed (expect
 * reward 1.0: anything less points at the sandbox, the tools or the rubric); `guess` answers '0' without any tool
 * (expect 0.0: a rubric that rewards it is broken). Together they bracket the rubric.
 */
import type { Agent, AgentRunInput, ToolCallRequest } from 'corral';

export class ReferenceSolver implements Agent {
  readonly name = 'reference';
  readonly model = 'reference';

  async run({ example, tools, recorder, abortSignal }: AgentRunInput): Promise<void> {
    const code = typeof example.info?.solution === 'string' ? example.info.solution : 'print("no reference solution")';
    // One turn with one tool call, recorded exactly as a model's would be (events, timings, the tool message).
    const turn = recorder.startTurn();
    const call: ToolCallRequest = { id: 'call_1', type: 'function', function: { name: 'python', arguments: JSON.stringify({ code }) } };
    recorder.message({ role: 'assistant', content: null, tool_calls: [call] });
    const outcome = await recorder.callTool(tools, call, turn, abortSignal);
    answer(recorder, outcome.isError ? `(the reference code failed: ${outcome.text})` : outcome.text.trim());
  }
}

export class Guesser implements Agent {
  readonly name = 'guess';
  readonly model = 'guess';

  async run({ recorder }: AgentRunInput): Promise<void> {
    answer(recorder, '0');
  }
}

function answer(recorder: AgentRunInput['recorder'], text: string): void {
  recorder.startTurn();
  recorder.message({ role: 'assistant', content: text });
  recorder.answer(text);
}
