/**
 * A task Dockerfile that ADDs from a service on the host's loopback (issue 20): the daemon would fetch it on the
 * host's network and bake it into the task image. `corral eval terminal` refuses the task with
 * TASK_ERR_REMOTE_SOURCE before any build (the service sees no request), and `corral tasks check` reports it.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { readResults, runCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const TEMPLATE = resolve(import.meta.dirname, '../fixtures/terminal/hostile/always-zero');

describe.runIf(dockerAvailable)('task Dockerfiles never make the daemon fetch from the host', () => {
  let workDirectory: string;
  let server: Server;
  let port: number;
  const requests: string[] = [];

  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
    workDirectory = await mkdtemp(join(tmpdir(), 'corral-terminal-sources-'));
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.end('host-only secret\n');
    });
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    port = (server.address() as { port: number }).port;
  }, 1_500_000);

  afterAll(async () => {
    server?.close();
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  it('ADD http://127.0.0.1:<port>/secret.txt: the trial is errored with TASK_ERR_REMOTE_SOURCE and nothing is fetched', async () => {
    const task = join(workDirectory, 'loopback-add');
    await cp(TEMPLATE, task, { recursive: true });
    await writeFile(join(task, 'environment/Dockerfile'), `FROM debian:bookworm-slim\nADD http://127.0.0.1:${port}/secret.txt /secret.txt\nWORKDIR /app\n`);

    const check = await runCorral(['tasks', 'check', task]);
    expect(check.code, check.stderr).toBe(2);
    expect(check.stderr).toContain('TASK_ERR_REMOTE_SOURCE');

    const out = join(workDirectory, 'run');
    const result = await runCorral(['eval', 'terminal', '--tasks', task, '--agent', 'oracle', '--out', out, '--no-progress']);
    expect(result.code, result.stderr).toBe(1);
    const [record] = readResults(out);
    expect(record!.reward).toBeNull();
    expect(record!.error).toMatchObject({ code: 'TASK_ERR_REMOTE_SOURCE' });
    expect(requests).toEqual([]);
  }, 300_000);
});
