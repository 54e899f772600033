/** What the orchestrating bench sends to the load-generator children and what they answer. */

export interface HttpLoadTarget {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  path: string;
  /** 'mcp-session': initialize a session per client first. 'json': POST the same JSON-RPC body with no MCP headers. */
  kind: 'mcp-session' | 'json';
  toolName: string;
  toolArguments: Record<string, unknown>;
}

export interface HttpLoadRequest {
  target: HttpLoadTarget;
  clients: number;
  /** Calls finishing in the first warmupMs are not counted (connection setup, the first JIT tiers). */
  warmupMs: number;
  durationMs: number;
}

export interface WebSocketLoadRequest {
  /** e.g. ws://127.0.0.1:41234/ws/wiki */
  url: string;
  connections: number;
  /** Calls outstanding per connection. */
  inflight: number;
  toolName: string;
  toolArguments: Record<string, unknown>;
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  /** Successful calls that finished inside the measured window. */
  calls: number;
  errors: number;
  seconds: number;
  firstError?: string;
}
