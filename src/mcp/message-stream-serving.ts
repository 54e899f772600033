/**
 * One catalog entry over a message stream (stdio, a WebSocket), for a client of either era: the SDK's serveStdio
 * negotiates the era and may build a probe server before the one it keeps, so every server it asks for is
 * assembled over the stream's one sandbox set. Used by `corral mcp` and by ToolServerHost for WebSockets.
 */
import type { Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { LazySandboxes } from './lazy-sandboxes.js';
import type { ToolCatalogEntry } from './tool-catalog.js';
import type { TaskStore } from './task-store.js';
import type { ToolCallObserver } from './tool-call-observer.js';
import { type SandboxBinding, assembleToolServer } from './tool-server-assembly.js';

export interface MessageStreamOptions {
  entry: Pick<ToolCatalogEntry, 'tools' | 'scopeFor' | 'instructions' | 'extendServer'>;
  /** A source: the stream leases its own sandboxes and close() releases them. Shared: a handle's, left alone. */
  sandboxes: SandboxBinding;
  observer?: ToolCallObserver | undefined;
  /** Default: the process's stdin and stdout. */
  transport?: Transport;
  /** Out-of-band SDK errors; reporting only. */
  onError?: (error: Error) => void;
  /** The host's task store and the connection's principal: given, the stream's servers speak the tasks extension. */
  tasks?: { store: TaskStore; owner: string };
}

export interface ServedMessageStream {
  readonly sandboxes: LazySandboxes;
  /** Ends the stream and releases the sandboxes it owns. Idempotent. */
  close(): Promise<void>;
}

export function serveMessageStream(options: MessageStreamOptions): ServedMessageStream {
  const binding = options.sandboxes;
  const sandboxes = 'source' in binding ? new LazySandboxes(binding.source, binding.env) : binding.shared;
  const { entry, observer } = options;
  // Named fields, not a spread: a reloadable entry's other fields (reloads, changeEvents) are not followed here, so a
  // stream keeps the tools it connected with and declares tools.listChanged false.
  const assemble = () =>
    assembleToolServer({
      tools: entry.tools,
      scopeFor: entry.scopeFor,
      instructions: entry.instructions,
      extendServer: entry.extendServer,
      observer,
      sandboxes: { shared: sandboxes },
      tasks: options.tasks,
    });
  const served = serveStdio(() => assemble().server, {
    ...(options.transport ? { transport: options.transport } : {}),
    onerror: (error) => options.onError?.(error),
  });
  let closing: Promise<void> | undefined;
  return {
    sandboxes,
    close: () =>
      (closing ??= (async () => {
        await served.close().catch(() => undefined);
        if ('source' in binding) await sandboxes.release();
      })()),
  };
}
