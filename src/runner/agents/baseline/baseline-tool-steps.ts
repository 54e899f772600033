/**
 * Lets a model-free agent leave the same trajectory a model would: each step is an assistant message whose
 * tool_calls go through the recorder (events, timings, tool messages), and the end is an assistant message
 * with the final answer. Calls of one step run one after another, so tool messages follow tool_calls' order.
 */
import type { ToolAccess, ToolOutcome } from '../../contract/tool-access.js';
import type { ToolCallRequest } from '../../trajectory/messages.js';
import type { TrajectoryRecorder } from '../../trajectory/trajectory-recorder.js';

export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

export class ToolSteps {
  constructor(
    private readonly recorder: TrajectoryRecorder,
    private readonly tools: ToolAccess,
    private readonly maxTurns: number,
    private readonly abortSignal: AbortSignal,
  ) {}

  /** Turns still available for tool steps, keeping one for the final answer. */
  get stepsLeft(): number {
    return Math.max(0, this.maxTurns - this.recorder.turns - 1);
  }

  /** One assistant turn calling `calls`; returns their outcomes in the same order. */
  async step(calls: readonly PlannedCall[], content: string | null = null): Promise<ToolOutcome[]> {
    this.abortSignal.throwIfAborted();
    const turn = this.recorder.startTurn();
    const requests: ToolCallRequest[] = calls.map((call, index) => ({
      id: `call_${turn}_${index}`,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    }));
    this.recorder.message({ role: 'assistant', content, tool_calls: requests });
    const outcomes: ToolOutcome[] = [];
    for (const request of requests) {
      this.abortSignal.throwIfAborted();
      outcomes.push(await this.recorder.callTool(this.tools, request, turn, this.abortSignal));
    }
    return outcomes;
  }

  /** The final assistant turn. */
  answer(text: string): void {
    this.abortSignal.throwIfAborted();
    this.recorder.startTurn();
    this.recorder.message({ role: 'assistant', content: text });
    this.recorder.answer(text);
  }
}
