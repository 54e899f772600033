/**
 * A job written into Redis cannot widen a worker's sandbox policy. A `corral worker` (process backend) holds an
 * environment whose sandboxes have no network; jobs are written straight into its queue, as anyone able to write to
 * Redis could, with examples that ask for network egress (which, on the process backend, would share the worker's
 * network namespace and reach its loopback Redis) or for more memory. Those rollouts are refused
 * (QUEUE_ERR_JOB_REFUSED, errored, the model never called); a job without sandbox choices, or one that only narrows
 * the policy, runs, and its sandbox cannot reach Redis.
 */
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PREFIX, capabilityQueueName, rolloutJobId } from '../../src/queue/queue-keys.js';
import { ResultStore, type StoredResult } from '../../src/queue/result-store.js';
import { ROLLOUT_JOB_VERSION, type RolloutJob } from '../../src/queue/rollout-job.js';
import type { ExampleSandbox } from '../../src/runner/contract/environment.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type TestRedisServer, redisServerAvailable, startRedisServer } from '../helpers/redis-server.js';
import { ROOT, spawnCorral } from './runner-cli.js';
import { waitFor } from './queue-cluster.js';

const ready = redisServerAvailable() && (await backendAvailable('process'));
const SHELL_ENVIRONMENT = join(ROOT, 'test', 'fixtures', 'queue', 'shell-environment.ts');
const RUN = 'sandboxpolicy';

describe.skipIf(!ready)('a queued job cannot widen the worker sandbox policy', () => {
  let redis: TestRedisServer;
  let client: Redis;
  let model: ScriptedModelServer;
  let worker: ReturnType<typeof spawnCorral>;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.url(), { maxRetriesPerRequest: null });
    // Turn 1: run the prompt as a bash command; turn 2: repeat what the tool printed.
    model = await startScriptedModelServer((body) => {
      const tool = body.messages.findLast((message) => message.role === 'tool');
      if (tool) return { kind: 'text', content: `output: ${JSON.stringify(tool.content)}` };
      const command = String(body.messages.find((message) => message.role === 'user')?.content ?? '');
      return { kind: 'tool-calls', toolCalls: [{ name: 'bash', arguments: { command } }] };
    });
    worker = spawnCorral([
      'worker',
      '--redis',
      redis.url(),
      '--backend',
      'process',
      '--env',
      SHELL_ENVIRONMENT,
      '--name',
      'policy-worker',
      '--lease-ms',
      '3000',
    ]);
    await waitFor('the worker ready', () => worker.output.stdout.includes('"worker.ready"') || worker.exitCode !== null, 90_000);
    if (!worker.output.stdout.includes('"worker.ready"')) throw new Error(`worker did not start:\n${worker.output.stderr}`);
  }, 120_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null) worker.kill('SIGKILL');
    await worker?.exited;
    client?.disconnect();
    await model?.close();
    await redis?.close();
  });

  it('refuses egress and higher limits a job asks for, and runs a job within the policy with no network', async () => {
    // Reaches the worker's Redis on loopback if the sandbox shares the worker's network.
    const probe = `(exec 3<>/dev/tcp/127.0.0.1/${redis.port} && printf 'PING\\r\\n' >&3 && head -c 5 <&3) 2>&1 || echo UNREACHABLE`;
    const job = (exampleId: string, sandbox?: ExampleSandbox): RolloutJob => ({
      version: ROLLOUT_JOB_VERSION,
      run_id: RUN,
      example: { id: exampleId, prompt: probe, ...(sandbox ? { sandbox } : {}) },
      rollout_index: 0,
      environment: { name: 'queue-shell', source: SHELL_ENVIRONMENT, args: {}, corpus: null, max_turns: null },
      agent: {
        name: 'openai',
        model: 'scripted',
        base_url: model.baseURL,
        sampling_args: {},
        model_timeout_s: 30,
        model_retries: 0,
        api_key: 'worker',
        endpoint_guard: null,
      },
      seed: null,
      needs: { backend: 'any' },
    });
    const jobs = [
      job('egress', { network: 'egress' }),
      job('more-memory', { limits: { memoryMiB: 8192 } }),
      job('plain'),
      job('less-memory', { limits: { memoryMiB: 256 }, network: 'none' }),
    ];
    const queue = new Queue(capabilityQueueName({ environment: 'queue-shell', backend: 'any' }), { connection: client, prefix: QUEUE_PREFIX });
    await queue.addBulk(jobs.map((data) => ({ name: 'rollout', data, opts: { jobId: rolloutJobId(RUN, data.example.id, 0), attempts: 3 } })));
    await queue.close();

    const store = new ResultStore(client);
    const results: StoredResult[] = [];
    let lastId = '0';
    await waitFor(
      'four records',
      async () => {
        const batch = await store.read(RUN, lastId, { count: 10, blockMs: 200 });
        results.push(...batch.results);
        lastId = batch.lastId;
        return results.length >= 4;
      },
      90_000,
    );
    const byExample = new Map(results.map((result) => [result.record.example_id, result.record]));
    for (const refused of ['egress', 'more-memory']) {
      const record = byExample.get(refused)!;
      expect(record.error, refused).toMatchObject({ code: 'QUEUE_ERR_JOB_REFUSED', boundary: 'runner' });
      expect(record.reward).toBeNull();
      expect(record.attempts).toBe(1);
    }
    expect(byExample.get('egress')!.error!.message).toContain('network egress');
    expect(byExample.get('more-memory')!.error!.message).toContain('memoryMiB 8192');
    for (const allowed of ['plain', 'less-memory']) {
      const record = byExample.get(allowed)!;
      expect(record.error, JSON.stringify(record.error)).toBeNull();
      const answer = String(record.final_answer);
      expect(answer).toContain('UNREACHABLE');
      expect(answer).not.toContain('PONG');
    }
    // The refused rollouts never started: the model was asked twice for each allowed one and never for them.
    expect(model.requests).toHaveLength(4);
    expect(worker.output.stderr).toContain('QUEUE_ERR_JOB_REFUSED');
  });
});
