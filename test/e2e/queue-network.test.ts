/**
 * Issue 15 across a network: three `corral worker` processes, one in the test's namespace and two each in its own
 * network namespace (results cross a veth to Redis), `corral eval --queue` in the test's namespace, the scripted
 * model behind a relay on a veth address. One test SIGKILLs a namespaced worker mid-rollout, the other cuts a
 * namespace's link mid-rollout (silent drops) and restores it while the run goes on: every rollout finishes
 * exactly once, scored, and each record names the worker that ran it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { createNetworkNamespaces, type NetworkNamespaces, networkNamespacesAvailable } from '../helpers/network-namespaces.js';
import { redisServerAvailable, startRedisServer, type TestRedisServer } from '../helpers/redis-server.js';
import {
  COUNTING_ENVIRONMENT,
  echoScript,
  exactlyOnceReport,
  type ModelRelay,
  startModelRelay,
  startWorker,
  waitFor,
  type WorkerProcess,
  workerMismatches,
  workerOf,
} from './queue-cluster.js';
import { readMetadata, readResults, spawnCorral } from './runner-cli.js';

const available = networkNamespacesAvailable() && redisServerAvailable();
const EXAMPLES = 12;
const ROLLOUTS = 2;
const MODEL_DELAY_MS = 800;

describe.skipIf(!available)('the queue across network namespaces', () => {
  let namespaces: NetworkNamespaces;
  let redis: TestRedisServer;
  let model: ScriptedModelServer;
  let relay: ModelRelay;
  let workers: WorkerProcess[] = [];
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'corral-queue-network-'));
    namespaces = createNetworkNamespaces(2);
    const [first, second] = namespaces.namespaces;
    redis = await startRedisServer({ bind: ['127.0.0.1', first!.hostAddress, second!.hostAddress] });
    model = await startScriptedModelServer(
      echoScript(() => MODEL_DELAY_MS),
      { recordRequests: false },
    );
    relay = await startModelRelay(first!.hostAddress, model.baseURL);
  });

  afterEach(async () => {
    for (const worker of workers) worker.kill();
    await Promise.all(workers.map((worker) => worker.exited));
    workers = [];
    for (const namespace of namespaces?.namespaces ?? []) namespace.restore();
  });

  afterAll(async () => {
    await relay?.close();
    await model?.close();
    await redis?.close();
    namespaces?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** One worker here, one in each namespace, each reaching Redis at its own link's host address. */
  async function startThreeWorkers(tag: string): Promise<{ local: WorkerProcess; first: WorkerProcess; second: WorkerProcess }> {
    const [first, second] = namespaces.namespaces;
    const local = startWorker({ name: `${tag}-local`, redisUrl: redis.url('127.0.0.1') });
    const inFirst = startWorker({ name: `${tag}-ns0`, redisUrl: redis.url(first!.hostAddress), namespace: first });
    const inSecond = startWorker({ name: `${tag}-ns1`, redisUrl: redis.url(second!.hostAddress), namespace: second });
    workers.push(local, inFirst, inSecond);
    await Promise.all(workers.map((worker) => worker.ready));
    return { local, first: inFirst, second: inSecond };
  }

  function startEval(out: string) {
    return spawnCorral(
      [
        'eval',
        COUNTING_ENVIRONMENT,
        '--queue',
        redis.url('127.0.0.1'),
        '--model',
        'scripted',
        '--base-url',
        relay.baseURL,
        '--api-key',
        'queue-test-key',
        '-n',
        String(EXAMPLES),
        '-r',
        String(ROLLOUTS),
        '--backend',
        'process',
        '--out',
        out,
        '--no-progress',
      ],
      { OPENAI_API_KEY: 'queue-test-key' },
    );
  }

  function expectEveryRolloutOnce(out: string, workerNames: readonly string[]) {
    const records = readResults(out);
    expect(exactlyOnceReport(records, EXAMPLES, ROLLOUTS)).toEqual({ duplicated: [], missing: [] });
    expect(records.map((record) => [record.error, record.reward])).toEqual(records.map(() => [null, 1]));
    const named = records.map((record) => workerOf(record));
    expect(named.every((name) => name !== undefined && workerNames.includes(name))).toBe(true);
    // metadata.json's per-rollout list names the same worker for every rollout.
    expect(workerMismatches(records, readMetadata(out))).toEqual([]);
    return { records, named };
  }

  it('SIGKILL of a namespaced worker mid-rollout: its rollouts finish elsewhere, each exactly once', async () => {
    const [first, second] = namespaces.namespaces;
    const { local, first: killed, second: survivor } = await startThreeWorkers('kill');
    const out = join(scratch, 'kill-run');
    const run = startEval(out);
    await waitFor('a rollout in flight in the first namespace', () => relay.inFlightFrom(first!.namespaceAddress) > 0 || run.exitCode !== null);
    const inFlightWhenKilled = relay.inFlightFrom(first!.namespaceAddress);
    killed.kill();
    expect(await run.exited, run.output.stderr.slice(-3000)).toBe(0);
    expect(inFlightWhenKilled).toBeGreaterThan(0);

    const { named } = expectEveryRolloutOnce(out, [local.name, killed.name, survivor.name]);
    // The killed worker's rollouts were run again: more model calls than rollouts.
    const calls = relay.requestsFrom(first!.namespaceAddress) + relay.requestsFrom(second!.namespaceAddress) + relay.requestsFrom(first!.hostAddress);
    expect(calls).toBeGreaterThan(EXAMPLES * ROLLOUTS);
    // Results crossed the network: the surviving namespaced worker ran some rollouts.
    expect(named).toContain(survivor.name);
    expect(relay.requestsFrom(second!.namespaceAddress)).toBeGreaterThan(0);
  }, 240_000);

  it("a namespace's link cut mid-rollout and restored: nothing lost, nothing written twice", async () => {
    const [, second] = namespaces.namespaces;
    const { local, first, second: isolated } = await startThreeWorkers('cut');
    const out = join(scratch, 'cut-run');
    const run = startEval(out);
    await waitFor('a rollout in flight in the second namespace', () => relay.inFlightFrom(second!.namespaceAddress) > 0 || run.exitCode !== null);
    const inFlightWhenCut = relay.inFlightFrom(second!.namespaceAddress);
    second!.cut();
    // Bytes already in the socket buffers may still arrive; after that, nothing from the namespace gets through.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const requestsAtCut = relay.requestsFrom(second!.namespaceAddress);
    // The others carry on; bring the link back while the run still goes, so the cut-off worker returns with
    // stale leases and results it could not store.
    const linesAtCut = readResults(out).length;
    await waitFor('progress elsewhere after the cut', () => readResults(out).length >= linesAtCut + 4 || run.exitCode !== null, 120_000);
    expect(relay.requestsFrom(second!.namespaceAddress)).toBe(requestsAtCut);
    second!.restore();
    expect(await run.exited, run.output.stderr.slice(-3000)).toBe(0);
    expect(inFlightWhenCut).toBeGreaterThan(0);

    const { named } = expectEveryRolloutOnce(out, [local.name, first.name, isolated.name]);
    expect(named).toContain(first.name);
    // The cut-off worker is still alive and usable after the link came back.
    expect(isolated.child.exitCode).toBeNull();
  }, 240_000);
});
