/** How agents and rubrics reach an environment's tools: only through MCP, whatever carries it. */
export interface ToolInfo {
  name: string;
  description: string;
  /** JSON Schema of the input, as the MCP server lists it. */
  inputSchema: Record<string, unknown>;
}

export interface ToolOutcome {
  /** Text the model sees. */
  text: string;
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

export interface ToolAccess {
  readonly tools: readonly ToolInfo[];
  /** Calls one tool. A failure inside the tool is an outcome with isError; infrastructure faults throw. */
  call(name: string, args: Record<string, unknown>, options?: { abortSignal?: AbortSignal; timeoutMs?: number }): Promise<ToolOutcome>;
}
