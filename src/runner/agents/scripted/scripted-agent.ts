/**
 * An agent that follows a script instead of a model: for tests, smoke runs and benchmarks that measure everything
 * but the model. Each step is one turn: tool calls (run concurrently, exactly as a model's would be) or an answer.
 * It records the same messages and events as the openai agent, with a model-response duration of zero.
 */
import { throwIfAborted } from '../../../core/abort.js';
import type { Example } from '../../contract/environment.js';
import type { ToolCallRequest } from '../../trajectory/messages.js';
import type { Agent, AgentRunInput } from '../agent.js';
import type { AssistantMessage } from '../openai/chat-completion-response.js';
import { executeToolCalls } from '../execute-tool-calls.js';

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent as is, so a script can send malformed arguments on purpose. */
  arguments: Record<string, unknown> | string;
}

export type ScriptStep = { toolCalls: readonly ScriptedToolCall[]; content?: string } | { answer: string };

export type Script = readonly ScriptStep[] | ((example: Example, context: { rolloutIndex: number }) => readonly ScriptStep[] | Promise<readonly ScriptStep[]>);

export class ScriptedAgent implements Agent {
  readonly name = 'scripted';
  readonly model = 'scripted';
  readonly takesEnvironmentReplies = true;

  constructor(private readonly script: Script) {}

  /**
   * Plays the steps in order, stopping at the first answer (in an environment that answers turns: at the answer its
   * reply ends the episode after), at maxTurns, when a stop predicate holds, or when the script runs out (the last two
   * leave the answer null, which the runner records as 'max-turns'). Infrastructure faults from tools throw.
   */
  async run(input: AgentRunInput): Promise<void> {
    const { recorder, abortSignal } = input;
    const steps = typeof this.script === 'function' ? await this.script(input.example, { rolloutIndex: input.rolloutIndex }) : this.script;
    for (const step of steps.slice(0, input.maxTurns)) {
      throwIfAborted(abortSignal);
      const turn = recorder.startTurn();
      recorder.event({ type: 'model-response', turn, durationMs: 0 });
      if ('answer' in step) {
        recorder.message({ role: 'assistant', content: step.answer });
        recorder.answer(step.answer);
        // An environment that answers turns replies to each answer; the next step answers that reply.
        if (!input.environmentReply || (await input.environmentReply()).done) return;
        continue;
      }
      const calls = step.toolCalls.map((call, index): ToolCallRequest => ({
        id: `call_${turn}_${index}`,
        type: 'function',
        function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
      }));
      const message: AssistantMessage =
        calls.length > 0 ? { role: 'assistant', content: step.content ?? null, tool_calls: calls } : { role: 'assistant', content: step.content ?? null };
      recorder.message(message);
      await executeToolCalls({ recorder, tools: input.tools, calls, turn, abortSignal });
      if (input.shouldStop?.()) return;
    }
  }
}
