import type { ToolAccess } from './tool-access.js';

/** One rollout's connection to its environment's tools (and so its own sandbox). close() releases it. */
export interface ToolSession extends ToolAccess {
  close(): Promise<void>;
}

/** Opens a fresh tool session per rollout: in-memory MCP in the same process, HTTP/WebSocket when remote. */
export interface ToolSessionFactory {
  open(options: { abortSignal?: AbortSignal }): Promise<ToolSession>;
}
