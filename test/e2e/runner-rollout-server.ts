/**
 * A corral HTTP server with the rollout API, composed exactly as `corral serve` composes it (startToolRuntime,
 * createRolloutService, buildServer) on the process backend, listening on an ephemeral port; plus a reader for
 * the NDJSON stream that notes when each line arrived.
 */
import { mkdirSync, mkdtempSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startToolRuntime, type ToolRuntime } from '../../src/cli/runtime/tool-runtime.js';
import { createRolloutService } from '../../src/cli/runtime/rollout-service.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import { CODE_FIXTURES, RUNNER_FIXTURES } from './runner-cli.js';

export const ROLLOUT_TOKEN = 'rollout-token';

export interface RolloutServer {
  app: FastifyInstance;
  runtime: ToolRuntime;
  baseUrl: string;
  port: number;
  /** Sandboxes currently leased from the pool, over every spec. */
  leased(): number;
  post(body: unknown, options?: { signal?: AbortSignal; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Wiki tools over the tiny invented corpus; a data directory whose humaneval/HumanEval.jsonl is the two-problem
 * fixture, so python-code can select dataset examples by id or count.
 */
export async function startRolloutServer(): Promise<RolloutServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'corral-rollouts-data-'));
  mkdirSync(join(dataDir, 'humaneval'));
  copyFileSync(join(CODE_FIXTURES, 'humaneval-tiny.jsonl'), join(dataDir, 'humaneval', 'HumanEval.jsonl'));
  const config = loadConfig({ env: {}, flags: { backend: 'process', host: '127.0.0.1', port: 0, token: ROLLOUT_TOKEN, dataDir } });
  const runtime = await startToolRuntime(config, {
    corpusPaths: [join(RUNNER_FIXTURES, 'tiny-pages.jsonl')],
    minIdle: 0,
    loadWiki: true,
    log: () => undefined,
  });
  const app = buildServer(config, {
    environments: runtime.catalog,
    sandboxSource: runtime.sandboxSource,
    pool: runtime.pool,
    rollouts: createRolloutService({ runtime, dataDir: config.data.dataDir, server: config.server }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  let closed = false;
  return {
    app,
    runtime,
    baseUrl,
    port,
    leased: () => runtime.pool.stats().reduce((sum, bucket) => sum + bucket.leased, 0),
    post: (body, options = {}) =>
      fetch(`${baseUrl}/v1/rollouts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ROLLOUT_TOKEN}`, 'content-type': 'application/json', ...options.headers },
        body: JSON.stringify(body),
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface StreamedLine {
  value: Record<string, unknown>;
}

/** Reads an NDJSON body to its end (or until `onLine` returns true), parsing each line as it completes. */
export async function readNdjson(response: Response, onLine?: (line: StreamedLine, lines: StreamedLine[]) => boolean | void): Promise<StreamedLine[]> {
  const lines: StreamedLine[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line: StreamedLine = { value: JSON.parse(buffered.slice(0, newline)) as Record<string, unknown> };
      buffered = buffered.slice(newline + 1);
      lines.push(line);
      if (onLine?.(line, lines) === true) {
        await reader.cancel();
        return lines;
      }
    }
  }
  if (buffered.trim() !== '') throw new Error(`stream ended inside a line: ${buffered.slice(0, 200)}`);
  return lines;
}

/** Polls until `condition` holds, or throws after `timeoutMs` with `describe()` in the message. */
export async function waitFor(condition: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
