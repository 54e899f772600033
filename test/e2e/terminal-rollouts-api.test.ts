/**
 * POST /v1/rollouts with a served task folder (issue 22): `corral serve --env <task folder>` as a real child process
 * serves the folder as `terminal-<folder name>`; a request naming it runs its task as trials (real Docker) with the
 * trial openai agent against the scripted model server, and streams the trial records and the summary.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markedHarborTask } from '../helpers/marked-task.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { startServe } from './serve-cli-process.js';

const dockerAvailable = await backendAvailable('docker');

let workDirectory: string;
let model: ScriptedModelServer | undefined;
beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), 'corral-terminal-rollouts-'));
});
afterAll(async () => {
  await model?.close();
  if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
});

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for corral serve');
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}

describe.runIf(dockerAvailable)('POST /v1/rollouts with a served task folder', () => {
  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
  }, 1_500_000);

  it('streams one trial record per rollout, scored by the task verifier, then the summary', async () => {
    const task = await markedHarborTask(workDirectory, { oracleWritesMark: false });
    // The model marks the task done with one bash call, then stops.
    model = await startScriptedModelServer((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? { kind: 'text', content: 'done' }
        : { kind: 'tool-calls', toolCalls: [{ name: 'bash', arguments: { command: 'echo done > /app/mark' } }] },
    );
    const serve = startServe(['--port', '0', '--backend', 'docker', '--env', task], { CORRAL_CACHE_DIR: join(workDirectory, 'serve-cache') });
    try {
      await until(() => serve.address() !== undefined || serve.child.exitCode !== null, 90_000);
      expect(serve.address(), serve.stderr()).toBeDefined();
      const response = await fetch(`${serve.address()}/v1/rollouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ env: 'terminal-marked', model: { base_url: model.baseURL, model: 'scripted' }, n: 1, rollouts_per_example: 2 }),
      });
      if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}\n${serve.stderr()}`);
      const lines = (await response.text())
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const records = lines.filter((line) => line['type'] !== 'summary');
      expect(records.map((record) => [record['example_id'], record['rollout_index'], record['reward'], record['error']]).sort()).toEqual([
        ['corral-fixtures/always-zero', 0, 1, null],
        ['corral-fixtures/always-zero', 1, 1, null],
      ]);
      expect(lines.at(-1)).toMatchObject({ type: 'summary', status: 'complete', rollouts: 2, errored: 0, avg_reward: 1 });
    } finally {
      serve.kill();
      await serve.exited;
    }
  }, 900_000);
});
