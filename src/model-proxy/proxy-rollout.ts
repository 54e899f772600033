/**
 * One rollout's side of the proxy: its credential, the calls recorded so far, and (optionally) the runner's
 * TrajectoryRecorder, which gets each call as it finishes: a step, a model-response event, token data and usage,
 * and the last call's failure (boundary 'model') for the runner to record when the CLI gives up.
 */
import type { ChatMessage } from '../runner/trajectory/messages.js';
import type { RolloutFailure } from '../runner/trajectory/trajectory.js';
import type { TrajectoryRecorder } from '../runner/trajectory/trajectory-recorder.js';
import type { ProxyChatMessage } from './chat-wire.js';
import type { ModelCall } from './model-call.js';
import { shareRecordedPrefix } from './shared-prefix.js';
import { RequestCache } from './request-cache.js';
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

export class ProxyRollout {
  private readonly recorded: ModelCall[] = [];
  private readonly listeners = new Set<ModelCallListener>();
  private nextIndex = 0;
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
  ) {}

  get calls(): readonly ModelCall[] {
    return this.recorded;
  }

  /** Reserves the next call index at arrival, so indexes follow arrival order even when answers finish out of order. */
  reserveIndex(): number {
    return this.nextIndex++;
  }

  /**
   * Replaces the messages of a request that equal the last call's (its request, then its answer) by those objects,
   * before it goes upstream: the record shares them, and their serialisation is reused (upstream-body.ts).
   */
  sharePrefix(messages: ProxyChatMessage[]): void {
    const previous = this.recorded[this.recorded.length - 1];
    if (previous) shareRecordedPrefix(previous.response ? [...previous.request.messages, previous.response] : previous.request.messages, messages);
  }

  record(call: ModelCall): void {
    this.recorded.push(call);
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
   * The last call's failure with boundary 'model', or null when the last call succeeded (a CLI that retried and
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
   * The conversation as the proxy saw it: the last successful call's request messages and its answer. A CLI that
   * compacts or forks its context shows up as what it last sent; every call stays in `calls`.
   */
  conversation(): (ChatMessage | ProxyChatMessage)[] {
    for (let index = this.recorded.length - 1; index >= 0; index--) {
      const call = this.recorded[index]!;
      if (call.response) return [...call.request.messages, call.response];
    }
    return [];
  }

  /** Revokes the key (later calls get 401) and closes the rollout's own socket. Idempotent. */
  close(): Promise<void> {
    return this.closer();
  }
}
