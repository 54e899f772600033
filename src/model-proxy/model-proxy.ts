/**
 * The recording model proxy: CLI coding agents speak their own dialect (Chat Completions, Responses, Anthropic
 * Messages, Gemini) to it; it asks the operator's OpenAI-compatible endpoint in Chat Completions, answers in the
 * CLI's dialect, and records every call into the rollout the presented key belongs to. It listens only on unix
 * sockets and 127.0.0.1; the upstream URL and key never reach a CLI. node:http rather than fastify: four routes
 * whose streams are written raw, one handler on several listeners (a shared socket, a port, one socket per
 * rollout), and nothing between the socket and the handler on a path measured by `corral bench agents`.
 */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { CorralError } from '../core/errors.js';
import { createProxyHandler, type RequestHandler } from './proxy-handler.js';
import { newRolloutKey } from './proxy-credentials.js';
import { ProxyRollout, type ProxyRolloutOptions } from './proxy-rollout.js';
import { UpstreamClient, type UpstreamOptions } from './upstream-client.js';

// The types a caller of startModelProxy needs, importable from this one module (as /root/notes promised images-cli).
export type { ProxyRollout, ProxyRolloutOptions } from './proxy-rollout.js';
export type { ModelCall } from './model-call.js';

export interface ModelProxyOptions {
  upstream: UpstreamOptions;
  /** Set on every upstream request over what the CLI sent (temperature, max_tokens, seed, logprobs, return_token_ids, ...). */
  forcedArgs?: Record<string, unknown>;
  /** At least one. `port` listens on 127.0.0.1 only (0: any free port). */
  listen: { socketPath?: string; port?: number };
  /** Largest request body accepted. Default 64 MiB (long CLI conversations carry whole files). */
  maxBodyBytes?: number;
  /** Model calls one rollout may have in flight; more are answered 429. Default 8 (CLIs run a few subagents at most). */
  maxCallsInFlightPerRollout?: number;
  /**
   * Model calls one rollout may make. The next one is refused (400, PROXY_ERR_ROLLOUT_LIMIT) and so is every call
   * after it; the rollout reports the failure (`limitFailure()`), so it is errored, never silently cut short.
   * Default 2,000 (long CLI runs make a few hundred).
   */
  maxCallsPerRollout?: number;
  /**
   * Bytes one rollout's records may hold: each call's messages not shared with an earlier call, new tool lists and
   * answers. Past it as for maxCallsPerRollout. Default 64 MiB (a long CLI run records a few MiB).
   */
  maxRecordedBytesPerRollout?: number;
  /**
   * Connections a rollout's own socket accepts at once; more are closed as they arrive, so code in the sandbox
   * cannot exhaust the host's descriptors. Default 32 (a CLI keeps a few open). Request bodies being read or served
   * for one rollout share one allowance of maxBodyBytes.
   */
  maxConnectionsPerRollout?: number;
  /**
   * A streamed call still waiting for upstream after this long gets 200, its SSE headers and keep-alive comments, so
   * CLIs whose timeout ends at the headers survive long generations; a failure after that goes in the stream as the
   * dialect's error event. Default 10_000.
   */
  streamHeadStartMs?: number;
}

export interface ModelProxy {
  /** The shared unix socket, or null. */
  readonly socketPath: string | null;
  /** `http://127.0.0.1:PORT` of the TCP listener, or null. */
  readonly origin: string | null;
  openRollout(options?: ProxyRolloutOptions): Promise<ProxyRollout>;
  /** Closes every listener and revokes every key. */
  close(): Promise<void>;
}

/** Fields the proxy owns: forcing them would desynchronise what is sent from what is recorded. */
const RESERVED_FIELDS = ['model', 'messages', 'tools', 'stream', 'stream_options', 'n'];

export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const forcedArgs = Object.freeze({ ...(options.forcedArgs ?? {}) });
  const reserved = RESERVED_FIELDS.filter((field) => field in forcedArgs);
  if (reserved.length > 0) throw new CorralError('CFG_ERR_INVALID', `model proxy forcedArgs may not set ${reserved.join(', ')}: the proxy sets them itself`);
  if (options.listen.socketPath === undefined && options.listen.port === undefined)
    throw new CorralError('CFG_ERR_INVALID', 'model proxy: listen needs a socketPath, a port, or both');
  const upstream = new UpstreamClient(options.upstream);
  const rollouts = new Map<string, ProxyRollout>();
  const handlerOptions = {
    upstream,
    forcedArgs,
    findRollout: (key: string) => rollouts.get(key),
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024 * 1024,
    maxCallsInFlight: options.maxCallsInFlightPerRollout ?? 8,
    streamHeadStartMs: options.streamHeadStartMs ?? 10_000,
  };
  const limits = {
    maxCalls: options.maxCallsPerRollout ?? 2_000,
    maxRecordedBytes: options.maxRecordedBytesPerRollout ?? 64 * 1024 * 1024,
    maxBodyBytesInFlight: handlerOptions.maxBodyBytes,
  };
  const maxConnectionsPerRollout = options.maxConnectionsPerRollout ?? 32;
  const sharedHandler = createProxyHandler(handlerOptions);
  const servers: Server[] = [];
  let socketPath: string | null = null;
  let origin: string | null = null;
  try {
    if (options.listen.socketPath !== undefined) {
      servers.push(await listenOnSocket(sharedHandler, options.listen.socketPath));
      socketPath = options.listen.socketPath;
    }
    if (options.listen.port !== undefined) {
      const server = await listen(sharedHandler, { host: '127.0.0.1', port: options.listen.port });
      servers.push(server);
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }

  return {
    socketPath,
    origin,
    async openRollout(rolloutOptions: ProxyRolloutOptions = {}) {
      const key = newRolloutKey();
      let ownServer: Server | null = null;
      let closed = false;
      const rollout = new ProxyRollout(
        rolloutOptions.rolloutId ?? randomUUID(),
        key,
        rolloutOptions.trajectory,
        async () => {
          if (closed) return;
          closed = true;
          rollouts.delete(key);
          if (ownServer) await closeServer(ownServer);
          if (rolloutOptions.socketPath !== undefined) removeStaleSocket(rolloutOptions.socketPath);
        },
        limits,
      );
      if (rolloutOptions.socketPath !== undefined) {
        ownServer = await listenOnSocket(createProxyHandler(handlerOptions, rollout), rolloutOptions.socketPath);
        ownServer.maxConnections = maxConnectionsPerRollout;
        rollout.socketPath = rolloutOptions.socketPath;
      }
      rollouts.set(key, rollout);
      return rollout;
    },
    async close() {
      const open = [...rollouts.values()];
      rollouts.clear();
      await Promise.all([...open.map((rollout) => rollout.close()), ...servers.map(closeServer)]);
      if (socketPath !== null) removeStaleSocket(socketPath);
      await upstream.close();
    },
  };
}

function listen(handler: RequestHandler, address: { host: string; port: number } | { path: string }): Promise<Server> {
  // No request timeout: a long generation keeps the CLI's request open for minutes; upstream has its own timer.
  const server = createServer({ requestTimeout: 0, keepAliveTimeout: 65_000 }, handler);
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new CorralError('CFG_ERR_INVALID', `model proxy cannot listen on ${JSON.stringify(address)}: ${error.message}`, { cause: error })),
    );
    server.listen(address, () => {
      // Past listen, an error is a connection that could not be accepted (EMFILE when the host is out of
      // descriptors): that connection is lost, the server goes on. Unhandled, it would end the whole process.
      server.on('error', () => undefined);
      resolve(server);
    });
  });
}

/** A stale socket file from a dead proxy is replaced; any other file at the path is refused. */
async function listenOnSocket(handler: RequestHandler, path: string): Promise<Server> {
  removeStaleSocket(path);
  const server = await listen(handler, { path });
  // The CLI runs as an unprivileged sandbox user: it must be able to connect. Who reaches the socket is decided by
  // which sandboxes it is mounted into, and every request still needs a live rollout key.
  chmodSync(path, 0o666);
  return server;
}

function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // Nothing there.
  }
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
