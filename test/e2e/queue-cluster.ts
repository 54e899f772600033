/**
 * What the queue's multi-process tests share: `corral worker` processes (in the test's namespace or in a network
 * namespace), the counting environment's echo model, an HTTP relay that puts the scripted model server on a
 * veth address and counts requests in flight per client address (so a test knows which "machine" is mid-rollout),
 * and the exactly-once checks on results.jsonl.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn, type SpawnOptions } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ModelScript } from '../../src/testing/scripted-model-server.js';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';
import type { NetworkNamespace } from '../helpers/network-namespaces.js';
import { CLI, ROOT, childEnvironment } from './runner-cli.js';

export const COUNTING_ENVIRONMENT = join(ROOT, 'test', 'fixtures', 'queue', 'counting-environment.ts');

/** Answers the counting environment's "Say aN." with aN, after `delayMs()` (read per request, so a test can slow it). */
export function echoScript(delayMs: () => number = () => 0): ModelScript {
  return (body) => {
    const last = body.messages.at(-1);
    const word = /Say (a\d+)\./.exec(typeof last?.content === 'string' ? last.content : '')?.[1] ?? 'unknown';
    const delay = delayMs();
    return { kind: 'text', content: word, ...(delay > 0 ? { delayMs: delay } : {}) };
  };
}

export interface WorkerProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<number | null>;
  /** Resolves once the worker printed {"event":"worker.ready"}; rejects if it exits first. */
  readonly ready: Promise<void>;
  /** SIGKILL, as a crash or a lost machine would. */
  kill(): void;
  /** SIGTERM (drain) and wait for the exit code. */
  stop(): Promise<number | null>;
}

export interface WorkerOptions {
  name: string;
  redisUrl: string;
  concurrency?: number;
  leaseMs?: number;
  /** Run inside this network namespace (the worker then reaches Redis and the model across the veth). */
  namespace?: NetworkNamespace;
  extraArgs?: readonly string[];
}

export function startWorker(options: WorkerOptions): WorkerProcess {
  const args = [CLI, 'worker', '--redis', options.redisUrl, '--backend', 'process', '--env', COUNTING_ENVIRONMENT, '--name', options.name];
  args.push('--concurrency', String(options.concurrency ?? 2), '--lease-ms', String(options.leaseMs ?? 3000), ...(options.extraArgs ?? []));
  const spawnOptions = { cwd: ROOT, env: childEnvironment({ OPENAI_API_KEY: 'queue-test-key' }), stdio: ['ignore', 'pipe', 'pipe'] } satisfies SpawnOptions;
  const child = options.namespace ? options.namespace.spawn(process.execPath, args, spawnOptions) : spawn(process.execPath, args, spawnOptions);
  const output = { stdout: '', stderr: '' };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString();
      if (output.stdout.split('\n').some((line) => line.includes('"worker.ready"'))) resolve();
    });
    void exited.then((code) => reject(new Error(`worker ${options.name} exited (${code}) before it was ready:\n${output.stderr.slice(-3000)}`)));
  });
  ready.catch(() => {});
  child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  return {
    name: options.name,
    child,
    output,
    exited,
    ready,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface ModelRelay {
  /** http://<address>:<port>/v1 */
  baseURL: string;
  /** Requests received so far, by client address. */
  requestsFrom(address: string): number;
  /** Requests received from `address` whose response has not been sent. */
  inFlightFrom(address: string): number;
  close(): Promise<void>;
}

/**
 * An HTTP relay on `address` (a veth's host end) to the scripted model server on loopback: the model server
 * binds 127.0.0.1 only, which a process in another namespace cannot reach (its loopback is its own).
 */
export async function startModelRelay(address: string, upstreamBaseURL: string): Promise<ModelRelay> {
  const upstream = new URL(upstreamBaseURL);
  const received = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const bump = (map: Map<string, number>, key: string, by: number) => map.set(key, (map.get(key) ?? 0) + by);
  const server: Server = createServer((request, response) => {
    const client = request.socket.remoteAddress ?? 'unknown';
    bump(received, client, 1);
    bump(inFlight, client, 1);
    let settled = false;
    const settle = () => {
      if (!settled) bump(inFlight, client, -1);
      settled = true;
    };
    response.once('finish', settle);
    response.once('close', settle);
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers },
      (upstreamResponse) => {
        response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(response);
      },
    );
    forward.once('error', () => response.destroy());
    response.once('close', () => forward.destroy());
    request.pipe(forward);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address, port: 0 }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://${address}:${port}/v1`,
    requestsFrom: (client) => received.get(client) ?? 0,
    inFlightFrom: (client) => inFlight.get(client) ?? 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `condition` every 50 ms until it holds; throws `what` after `timeoutMs`. */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The worker a record names (the queue writes it to the record's `extra`, and metadata.json's per-rollout list). */
export function workerOf(record: ResultRecord): string | undefined {
  const worker = (record['extra'] as { worker?: unknown } | undefined)?.worker;
  return typeof worker === 'string' ? worker : undefined;
}

/** Records whose worker differs from the one metadata.json's queue.rollouts (result key -> worker) names. */
export function workerMismatches(records: readonly ResultRecord[], metadata: Record<string, unknown>): string[] {
  const byKey = ((metadata['queue'] as { rollouts?: Record<string, string> } | undefined)?.rollouts ?? {}) as Record<string, string>;
  return records
    .map((record) => `${record.example_id}#${record.rollout_index}`)
    .filter((key, index) => byKey[key] === undefined || byKey[key] !== workerOf(records[index]!));
}

/** Result keys that appear more than once, and expected keys that never appear. */
export function exactlyOnceReport(records: readonly ResultRecord[], examples: number, rolloutsPerExample: number): { duplicated: string[]; missing: string[] } {
  const seen = new Map<string, number>();
  for (const record of records) {
    const key = `${record.example_id}#${record.rollout_index}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const duplicated = [...seen].filter(([, count]) => count > 1).map(([key]) => key);
  const missing: string[] = [];
  for (let example = 0; example < examples; example++)
    for (let rollout = 0; rollout < rolloutsPerExample; rollout++) if (!seen.has(`q${example}#${rollout}`)) missing.push(`q${example}#${rollout}`);
  return { duplicated, missing };
}
