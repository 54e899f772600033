/**
 * `corral view` as a process (the real CLI binary): a FIFO where a run's metadata.json (or a trial file) should be
 * never freezes the viewer, and bound beyond loopback it checks Host and wants the token it prints in its URL.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { syntheticRecord, writeSyntheticRun } from '../../benchmarks/view-synthetic-run.js';
import { spawnCorral } from './runner-cli.js';

const root = mkdtempSync(join(tmpdir(), 'corral-viewer-cli-'));
const children: ReturnType<typeof spawnCorral>[] = [];

/** Starts `corral view` and waits for the URL it prints. */
async function startView(args: string[]): Promise<{ url: URL; line: string }> {
  const child = spawnCorral(['view', root, '--port', '0', ...args]);
  children.push(child);
  while (!/corral view: .* at (\S+)\n/.test(child.output.stdout)) {
    const exited = await Promise.race([child.exited.then(() => true), new Promise((resolve) => setTimeout(resolve, 100, false))]);
    if (exited) throw new Error(`corral view exited: ${child.output.stderr}`);
  }
  const line = /corral view: .* at (\S+)\n/.exec(child.output.stdout)!;
  return { url: new URL(line[1]!), line: line[0] };
}

/** node:http, so a chosen Host header is really sent; the viewer must answer within 20 s (it froze before). */
const call = (url: URL, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest(new URL(path, url), { headers, signal: AbortSignal.timeout(20_000) }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGTERM');
    // A viewer frozen on a FIFO never runs its SIGTERM handler: do not leave it behind.
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await child.exited;
    clearTimeout(killer);
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('corral view (the CLI process)', () => {
  it('never blocks on a FIFO named metadata.json, nor on a FIFO trial file or session log', async () => {
    writeSyntheticRun(join(root, 'plain', 'run'), { rollouts: 3 });
    const fifoRun = join(root, 'fifo', 'run');
    writeSyntheticRun(fifoRun, { rollouts: 2 });
    rmSync(join(fifoRun, 'metadata.json'));
    execFileSync('mkfifo', [join(fifoRun, 'metadata.json')]);
    execFileSync('mkfifo', [join(fifoRun, 'session.log')]);
    mkdirSync(join(fifoRun, 'trial-a', 'verifier'), { recursive: true });
    execFileSync('mkfifo', [join(fifoRun, 'trial-a', 'verifier', 'test-stdout.txt')]);
    appendFileSync(
      join(fifoRun, 'results.jsonl'),
      `${JSON.stringify({ ...syntheticRecord(2, 1), info: { trial_name: 'trial-a', session_log_file: 'session.log' } })}\n`,
    );
    const { url } = await startView([]);

    const runs = await call(url, '/api/runs');
    expect(runs.status).toBe(200);
    const ids = (JSON.parse(runs.body) as { runs: { id: string; rollouts: number }[] }).runs.map((run) => run.id);
    expect(ids).toEqual(['fifo/run', 'plain/run']);
    const run = JSON.parse((await call(url, `/api/run?run=${encodeURIComponent('fifo/run')}`)).body) as {
      metadata: unknown;
      statistics: { summary: { rollouts: number } };
    };
    expect(run.metadata).toBeNull();
    expect(run.statistics.summary.rollouts).toBe(3);
    const rollout = await call(url, `/api/rollout?run=${encodeURIComponent('fifo/run')}&line=2`);
    expect(rollout.status).toBe(200);
    expect(JSON.parse(rollout.body)).toMatchObject({ session_log: null, texts: {} });
    const fifoFile = await call(url, `/api/file?run=${encodeURIComponent('fifo/run')}&path=${encodeURIComponent('trial-a/verifier/test-stdout.txt')}`);
    expect(fifoFile.status).toBe(404);
    expect((await call(url, `/api/run?run=${encodeURIComponent('plain/run')}`)).status).toBe(200);
  });

  it('bound to 0.0.0.0, checks Host and requires the token it prints in the URL', async () => {
    writeSyntheticRun(join(root, 'plain', 'run'), { rollouts: 3 });
    const { url, line } = await startView(['--host', '0.0.0.0']);
    const token = /#token=([\w-]+)/.exec(line)?.[1];
    expect(token).toMatch(/^[\w-]{32,}$/);
    const local = new URL(`http://127.0.0.1:${url.port}/`);
    const bearer = { authorization: `Bearer ${token}` };
    expect((await call(local, '/api/runs')).status).toBe(401);
    expect((await call(local, '/api/runs', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await call(local, '/api/runs', bearer)).status).toBe(200);
    expect((await call(local, '/api/runs', { ...bearer, host: 'evil.example' })).status).toBe(403);
    expect((await call(local, '/api/runs', { ...bearer, host: `evil.example:${url.port}` })).status).toBe(403);
    expect((await call(local, '/', { host: 'evil.example' })).status).toBe(403);
    // The page holds no data and loads without the token (it reads it from its #token= fragment).
    expect((await call(local, '/')).status).toBe(200);
  });

  it('on loopback, asks no token and still checks Host', async () => {
    const { url, line } = await startView([]);
    expect(line).not.toContain('token=');
    expect((await call(url, '/api/runs')).status).toBe(200);
    expect((await call(url, '/api/runs', { host: 'evil.example' })).status).toBe(403);
  });
});
