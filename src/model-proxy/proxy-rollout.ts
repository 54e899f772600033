/**
 * One rollout's side of the proxy: its credential, the calls recorded so far (in arrival order), what they may
 * hold (a sandbox must not grow the proxy without bound: calls and recorded bytes are capped, and a call past a cap
 * errors the rollout rather than being dropped from its data), and (optionally) the runner's TrajectoryRecorder,
 * which gets each call as it finishes: a step, a model-response event, token data and usage, and the last call's
 * failure (boundary 'model') for the runner to record when the CLI gives up.
 */
import type { ChatMessage } from '../runner/trajectory/messages.js';
import type { RolloutFailure } from '../runner/trajectory/trajectory.js';
import type { TrajectoryRecorder } from '../runner/trajectory/trajectory-recorder.js';
import type { ProxyChatMessage } from './chat-wire.js';
import { conversationEnd } from './conversation-end.js';
import type { ModelCall } from './model-call.js';
import { ProxyError } from './proxy-error.js';
import { shareRecordedPrefix } from './shared-prefix.js';
import { RequestCache } from './request-cache.js';
import type { BodyBudget } from './request-body.js';
import { MessageBytes } from './upstream-body.js';

export interface ProxyRolloutOptions {
  /** A label kept on every call record (e.g. `example#rollout`). Default: a random id. */
  rolloutId?: string;
  /** Receives every call live. */
  trajectory?: TrajectoryRecorder;
  /** A unix socket of the rollout's own, serving only its key (mount it into that rollout's sandbox alone). */
  socketPath?: string;
}

export type ModelCallListener = (call: ModelCall) => void;

/** What one rollout's records may hold (ModelProxyOptions documents the defaults). */
export interface RolloutLimits {
  maxCalls: number;
  /** Bytes of request messages, tool lists and answers the records keep (shared prefixes count once). */
  maxRecordedBytes: number;
  /** Request bytes being read at once over all of the rollout's connections. */
  maxBodyBytesInFlight: number;
}

/** Calls whose messages a new call is compared with for a shared prefix (a main agent and its subagents alternate). */
const SHARING_CANDIDATES = 8;

export class ProxyRollout implements BodyBudget {
  private readonly recorded: ModelCall[] = [];
  private readonly listeners = new Set<ModelCallListener>();
  private nextIndex = 0;
  private recordedBytes = 0;
  private bodyBytesInFlight = 0;
  private readonly countedTools = new WeakSet<object>();
  private exceeded: ProxyError | null = null;
  /** Model calls being served right now (the proxy caps them per rollout). */
  callsInFlight = 0;
  /** Set by the proxy when the rollout has a listener of its own. */
  socketPath: string | null = null;
  /** The tool lists and system prompts this rollout's CLI sent, parsed and translated once. */
  readonly requestCache = new RequestCache();
  /** The last call's messages as serialised upstream. */
  readonly messageBytes = new MessageBytes();

  constructor(
    readonly rolloutId: string,
    /** The credential to give the CLI; any dialect's auth header (or Gemini's ?key=) carries it. */
    readonly apiKey: string,
    private readonly trajectory: TrajectoryRecorder | undefined,
    private readonly closer: () => Promise<void>,
    private readonly limits: RolloutLimits = { maxCalls: Infinity, maxRecordedBytes: Infinity, maxBodyBytesInFlight: Infinity },
  ) {}

  get calls(): readonly ModelCall[] {
    return this.recorded;
  }

  /**
   * Reserves the next call index at arrival, so indexes follow arrival order even when answers finish out of order.
   * Throws the rollout's limit error (PROXY_ERR_ROLLOUT_LIMIT) once a limit was passed, or when this call would pass
   * the call limit.
   */
  reserveIndex(): number {
    if (this.exceeded) throw this.exceeded;
    if (this.nextIndex >= this.limits.maxCalls)
      this.exceed(`this rollout has made ${this.nextIndex} model calls, the proxy's limit per rollout (maxCallsPerRollout)`);
    return this.nextIndex++;
  }

  /** The rollout's limit error once a call passed a limit (sticky: every later call is refused with it), else null. */
  limitFailure(): RolloutFailure | null {
    const error = this.exceeded;
    return error ? { boundary: 'model', code: error.code, message: error.message, transient: false } : null;
  }

  /** The rollout's limit error once a call passed a limit: every later call is refused with it. */
  get limitError(): ProxyError | null {
    return this.exceeded;
  }

  /** BodyBudget: takes `bytes` of the rollout's request-body allowance; false when its calls already hold that much. */
  take(bytes: number): boolean {
    if (this.bodyBytesInFlight + bytes > this.limits.maxBodyBytesInFlight) return false;
    this.bodyBytesInFlight += bytes;
    return true;
  }

  give(bytes: number): void {
    this.bodyBytesInFlight -= bytes;
  }

  /**
   * Counts what a call adds to the records before it goes upstream: its messages not shared with an earlier call
   * (`freshBytes`) and a tool list not seen before. Throws PROXY_ERR_ROLLOUT_LIMIT when that passes the byte limit.
   */
  admit(freshBytes: number, tools: object, toolsBytes: number): void {
    const added = freshBytes + (this.countedTools.has(tools) ? 0 : toolsBytes);
    if (this.recordedBytes + added > this.limits.maxRecordedBytes)
      this.exceed(
        `this rollout's recorded calls would hold ${this.recordedBytes + added} bytes, over the proxy's limit of ${this.limits.maxRecordedBytes} per rollout (maxRecordedBytesPerRollout)`,
      );
    this.countedTools.add(tools);
    this.recordedBytes += added;
  }

  /** Counts an answer's bytes (it is kept on the record). */
  addAnswerBytes(bytes: number): void {
    this.recordedBytes += bytes;
  }

  private exceed(message: string): never {
    this.exceeded = new ProxyError(400, 'invalid_request', 'PROXY_ERR_ROLLOUT_LIMIT', message);
    throw this.exceeded;
  }

  /**
   * Replaces the messages of a request that equal a recent call's (its request, then its answer) by those objects,
   * before it goes upstream: the record shares them, and their serialisation is reused (upstream-body.ts). The
   * recent call compared with is the latest whose first message is this request's (a main agent and its subagents
   * alternate). Returns how many leading messages are now shared.
   */
  sharePrefix(messages: ProxyChatMessage[]): number {
    for (let index = this.recorded.length - 1, tried = 0; index >= 0 && tried < SHARING_CANDIDATES; index--, tried++) {
      const previous = this.recorded[index]!;
      const shared = shareRecordedPrefix(previous.response ? [...previous.request.messages, previous.response] : previous.request.messages, messages);
      if (shared > 0) return shared;
    }
    return 0;
  }

  record(call: ModelCall): void {
    // In arrival order: answers finish out of order, so a call goes after the last one that arrived before it.
    let position = this.recorded.length;
    while (position > 0 && this.recorded[position - 1]!.index > call.index) position--;
    this.recorded.splice(position, 0, call);
    const trajectory = this.trajectory;
    if (trajectory) {
      const turn = trajectory.startTurn();
      // A failed call is not the rollout's failure yet: the CLI may retry and recover (see failure()).
      if (!call.error) {
        trajectory.event({ type: 'model-response', turn, durationMs: call.upstreamMs });
        if (call.tokens) trajectory.tokens({ turn, ...call.tokens });
        if (call.usage) trajectory.usage(call.usage);
        if (call.finishReason === 'length') trajectory.truncated();
      }
    }
    for (const listener of this.listeners) listener(call);
  }

  /**
   * The last call's failure (by arrival) with boundary 'model', or null when it succeeded (a CLI that retried and
   * recovered has none). The runner records it when the CLI gives up.
   */
  failure(): RolloutFailure | null {
    const error = this.recorded[this.recorded.length - 1]?.error;
    if (!error) return null;
    return { boundary: 'model', code: error.code, message: error.message, transient: error.status === 429 || error.status >= 500 };
  }

  onCall(listener: ModelCallListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The CLI's conversation as the proxy saw it: the request messages and answer of the call that ends it
   * (conversation-end.ts: the latest answered call that continues an earlier one, so a stray call from another
   * process in the sandbox is not taken for the CLI's last turn). Every call stays in `calls`.
   */
  conversation(): (ChatMessage | ProxyChatMessage)[] {
    const end = conversationEnd(this.recorded);
    return end?.response ? [...end.request.messages, end.response] : [];
  }

  /** Revokes the key (later calls get 401) and closes the rollout's own socket. Idempotent. */
  close(): Promise<void> {
    return this.closer();
  }
}
