/**
 * The contract every client dialect implements: read the CLI's request into a Chat Completions request, write the
 * upstream answer back as the CLI expects it (one body, or the dialect's stream of events, written delta by delta
 * as upstream's chunks arrive), and shape errors. Dialects are pure functions of their input: no I/O, so each is
 * unit-tested on fixtures.
 */
import type { ModelTurn } from '../runner/agents/openai/chat-completion-response.js';
import type { ChatFunctionTool, ChatRequest } from './chat-wire.js';
import type { ProxyError } from './proxy-error.js';

export type DialectName = 'chat' | 'responses' | 'anthropic' | 'gemini';

/** What a dialect needs from the URL besides the body (Gemini names the model and streaming in the path). */
export interface RouteContext {
  /** From the path, when the dialect puts it there. */
  pathModel?: string;
  /** The route itself asks for a stream (Gemini's :streamGenerateContent). */
  streamRoute?: boolean;
  query: URLSearchParams;
}

/**
 * A request's tool list as Chat Completions tools, plus what a reply needs to name calls back. CLIs send the same
 * long list on every call, so it is translated once per rollout and reused (see tools-cache.ts): it is never
 * mutated after it is made.
 */
export interface ToolTranslation {
  tools: readonly ChatFunctionTool[];
  /** Responses: joined chat tool name → the namespace and name Codex declared. */
  namespaced: ReadonlyMap<string, { namespace: string; name: string }>;
  /** Responses: names of custom (freeform) tools. */
  customTools: ReadonlySet<string>;
}

export interface TranslatedRequest<State = unknown> {
  chat: ChatRequest;
  stream: boolean;
  /** The model name the CLI asked for; answers echo it back. */
  clientModel: string;
  /** What the reply needs to undo the translation (e.g. Codex namespaces per joined tool name). */
  state: State;
}

/** One upstream answer, read once and shared by every writer. */
export interface UpstreamAnswer {
  /** The upstream body, untouched (vLLM's token fields included). */
  body: Record<string, unknown>;
  turn: ModelTurn;
  /** An id for this answer, unique within the proxy (msg_, resp_, chatcmpl- prefixes are added per dialect). */
  id: string;
  /** Seconds since the epoch. */
  created: number;
}

export interface StreamEvent {
  /** The SSE `event:` line; dialects without one (Chat Completions, Gemini) leave it out. */
  event?: string;
  data: unknown;
}

/** One piece of an upstream answer as it streams: what a Chat Completions chunk's delta adds. */
export type StreamDelta =
  | { type: 'reasoning'; text: string }
  | { type: 'text'; text: string }
  /** The first delta of a call carries its id and name; later ones more of its arguments. */
  | { type: 'tool-call'; index: number; id?: string; name?: string; arguments: string };

/** What a stream writer knows when upstream's first chunk arrives. */
export interface StreamStart {
  /** As UpstreamAnswer.id. */
  id: string;
  created: number;
  /** Upstream's own completion id and model, echoed by the Chat Completions dialect. */
  upstreamId?: string;
  upstreamModel?: string;
  /** Known only when a whole answer is replayed as a stream; streamed usage arrives with the last chunk. */
  usage?: UpstreamAnswer['turn']['usage'];
}

/** Writes one answer as the dialect's events, in order: start, each delta as it arrives, finish with the whole answer. */
export interface StreamWriter {
  start(): StreamEvent[];
  write(delta: StreamDelta): StreamEvent[];
  finish(answer: UpstreamAnswer): StreamEvent[];
}

export interface Dialect<State = unknown> {
  name: DialectName;
  /** Top-level fields besides `tools` that CLIs resend unchanged (system prompts): parsed once per rollout (request-cache.ts). */
  stableFields: readonly string[];
  /** The request's `tools` field (anything: an absent or malformed list gives no tools). */
  translateTools(tools: unknown): ToolTranslation;
  /**
   * Throws ProxyError (400) when the request cannot be translated. `tools`, when given, stands for the body's
   * `tools` field (the proxy's cached translation of it); otherwise that field is translated.
   */
  translateRequest(body: unknown, context: RouteContext, tools?: ToolTranslation): TranslatedRequest<State>;
  replyBody(answer: UpstreamAnswer, request: TranslatedRequest<State>): unknown;
  /** The dialect's event stream for one answer, written incrementally. */
  streamWriter(request: TranslatedRequest<State>, start: StreamStart): StreamWriter;
  /** The whole event sequence for an answer that is already complete (replayed through streamWriter). */
  streamEvents(answer: UpstreamAnswer, request: TranslatedRequest<State>): StreamEvent[];
  /** Chat Completions ends its stream with `data: [DONE]`. */
  streamTerminator?: string;
  errorBody(error: ProxyError): unknown;
  /** A failure after the stream's headers went out (see stream-head-start.ts), as the dialect's in-stream error. */
  streamErrorEvents(error: ProxyError): StreamEvent[];
}
