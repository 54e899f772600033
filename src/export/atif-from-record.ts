/**
 * toAtif: one results.jsonl record (a rollout) as an ATIF v1.7 trajectory. The prompt's system and user messages
 * become system / user steps; each assistant message (one model turn) becomes an agent step carrying its tool
 * calls, the results of those calls as its observation, and the turn's token ids and logprobs as recorded (never
 * re-tokenised). Everything of the record that has no ATIF field (reward, metrics, error, timings...) is kept under
 * the root's extra.corral. The result passes validateAtif; docs/results.md lists every field. Assistant messages of
 * the prompt (few-shot examples) are marked is_copied_context, so trainers leave them out.
 */
import type { ChatMessage, TurnTokens } from '../runner/trajectory/messages.js';
import { type ResultRecord, resultKey } from '../runner/trajectory/result-record.js';
import type { TrajectoryEvent } from '../runner/trajectory/trajectory.js';
import { readTurnTokens } from '../runner/trajectory/turn-tokens.js';
import { ATIF_SCHEMA_VERSION, type AtifMetrics, type AtifStep, type AtifToolCall, type AtifTrajectory } from './atif-schema.js';

export interface ToAtifOptions {
  agent: {
    name: string;
    version: string;
    /** The model behind the agent steps; absent for model-free agents. */
    modelName?: string | null;
    /** The tools the agent was offered (OpenAI function definitions), when known. */
    toolDefinitions?: readonly Record<string, unknown>[];
    extra?: Readonly<Record<string, unknown>>;
  };
  /**
   * Whether agent steps come from a model: true writes llm_call_count 1 per model turn, false writes 0 (a
   * deterministic dispatch: scripted, oracle and baseline agents) and drops reasoning and metrics; absent writes none.
   */
  usesModel?: boolean;
  /** Run-scoped id shared by a run's trajectories (e.g. the run directory's name); default the trajectory id. */
  sessionId?: string;
  /** When the rollout started; with it, steps get ISO timestamps from the recorded events. */
  startedAt?: Date | string;
}

/** The record's fields that have no ATIF field (prompt, completion, tokens, usage and events are in the steps). */
const KEPT_IN_EXTRA = [
  'version',
  'example_id',
  'rollout_index',
  'task',
  'answer',
  'final_answer',
  'info',
  'reward',
  'metrics',
  'group',
  'error',
  'turns',
  'timing',
  'truncated',
  'attempts',
] as const;

export function toAtif(record: ResultRecord, options: ToAtifOptions): AtifTrajectory {
  const trajectoryId = resultKey(record.example_id, record.rollout_index);
  const clock = stepClock(record.events, options.startedAt);
  const steps: AtifStep[] = [];
  for (const message of record.prompt) appendMessage(steps, message, { copied: true, turn: null, record, options, clock });
  let turn = 0;
  for (const message of record.completion)
    appendMessage(steps, message, { copied: false, turn: message.role === 'assistant' ? ++turn : turn, record, options, clock });
  if (steps.length === 0) steps.push({ step_id: 1, source: 'user', message: '' });
  markInfrastructureFailures(steps, record.events);
  const corral = Object.fromEntries(KEPT_IN_EXTRA.filter((key) => record[key] !== undefined).map((key) => [key, record[key]]));
  const usage = record.usage;
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: options.sessionId ?? trajectoryId,
    trajectory_id: trajectoryId,
    agent: {
      name: options.agent.name,
      version: options.agent.version,
      ...(options.agent.modelName ? { model_name: options.agent.modelName } : {}),
      ...(options.agent.toolDefinitions ? { tool_definitions: options.agent.toolDefinitions.map((definition) => ({ ...definition })) } : {}),
      ...(options.agent.extra ? { extra: { ...options.agent.extra } } : {}),
    },
    steps,
    final_metrics: {
      ...(usage ? { total_prompt_tokens: usage.prompt_tokens, total_completion_tokens: usage.completion_tokens } : {}),
      ...(usage?.cached_tokens !== undefined ? { total_cached_tokens: usage.cached_tokens } : {}),
      total_steps: steps.length,
    },
    extra: { corral },
  };
}

interface AppendContext {
  /** Prompt messages were given to the rollout, not produced by it (ATIF's is_copied_context). */
  copied: boolean;
  turn: number | null;
  record: ResultRecord;
  options: ToAtifOptions;
  clock: StepClock;
}

function appendMessage(steps: AtifStep[], message: ChatMessage, context: AppendContext): void {
  const stepId = steps.length + 1;
  if (message.role === 'system' || message.role === 'user') {
    steps.push({ step_id: stepId, ...context.clock.start(), source: message.role, message: message.content });
    return;
  }
  if (message.role === 'tool') {
    attachToolResult(steps, message.tool_call_id, message.content, context.record.events);
    return;
  }
  // An assistant message in the prompt (a few-shot example) was not produced by this rollout: copied context.
  const copied = context.copied ? { is_copied_context: true } : {};
  const usesModel = context.options.usesModel;
  const tokens = context.turn === null || context.copied ? undefined : turnTokens(context.record.tokens, context.turn);
  const metrics = usesModel === false ? undefined : tokenMetrics(tokens);
  const reasoning = message.reasoning_content;
  const stepExtra: Record<string, unknown> = { ...(context.turn !== null && !context.copied ? { turn: context.turn } : {}) };
  if (reasoning !== undefined && usesModel === false) stepExtra['reasoning_content'] = reasoning;
  const toolCalls = (message.tool_calls ?? []).map(atifToolCall);
  steps.push({
    step_id: stepId,
    ...(context.copied || context.turn === null ? {} : context.clock.turn(context.turn)),
    source: 'agent',
    message: message.content ?? '',
    ...(reasoning !== undefined && usesModel !== false ? { reasoning_content: reasoning } : {}),
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(metrics ? { metrics } : {}),
    ...(usesModel === undefined || context.copied ? {} : { llm_call_count: usesModel ? 1 : 0 }),
    ...copied,
    ...(Object.keys(stepExtra).length ? { extra: stepExtra } : {}),
  });
}

function atifToolCall(call: NonNullable<Extract<ChatMessage, { role: 'assistant' }>['tool_calls']>[number]): AtifToolCall {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.function.arguments || '{}');
  } catch {
    parsed = undefined;
  }
  const isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  return {
    tool_call_id: call.id,
    function_name: call.function.name,
    arguments: isObject ? (parsed as Record<string, unknown>) : {},
    // Arguments that are not a JSON object (the model's mistake, answered with an error result) are kept verbatim.
    ...(isObject ? {} : { extra: { raw_arguments: call.function.arguments } }),
  };
}

/** A tool result joins the observation of the agent step whose tool call it answers. */
function attachToolResult(steps: AtifStep[], callId: string, content: string, events: readonly TrajectoryEvent[]): void {
  const isError = events.some((event) => event.type === 'tool-result' && event.callId === callId && event.isError);
  const owner = [...steps].reverse().find((step) => step.tool_calls?.some((call) => call.tool_call_id === callId));
  const result = { content, ...(isError ? { extra: { is_error: true } } : {}) };
  if (owner) {
    (owner.observation ??= { results: [] }).results.push({ source_call_id: callId, ...result });
    return;
  }
  // A result of no recorded call cannot reference one: ATIF allows it without source_call_id.
  const last = steps.at(-1);
  const orphan = { ...result, extra: { ...result.extra, tool_call_id: callId } };
  if (last) (last.observation ??= { results: [] }).results.push(orphan);
  else steps.push({ step_id: 1, source: 'system', message: '', observation: { results: [orphan] } });
}

/** A tool call that failed in the infrastructure has no tool message: its observation records the error instead. */
function markInfrastructureFailures(steps: AtifStep[], events: readonly TrajectoryEvent[]): void {
  for (const event of events) {
    if (event.type !== 'tool-error') continue;
    const owner = steps.find((step) => step.tool_calls?.some((call) => call.tool_call_id === event.callId));
    if (!owner || owner.observation?.results.some((result) => result.source_call_id === event.callId)) continue;
    (owner.observation ??= { results: [] }).results.push({
      source_call_id: event.callId,
      content: null,
      extra: { is_error: true, error_code: event.code, error_message: event.message },
    });
  }
}

function turnTokens(recorded: unknown, turn: number): TurnTokens | undefined {
  // Records written before the snake_case rename still convert.
  const tokens = readTurnTokens(recorded);
  if (!tokens?.length) return undefined;
  const numbered = tokens.some((entry) => entry.turn !== undefined);
  return numbered ? tokens.find((entry) => entry.turn === turn) : tokens[turn - 1];
}

function tokenMetrics(tokens: TurnTokens | undefined): AtifMetrics | undefined {
  if (!tokens) return undefined;
  const metrics: AtifMetrics = {
    ...(tokens.prompt_token_ids ? { prompt_token_ids: [...tokens.prompt_token_ids] } : {}),
    ...(tokens.completion_token_ids ? { completion_token_ids: [...tokens.completion_token_ids] } : {}),
    ...(tokens.completion_logprobs ? { logprobs: [...tokens.completion_logprobs] } : {}),
  };
  return Object.keys(metrics).length ? metrics : undefined;
}

interface StepClock {
  start(): { timestamp?: string };
  turn(turn: number): { timestamp?: string };
}

/** Absolute step times from the events' offsets (ms since the episode started), when the start is known. */
function stepClock(events: readonly TrajectoryEvent[], startedAt: Date | string | undefined): StepClock {
  if (startedAt === undefined) return { start: () => ({}), turn: () => ({}) };
  const origin = new Date(startedAt).getTime();
  const at = (offsetMs: number | undefined) => (offsetMs === undefined ? {} : { timestamp: new Date(origin + offsetMs).toISOString() });
  const episodeStart = events.find((event) => event.type === 'episode-start')?.atMs ?? 0;
  return {
    start: () => at(episodeStart),
    turn: (turn) => at(events.find((event) => event.type === 'model-response' && event.turn === turn)?.atMs),
  };
}
