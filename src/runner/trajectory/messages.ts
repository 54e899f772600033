/** Chat messages in the OpenAI chat-completions shape, the lingua franca of trainers and viewers. */
export interface ToolCallRequest {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCallRequest[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** Token data for one model turn, recorded exactly as the server returned it (never re-tokenised). */
export interface TurnTokens {
  /** The model turn (1-based) these tokens belong to. */
  turn?: number;
  promptTokenIds?: number[];
  completionTokenIds?: number[];
  completionLogprobs?: number[];
}
