/**
 * setupScope 'example' through the one run driver, over real process sandboxes: a group of 8 rollouts runs the
 * environment's (slow) setup once, and each rollout starts in a fork of the sandbox it prepared, with a copy of the
 * state it left, apart from its siblings. Only the agent is scripted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { environmentRolloutFactory } from '../../src/cli/runtime/environment-rollouts.js';
import { exampleSandboxSource } from '../../src/cli/runtime/example-sandbox-source.js';
import { type ToolRuntime, startToolRuntime } from '../../src/cli/runtime/tool-runtime.js';
import { toolsForToolsets } from '../../src/mcp/toolsets.js';
import { ScriptedAgent } from '../../src/runner/agents/scripted/scripted-agent.js';
import { defineEnvironment, type Environment, type EnvironmentInput, type Example } from '../../src/runner/contract/environment.js';
import { runEvaluation } from '../../src/runner/scheduler/run-evaluation.js';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';
import { namespaceCopyUnavailable } from '../../src/sandbox/file-system-copy/namespace-tar.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { gate } from '../helpers/test-gates.js';

const available = (await backendAvailable('process')) && gate('sandbox fork (root)', namespaceCopyUnavailable());

interface PreparedState {
  preparedBy: string | null;
}

const ROLLOUTS = 8;
/** Long enough to be the cost a group would pay eight times; the assertion counts setups, never time. */
const SETUP_SLEEP_SECONDS = 2;

function environmentWith(setup: EnvironmentInput<PreparedState>['setup']): Environment {
  return defineEnvironment<PreparedState>({
    name: 'shared-setup',
    toolsets: ['shell'],
    setupScope: 'example',
    dataset: () => [],
    state: () => ({ preparedBy: null }),
    rubric: [{ name: 'state_copied', weight: 1, score: ({ state }) => (state.preparedBy === 'setup' ? 1 : 0) }],
    systemPrompt: 'test',
    maxTurns: 3,
    limits: { toolTimeoutMs: 30_000, rolloutTimeoutMs: 120_000 },
    setup,
  });
}

// Each rollout reads what setup left, counts siblings' marks (none may be visible), then leaves its own.
const agent = new ScriptedAgent([
  { toolCalls: [{ name: 'bash', arguments: { command: 'cat prepared/data.txt; echo; ls mark-* 2>/dev/null | wc -l; touch mark-$$' } }] },
  { answer: 'done' },
]);

describe.skipIf(!available)("setupScope 'example' (process sandboxes)", () => {
  let runtime: ToolRuntime;
  beforeAll(async () => {
    runtime = await startToolRuntime(loadConfig({ env: {}, flags: { backend: 'process' } }), { minIdle: 0, loadWiki: false, log: () => undefined });
  });
  afterAll(async () => {
    await runtime?.close();
  });

  async function evaluate(environment: Environment, examples: Example[]): Promise<ResultRecord[]> {
    const records: ResultRecord[] = [];
    await runEvaluation({
      environment,
      agent,
      rollouts: environmentRolloutFactory({
        environment,
        toolsetTools: toolsForToolsets(environment.toolsets),
        sandboxSourceFor: (example) => exampleSandboxSource(runtime, environment, example),
      }),
      examples,
      rolloutsPerExample: ROLLOUTS,
      concurrency: ROLLOUTS,
      maxAttempts: 1,
      abortSignal: new AbortController().signal,
      onGroup: (group) => records.push(...group),
    });
    return records;
  }

  it('runs setup once per example and starts each of the 8 rollouts in a fork of its sandbox', async () => {
    const setups: string[] = [];
    const environment = environmentWith(async ({ sandbox, example, state }) => {
      setups.push(example.id);
      await sandbox.exec({ command: `sleep ${SETUP_SLEEP_SECONDS} && mkdir -p prepared && printf 'prepared for ${example.id}' > prepared/data.txt` });
      state.preparedBy = 'setup';
    });
    const records = await evaluate(environment, [
      { id: 'first', prompt: 'go' },
      { id: 'second', prompt: 'go' },
    ]);
    expect(setups.sort()).toEqual(['first', 'second']);
    expect(records).toHaveLength(2 * ROLLOUTS);
    for (const record of records) {
      expect(record.error).toBeNull();
      expect(record.reward).toBe(1); // the state setup left reached the rollout (a copy)
      const output = record.completion.find((message) => message.role === 'tool')?.content;
      // What setup wrote, and no sibling's mark (0): each fork is a sandbox of its own.
      expect(output).toBe(`prepared for ${record.example_id}\n0`);
    }
  });

  it("fails the whole group with setup's error, running the failing setup once", async () => {
    let setups = 0;
    const environment = environmentWith(async () => {
      setups++;
      throw new Error('fixture missing');
    });
    const records = await evaluate(environment, [{ id: 'broken', prompt: 'go' }]);
    expect(setups).toBe(1);
    expect(records.map((record) => [record.error?.code, record.error?.boundary, record.reward])).toEqual(
      Array.from({ length: ROLLOUTS }, () => ['ENV_ERR_SETUP_FAILED', 'environment', null]),
    );
  });
});
