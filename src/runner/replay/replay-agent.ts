/**
 * The replay agent: puts the source record's turns 1..K-1 into the rollout's recorder as they were (messages, token
 * data, tool calls with their recorded results), then lets the given agent continue from turn K with the prefix in
 * its prompt. With `live` tools the prefix's calls are first run again in the rollout's fresh sandbox, which brings
 * it to turn K's state, and each output is compared with the recorded one; with `recorded` tools the agent's later
 * calls are answered from the recording (recorded-tools.ts). The rubric then scores the whole trajectory.
 */
import { CorralError } from '../../core/errors.js';
import type { Agent, AgentRunInput } from '../agents/agent.js';
import type { ToolAccess } from '../contract/tool-access.js';
import type { ChatMessage } from '../trajectory/messages.js';
import { resultKey } from '../trajectory/result-record.js';
import { readTurnTokens } from '../trajectory/turn-tokens.js';
import { recordedToolAccess } from './recorded-tools.js';
import type { SourceRun } from './source-run.js';
import { type RecordedCall, splitAtTurn } from './trajectory-prefix.js';

export type ReplayTools = 'recorded' | 'live';

export interface ReplayOutcome {
  /** live: every re-run prefix call gave the recorded output. */
  prefixReproduced?: boolean;
  /** recorded: calls that did not match the recording. */
  toolMismatches?: number;
}

export interface ReplayPlan {
  source: SourceRun;
  fromTurn: number;
  /** Replays of each source trajectory (-r): replay rollout i continues source rollout floor(i / replays). */
  replays: number;
  tools: ReplayTools;
}

export const sourceKeyOf = (plan: ReplayPlan, exampleId: string, rolloutIndex: number) => resultKey(exampleId, Math.floor(rolloutIndex / plan.replays));

export function replayAgent(agent: Agent, plan: ReplayPlan, outcomes: Map<string, ReplayOutcome>): Agent {
  return {
    name: agent.name,
    model: agent.model,
    ...(agent.samplingArgs ? { samplingArgs: agent.samplingArgs } : {}),
    ...(agent.environments ? { environments: agent.environments } : {}),
    ...(agent.close ? { close: () => agent.close!() } : {}),
    async run(input: AgentRunInput) {
      const key = sourceKeyOf(plan, input.example.id, input.rolloutIndex);
      const source = plan.source.byKey.get(key);
      if (!source) throw new CorralError('RUNNER_ERR_UNEXPECTED', `replay: the source run has no record ${key}`);
      const { prefix, leading, recordedAfter } = splitAtTurn(source, plan.fromTurn);
      const tokens = new Map((readTurnTokens(source.tokens) ?? []).map((entry) => [entry.turn, entry]));
      const outcome: ReplayOutcome = {};
      outcomes.set(resultKey(input.example.id, input.rolloutIndex), outcome);
      const { recorder } = input;
      for (const message of leading) recorder.message(message);
      for (const turn of prefix) {
        const number = recorder.startTurn();
        const entry = tokens.get(turn.turn);
        if (entry) recorder.tokens({ ...entry, turn: number });
        recorder.message(turn.messages[0]!);
        for (const recorded of turn.calls) {
          if (plan.tools === 'live')
            outcome.prefixReproduced = (await reproduces(input.tools, recorded, input.abortSignal)) && outcome.prefixReproduced !== false;
          await recorder.callTool(recordedToolAccess([recorded], input.tools.tools), recorded.call, number, input.abortSignal);
        }
        // Environment replies between turns, as they were.
        for (const message of turn.messages.slice(1)) if (message.role !== 'tool') recorder.message(message);
      }
      const recordedTools = plan.tools === 'recorded' ? recordedToolAccess(recordedAfter, input.tools.tools) : undefined;
      try {
        await agent.run({
          ...input,
          example: { ...input.example, prompt: [...promptOf(input.example.prompt), ...recorder.snapshot().completion.map(withoutReasoning)] },
          tools: recordedTools ?? input.tools,
          maxTurns: Math.max(0, input.maxTurns - prefix.length),
        });
      } finally {
        if (recordedTools) outcome.toolMismatches = recordedTools.mismatches;
      }
    },
  };
}

const promptOf = (prompt: string | ChatMessage[]): ChatMessage[] => (typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt);

/** The conversation sent on omits reasoning_content, as the agents do with their own turns. */
function withoutReasoning(message: ChatMessage): ChatMessage {
  if (message.role !== 'assistant' || message.reasoning_content === undefined) return message;
  const { reasoning_content: _reasoning, ...rest } = message;
  return rest;
}

async function reproduces(tools: ToolAccess, recorded: RecordedCall, abortSignal: AbortSignal): Promise<boolean> {
  let args: unknown;
  try {
    args = JSON.parse(recorded.call.function.arguments || '{}');
  } catch {
    // Malformed arguments were answered with an error message, not run: nothing to bring the sandbox to.
    return true;
  }
  const outcome = await tools.call(recorded.call.function.name, args as Record<string, unknown>, { abortSignal });
  return outcome.text === recorded.result && outcome.isError === recorded.isError;
}
