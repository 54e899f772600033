/**
 * One episode's conversation as its trainer steps it (POST /v1/episodes/<id>/step, /ws/episodes). The turn loop of
 * `corral eval`'s agents, with the model on the trainer's side: each step is one assistant turn, recorded through
 * the same TrajectoryRecorder and tool-call execution the agents use, so the rubric scores at done exactly what was
 * stepped, as it would score the same conversation in `corral eval`.
 *
 * Order within a step, as the runner's agents take a turn: the assistant message; its tool calls (all of them,
 * concurrently, results in call order); else the final answer, then (an environment with `respond`) the stop
 * predicates over that answer and the environment's reply; the stop predicates; maxTurns. An environment with
 * `respond` is asked after every turn without tool calls, the last one included, as in `corral eval`.
 */
import { CorralError } from '../../core/errors.js';
import type { EpisodeConversationState, EpisodeEndReason, EpisodeStepOutcome, StepEpisodeBody, StepTokens } from '../../http/episode-step-contract.js';
import { executeToolCalls } from '../../runner/agents/execute-tool-calls.js';
import { answerWithoutReasoning } from '../../runner/agents/openai/reasoning-text.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import type { EnvironmentRollout } from '../../runner/contract/environment-rollout.js';
import type { ChatMessage, ToolCallRequest } from '../../runner/trajectory/messages.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import { TrajectoryRecorder } from '../../runner/trajectory/trajectory-recorder.js';
import { episodeRecord } from './episode-record.js';

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

interface Ending {
  reason: EpisodeEndReason;
  environmentReason: string | null;
  reward: number;
  metrics: Record<string, number>;
  answer: string | null;
}

/** What a fork's child starts from: a copy of its parent's conversation at the parent's current turn. */
interface ConversationCopy {
  recorder: TrajectoryRecorder;
  messages: readonly ChatMessage[];
  forkedFrom: { episode: string; turn: number };
}

export class EpisodeConversation {
  private readonly recorder: TrajectoryRecorder;
  private readonly prompt: readonly ChatMessage[];
  /** The prompt, then every stepped message, as the trainer's model sees them (reasoning is not sent back). */
  private readonly messages: ChatMessage[];
  private readonly forkedFrom: ConversationCopy['forkedFrom'] | null;
  private ending: Ending | null = null;
  private failure: unknown = null;
  /** Milliseconds from the episode's start to its end (the record's total_ms), once ended. */
  private endedAtMs: number | null = null;
  private running = false;
  /** A fork is copying this conversation: steps wait their turn (EPISODE_ERR_BUSY), so every child sees one turn. */
  private forking = false;

  constructor(
    private readonly id: string,
    private readonly environment: Environment,
    private readonly rollout: EnvironmentRollout,
    prompt: readonly ChatMessage[],
    from?: ConversationCopy,
  ) {
    this.prompt = prompt;
    this.messages = [...(from?.messages ?? prompt)];
    this.recorder = from?.recorder ?? new TrajectoryRecorder();
    this.forkedFrom = from?.forkedFrom ?? null;
  }

  /** True once a step was taken (the episode is then scored only by the step that ends it). */
  get stepped(): boolean {
    return this.recorder.turns > 0 || this.running;
  }

  state(): EpisodeConversationState {
    return {
      id: this.id,
      messages: this.messages,
      turns: this.recorder.turns,
      tokens: this.recorder.snapshot().tokens as EpisodeConversationState['tokens'],
      forkedFrom: this.forkedFrom,
      done: this.ending !== null || this.failure !== null,
      reward: this.ending?.reward ?? null,
      reason: this.failure !== null ? 'errored' : (this.ending?.reason ?? null),
    };
  }

  /**
   * Holds the conversation for a fork until the returned function is called: refused like a step (EPISODE_ERR_BUSY
   * while a step runs, EPISODE_ERR_DONE once ended), and steps sent meanwhile are refused with EPISODE_ERR_BUSY.
   */
  holdForFork(): () => void {
    this.assertOpen();
    this.forking = true;
    return () => (this.forking = false);
  }

  /** The child's conversation: a copy of this one now (messages, turns, events, token ids), continued independently. */
  copyFor(childId: string, childRollout: EnvironmentRollout): EpisodeConversation {
    const forkedFrom = { episode: this.id, turn: this.recorder.turns };
    return new EpisodeConversation(childId, this.environment, childRollout, this.prompt, {
      recorder: this.recorder.fork(),
      messages: this.messages,
      forkedFrom,
    });
  }

  /**
   * The episode's result record once it ended (a step answered done, or a fault errored it), in the layout of a
   * rollout's (results.jsonl), with its lineage when it was forked. EPISODE_ERR_NOT_DONE before that.
   */
  record(example: Example): ResultRecord {
    if (this.ending === null && this.failure === null) {
      throw new CorralError('EPISODE_ERR_NOT_DONE', `episode ${this.id} has not ended: its record exists once a step answers done`, {
        details: { id: this.id, turns: this.recorder.turns },
      });
    }
    return episodeRecord({
      environment: this.environment,
      example,
      prompt: this.prompt,
      trajectory: this.recorder.snapshot(),
      ending: this.ending,
      failure: this.failure,
      totalMs: this.endedAtMs ?? this.recorder.now(),
      lineage: this.forkedFrom ? { kind: 'fork', source_record: this.forkedFrom.episode, from_turn: this.forkedFrom.turn + 1 } : undefined,
    });
  }

  /**
   * One assistant turn. Refusals leave the conversation as it was: EPISODE_ERR_DONE, EPISODE_ERR_BUSY,
   * EPISODE_ERR_UNKNOWN_TOOL. Anything thrown once the turn began (a sandbox fault, respond, the rubric) errors the
   * episode: it is never scored, and later steps answer EPISODE_ERR_DONE.
   */
  async step(body: StepEpisodeBody, options: { abortSignal: AbortSignal }): Promise<EpisodeStepOutcome> {
    this.assertOpen();
    const message = assistantMessageOf(body.message);
    this.assertKnownTools(message.tool_calls ?? []);
    this.running = true;
    try {
      return await this.take(message, body.tokens, options.abortSignal);
    } catch (error) {
      this.failure = error;
      this.endedAtMs = this.recorder.now();
      throw error;
    } finally {
      this.running = false;
    }
  }

  private async take(message: AssistantMessage, tokens: StepTokens | undefined, abortSignal: AbortSignal): Promise<EpisodeStepOutcome> {
    const { recorder, environment, rollout } = this;
    const turn = recorder.startTurn();
    recorder.event({ type: 'model-response', turn, durationMs: 0 });
    recorder.message(message);
    if (tokens) recorder.tokens({ turn, ...tokens });
    const { reasoning_content: _reasoning, ...resent } = message;
    this.messages.push(resent);
    const added: ChatMessage[] = [];
    const calls = message.tool_calls ?? [];
    let reason: EpisodeEndReason | null = null;
    let environmentReason: string | null = null;
    if (calls.length > 0) {
      added.push(...(await executeToolCalls({ recorder, tools: rollout.tools, calls, turn, abortSignal })));
    } else {
      recorder.answer(answerWithoutReasoning(message.content ?? ''));
      if (!rollout.responds) reason = 'answered';
      // A predicate over the answer (answerParses) ends the episode before the environment is asked.
      else if (rollout.shouldStop(recorder.snapshot())) reason = 'stopped';
      else {
        // respond sees the conversation as recorded (the prompt, then the completion, reasoning included), as in a rollout.
        const messages = [...this.prompt, ...recorder.snapshot().completion];
        const reply = await rollout.respond({ messages, turn }, { abortSignal });
        recorder.userCalls(reply.userCalls);
        if (reply.done) {
          recorder.environmentDone(turn, reply.reason);
          [reason, environmentReason] = ['done', reply.reason];
        } else {
          recorder.environmentReply(reply.messages, turn);
          added.push(...reply.messages);
        }
      }
    }
    this.messages.push(...added);
    reason ??= rollout.shouldStop(recorder.snapshot()) ? 'stopped' : turn >= environment.maxTurns ? 'max-turns' : null;
    if (reason === null) return { messages: added, done: false };
    const ending = await this.end(reason, environmentReason, abortSignal);
    return { messages: added, done: true, ...ending };
  }

  private async end(reason: EpisodeEndReason, environmentReason: string | null, abortSignal: AbortSignal): Promise<Ending> {
    const startedAt = performance.now();
    const score = await this.rollout.score({ trajectory: this.recorder.snapshot() }, { abortSignal }).catch(throwAsRubricFailure);
    this.recorder.event({ type: 'score', durationMs: performance.now() - startedAt, reward: score.reward });
    this.recorder.finish(reason);
    this.endedAtMs = this.recorder.now();
    this.ending = { reason, environmentReason, reward: score.reward, metrics: score.metrics, answer: score.answer };
    return this.ending;
  }

  private assertOpen(): void {
    if (this.running || this.forking)
      throw new CorralError('EPISODE_ERR_BUSY', `episode ${this.id} is still taking the previous step or being forked; wait for its answer`, {
        details: { id: this.id },
      });
    if (this.ending === null && this.failure === null) return;
    const failed = this.failure === null ? null : failureCode(this.failure);
    const why = this.ending ? `ended (${this.ending.reason})` : `errored (${failed}) on an earlier step`;
    throw new CorralError('EPISODE_ERR_DONE', `episode ${this.id} ${why}; create a new episode to play again`, {
      details: { id: this.id, reason: this.ending?.reason ?? 'errored', ...(failed ? { error: failed } : {}) },
    });
  }

  private assertKnownTools(calls: readonly ToolCallRequest[]): void {
    const names = new Set(this.rollout.tools.tools.map((tool) => tool.name));
    const unknown = calls.find((call) => !names.has(call.function.name));
    if (!unknown) return;
    const available = [...names];
    throw new CorralError(
      'EPISODE_ERR_UNKNOWN_TOOL',
      `episode ${this.id} has no tool '${unknown.function.name}' (tool call ${unknown.id}); nothing ran. Its tools: ${available.join(', ')}`,
      { details: { available, field: 'message.tool_calls' } },
    );
  }
}

/** The corral code of what errored the episode: a CorralError's, or the one an MCP fault carries (data.corralCode). */
function failureCode(error: unknown): string {
  if (CorralError.isInstance(error)) return error.code;
  const carried = (error as { data?: { corralCode?: unknown } } | null)?.data?.corralCode;
  return typeof carried === 'string' ? carried : 'ERR_UNKNOWN';
}

/**
 * A rubric function that throws a plain error is the environment's bug: RUBRIC_ERR_FAILED (a 500 with its code, as
 * `corral eval` records it), never a bare 500. CorralErrors and MCP faults carrying a corral code pass as they are.
 */
export function throwAsRubricFailure(error: unknown): never {
  if (CorralError.isInstance(error) || typeof (error as { data?: { corralCode?: unknown } } | null)?.data?.corralCode === 'string') throw error;
  throw new CorralError('RUBRIC_ERR_FAILED', `the environment's rubric threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

/** The wire message as the recorder keeps it: arguments as JSON text, reasoning under one name, SDK-only fields dropped. */
function assistantMessageOf(message: StepEpisodeBody['message']): AssistantMessage {
  const calls: ToolCallRequest[] = (message.tool_calls ?? []).map((call) => ({
    id: call.id,
    type: 'function',
    function: {
      name: call.function.name,
      arguments: typeof call.function.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function.arguments),
    },
  }));
  const recorded: AssistantMessage = { role: 'assistant', content: message.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (reasoning !== undefined && reasoning !== '') recorded.reasoning_content = reasoning;
  return recorded;
}
