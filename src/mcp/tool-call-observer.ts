/** A hook for whoever counts tool calls (the /metrics plugin); the MCP layer stays free of metrics libraries. */
export type ToolCallOutcome = 'ok' | 'tool_error' | 'failed';

export interface ToolCallRecord {
  tool: string;
  durationMs: number;
  /** 'tool_error': an isError result the model reads; 'failed': a JSON-RPC error (infrastructure or our bug). */
  outcome: ToolCallOutcome;
  /** The CorralError code (or tool-level code such as INVALID_ARGUMENTS) when the call did not succeed. */
  errorCode?: string;
}

export interface ToolCallObserver {
  toolCallFinished(record: ToolCallRecord): void;
}
