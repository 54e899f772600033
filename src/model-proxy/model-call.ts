/** What the proxy records for each model request a CLI makes: the contract trainers and the CLI runner read. */
import type { ChatMessage, TokenUsage, TurnTokens } from '../runner/trajectory/messages.js';
import type { ChatFunctionTool, ProxyChatMessage } from './chat-wire.js';
import type { DialectName } from './dialect.js';

export const MODEL_CALL_VERSION = 1 as const;

export interface ModelCall {
  version: typeof MODEL_CALL_VERSION;
  /** 0-based, per rollout, in the order calls arrived. */
  index: number;
  rolloutId: string;
  dialect: DialectName;
  /** The CLI asked for a stream (and the proxy asked upstream for one, translating it chunk by chunk). */
  stream: boolean;
  /** The model name the CLI sent; upstream was asked for the proxy's configured model. */
  clientModel: string;
  /** Epoch milliseconds when the request arrived. */
  startedAtMs: number;
  /** Request arrival to the last byte written back. */
  durationMs: number;
  /** The upstream request alone (send to the whole answer read, or to the stream's end). */
  upstreamMs: number;
  /** The Chat Completions request sent upstream (model left out; forced sampling args included). */
  request: { messages: ProxyChatMessage[]; tools: ChatFunctionTool[]; sampling: Record<string, unknown> };
  /** The assistant message as upstream returned it; null when the call failed. */
  response: Extract<ChatMessage, { role: 'assistant' }> | null;
  finishReason: string | null;
  usage: TokenUsage | null;
  /** Token ids and logprobs exactly as upstream sent them (never re-tokenised); null when it sent none. */
  tokens: TurnTokens | null;
  /** The failure the CLI was answered with; recorded on the trajectory with boundary 'model'. */
  error: { code: string; status: number; message: string } | null;
}
