/** Builds a Trajectory as an agent works: messages, events, per-call timings, token data, and the one failure. */
import { CorralError } from '../../core/errors.js';
import type { ToolAccess, ToolOutcome } from '../contract/tool-access.js';
import type { ChatMessage, TokenUsage, ToolCallRequest, TurnTokens } from './messages.js';
import type { EpisodeEndReason, RolloutFailure, Trajectory, TrajectoryEvent, UserModelCall } from './trajectory.js';

export class TrajectoryRecorder {
  private readonly trajectory: Trajectory;
  private readonly startedAt: number;

  /** `from`: continue a copy of another recorder's trajectory (fork()); otherwise a new episode starts now. */
  constructor(from?: { trajectory: Trajectory; startedAt: number }) {
    this.startedAt = from?.startedAt ?? performance.now();
    this.trajectory = from ? structuredClone(from.trajectory) : emptyTrajectory();
    if (!from) this.event({ type: 'episode-start' });
  }

  /** An independent copy that continues from here (an episode fork): later records go to one or the other, never both. */
  fork(): TrajectoryRecorder {
    return new TrajectoryRecorder({ trajectory: this.trajectory, startedAt: this.startedAt });
  }

  /** Milliseconds since the episode started. */
  now(): number {
    return Math.round((performance.now() - this.startedAt) * 1000) / 1000;
  }

  event(event: DistributiveOmit<TrajectoryEvent, 'atMs'>): void {
    this.trajectory.events.push({ ...event, atMs: this.now() } as TrajectoryEvent);
  }

  startTurn(): number {
    this.trajectory.turns++;
    this.event({ type: 'step-start', turn: this.trajectory.turns });
    return this.trajectory.turns;
  }

  message(message: ChatMessage): void {
    this.trajectory.completion.push(message);
  }

  tokens(tokens: TurnTokens): void {
    this.trajectory.tokens.push(tokens);
  }

  /** Replaces the token entries with those of a conversation recorded elsewhere (a CLI agent's final conversation). */
  replaceTokens(tokens: readonly TurnTokens[]): void {
    this.trajectory.tokens = [...tokens];
  }

  /**
   * Replaces the completion with a conversation recorded elsewhere: a CLI agent's as corral's model proxy saw it
   * (the CLI keeps its own history, so the messages recorded while it ran are not the conversation).
   */
  replaceCompletion(messages: readonly ChatMessage[]): void {
    this.trajectory.completion.splice(0, this.trajectory.completion.length, ...messages);
  }

  /** Adds one model turn's reported usage to the rollout's totals. */
  usage(usage: TokenUsage): void {
    const total = (this.trajectory.usage ??= { prompt_tokens: 0, completion_tokens: 0 });
    total.prompt_tokens += usage.prompt_tokens;
    total.completion_tokens += usage.completion_tokens;
    if (usage.cached_tokens !== undefined) total.cached_tokens = (total.cached_tokens ?? 0) + usage.cached_tokens;
  }

  /** The environment's reply after `turn`: its messages join the completion, marked by an environment-reply event. */
  environmentReply(messages: readonly ChatMessage[], turn: number): void {
    this.event({ type: 'environment-reply', turn, messageIndex: this.trajectory.completion.length, count: messages.length });
    this.trajectory.completion.push(...messages);
  }

  /** The environment's respond ended the episode after `turn`. */
  environmentDone(turn: number, reason: string | null): void {
    this.event({ type: 'environment-done', turn, reason });
  }

  /** A simulated user's model calls: kept apart from the agent's (never in completion, tokens or usage). */
  userCalls(calls: readonly UserModelCall[]): void {
    for (const call of calls) {
      this.trajectory.userCalls!.push(call);
      if (!call.usage) continue;
      const total = (this.trajectory.userUsage ??= { prompt_tokens: 0, completion_tokens: 0 });
      total.prompt_tokens += call.usage.prompt_tokens;
      total.completion_tokens += call.usage.completion_tokens;
    }
  }

  /** The model hit its token limit on this turn (finish_reason "length"). */
  truncated(): void {
    this.trajectory.truncated = true;
  }

  answer(text: string): void {
    this.trajectory.answer = text;
  }

  /** The first failure wins: a rollout is blamed on one boundary. */
  fail(failure: RolloutFailure): void {
    this.trajectory.failure ??= failure;
  }

  /** For the runner only: a cancel or deadline explains whatever failure it caused. */
  replaceFailure(failure: RolloutFailure): void {
    this.trajectory.failure = failure;
  }

  get failure(): RolloutFailure | null {
    return this.trajectory.failure;
  }

  get turns(): number {
    return this.trajectory.turns;
  }

  /**
   * Calls one tool for a model's tool call, records timing and events, appends the tool message and returns the
   * outcome. Malformed arguments become a readable isError result; infrastructure faults propagate.
   */
  async callTool(tools: ToolAccess, call: ToolCallRequest, turn: number, abortSignal?: AbortSignal): Promise<ToolOutcome> {
    // An agent author's wrong guess at this signature is theirs to fix, with a message, not a corral bug.
    if (typeof tools?.call !== 'function' || typeof call?.function?.name !== 'string' || typeof call.function.arguments !== 'string') {
      throw new CorralError(
        'AGENT_ERR_MISUSE',
        "recorder.callTool(tools, call, turn, abortSignal) takes the run input's tools, a tool call { id, type: 'function', function: { name, arguments: JSON string } } and the turn recorder.startTurn() returned; defineAgent from 'corral' gives agents a plain callTool(name, args) instead",
      );
    }
    const startedAt = performance.now();
    this.event({ type: 'tool-call', turn, callId: call.id, name: call.function.name });
    let outcome: ToolOutcome;
    try {
      const args = parseArguments(call.function.arguments);
      outcome = typeof args === 'string' ? { text: args, isError: true } : await tools.call(call.function.name, args, { abortSignal });
    } catch (error) {
      const durationMs = performance.now() - startedAt;
      const code = (error as { code?: unknown }).code;
      this.event({
        type: 'tool-error',
        callId: call.id,
        durationMs,
        code: typeof code === 'string' ? code : 'TOOL_ERR_UNKNOWN',
        message: (error as Error).message,
      });
      this.trajectory.toolCalls.push({ callId: call.id, name: call.function.name, turn, durationMs, isError: true });
      throw error;
    }
    const durationMs = performance.now() - startedAt;
    this.event({ type: 'tool-result', callId: call.id, durationMs, isError: outcome.isError });
    this.trajectory.toolCalls.push({ callId: call.id, name: call.function.name, turn, durationMs, isError: outcome.isError });
    this.message({ role: 'tool', tool_call_id: call.id, content: outcome.text });
    return outcome;
  }

  finish(reason: EpisodeEndReason): Trajectory {
    this.event({ type: 'episode-end', reason });
    return this.trajectory;
  }

  snapshot(): Trajectory {
    return this.trajectory;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Returns the parsed object, or a message for the model explaining why the arguments are unusable. */
function parseArguments(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(text || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    return `Error: tool arguments must be a JSON object, got ${JSON.stringify(value)}`;
  } catch (error) {
    return `Error: tool arguments are not valid JSON (${(error as Error).message}). Send a JSON object matching the tool's input schema.`;
  }
}

function emptyTrajectory(): Trajectory {
  return {
    completion: [],
    answer: null,
    events: [],
    toolCalls: [],
    turns: 0,
    tokens: [],
    failure: null,
    truncated: false,
    usage: null,
    userCalls: [],
    userUsage: null,
  };
}
