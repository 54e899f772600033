/**
 * mcp.sessions.idle_bytes: memory a server keeps per idle 2025-era MCP session (initialize + initialized, then
 * nothing). Each server runs in a child with --expose-gc; after a warm-up batch (so one-time caches are not
 * charged to sessions) we read memory after GC, open N more sessions, and read it again.
 */
import { Pool } from 'undici';
import { type Figure, round } from './figure.js';
import { ChildWorker } from './load/child-worker.js';
import { INITIALIZED_NOTIFICATION, MCP_POST_HEADERS, initializeMessage, sessionHeaders } from './load/mcp-wire.js';

interface MemoryReading {
  heapUsed: number;
  external: number;
  rss: number;
  sessions: number;
}

const WARMUP_SESSIONS = 100;
const OPENING_CONCURRENCY = 16;

async function openSessions(pool: Pool, path: string, count: number): Promise<void> {
  let opened = 0;
  await Promise.all(
    Array.from({ length: OPENING_CONCURRENCY }, async () => {
      while (opened < count) {
        opened++;
        const response = await pool.request({ method: 'POST', path, headers: MCP_POST_HEADERS, body: initializeMessage(0) });
        await response.body.dump();
        const sessionId = response.headers['mcp-session-id'];
        if (response.statusCode !== 200 || typeof sessionId !== 'string') throw new Error(`initialize failed: HTTP ${response.statusCode}`);
        await (await pool.request({ method: 'POST', path, headers: sessionHeaders(sessionId), body: INITIALIZED_NOTIFICATION })).body.dump();
      }
    }),
  );
}

async function bytesPerSession(kind: 'corral' | 'sdk', sessions: number, log: (line: string) => void): Promise<{ heap: number; rss: number }> {
  const { worker, ready } = await ChildWorker.start('./session-memory-server.ts', { args: [kind], nodeOptions: ['--expose-gc'] });
  const pool = new Pool(String(ready.origin), { connections: OPENING_CONCURRENCY });
  try {
    const path = String(ready.path);
    await openSessions(pool, path, WARMUP_SESSIONS);
    const before = await worker.request<MemoryReading>({ type: 'measure' });
    await openSessions(pool, path, sessions);
    const after = await worker.request<MemoryReading>({ type: 'measure' });
    const held = after.sessions - before.sessions;
    if (held !== sessions) throw new Error(`${kind} holds ${held} new sessions, expected ${sessions}`);
    log(
      `sessions ${kind}: ${after.sessions} held; heap ${Math.round(before.heapUsed / 2 ** 20)} -> ${Math.round(after.heapUsed / 2 ** 20)} MiB, rss ${Math.round(before.rss / 2 ** 20)} -> ${Math.round(after.rss / 2 ** 20)} MiB`,
    );
    return { heap: (after.heapUsed + after.external - before.heapUsed - before.external) / sessions, rss: (after.rss - before.rss) / sessions };
  } finally {
    await pool.close();
    await worker.stop();
  }
}

export async function sessionMemoryFigures(sessions: number, log: (line: string) => void): Promise<Figure[]> {
  const ours = await bytesPerSession('corral', sessions, log);
  const peer = await bytesPerSession('sdk', sessions, log);
  const kib = (bytes: number) => round(bytes / 1024, 1);
  return [
    {
      name: 'mcp.sessions.idle_bytes',
      value: kib(ours.heap),
      unit: 'KiB/session',
      peer: 'SDK example server',
      peerValue: kib(peer.heap),
      ratio: round(peer.heap / ours.heap, 2),
      target: `<= 50 (heap+external after GC, ${sessions} sessions)`,
    },
    {
      name: 'mcp.sessions.idle_rss',
      value: kib(ours.rss),
      unit: 'KiB/session',
      peer: 'SDK example server',
      peerValue: kib(peer.rss),
      ratio: round(peer.rss / ours.rss, 2),
    },
  ];
}
