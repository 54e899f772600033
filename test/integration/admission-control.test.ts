// -c auto over real HTTP: the run driver, the local executor and the openai agent against the scripted model server,
// in a tool-less environment with instant (or nearly instant) model answers.
import { afterAll, describe, expect, it } from 'vitest';
import { OpenAIAgent } from '../../src/runner/agents/openai/openai-agent.js';
import { defineEnvironment, type Example } from '../../src/runner/contract/environment.js';
import type { ToolSession } from '../../src/runner/contract/tool-session.js';
import { AdmissionController } from '../../src/runner/run/admission/admission-controller.js';
import { runEvaluation } from '../../src/runner/scheduler/run-evaluation.js';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';
import { type ModelScript, type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';

const environment = defineEnvironment({
  name: 'admission',
  toolsets: [],
  dataset: () => [],
  systemPrompt: 'Answer.',
  rubric: [{ name: 'answered', weight: 1, score: ({ trajectory }) => (trajectory.answer === 'yes' ? 1 : 0) }],
});
const noTools: ToolSession = { tools: [], call: async () => ({ text: '', isError: false }), close: async () => undefined };
const examples: Example[] = Array.from({ length: 100 }, (_, index) => ({ id: `q${index}`, prompt: `question ${index}` }));

/**
 * Answers take 200 ms: long enough that this process (agent, driver and server on a shared 2-core machine) can keep
 * 256 requests in flight, so the endpoint, not the test's CPU, is what limits the run.
 */
const ANSWER_MS = 200;
/** An endpoint that serves 48 requests at once and answers 429 at once to any beyond them. */
const limitedTo48: ModelScript = (_request, _index, load) =>
  load.inFlight > 48 ? { kind: 'http-error', status: 429, message: 'too many requests in flight' } : { kind: 'text', content: 'yes', delayMs: ANSWER_MS };

const servers: ScriptedModelServer[] = [];
afterAll(async () => Promise.all(servers.map((server) => server.close())));

async function run(script: ModelScript, concurrency: number | AdmissionController) {
  const server = await startScriptedModelServer(script, { recordRequests: false });
  servers.push(server);
  // Retries as a user would leave them, with short waits so the test stays quick.
  const agent = new OpenAIAgent({ model: 'm', baseURL: server.baseURL, apiKey: 'k', maxRetries: 4, backoffBaseMs: 20, backoffMaxMs: 200 });
  const records: ResultRecord[] = [];
  const progress = await runEvaluation({
    environment,
    agent,
    tools: { open: async () => noTools },
    examples,
    rolloutsPerExample: 4,
    concurrency,
    abortSignal: new AbortController().signal,
    onGroup: (group) => void records.push(...group),
  });
  return { progress, records, server };
}

/** Counts 429s around a script. */
function counting(script: ModelScript) {
  const counts = { calls: 0, rateLimited: 0 };
  const counted: ModelScript = async (request, index, load) => {
    const reply = await script(request, index, load);
    counts.calls++;
    if (reply.kind === 'http-error' && reply.status === 429) counts.rateLimited++;
    return reply;
  };
  return { counted, counts };
}

describe('admission control (-c auto) against a real HTTP model endpoint', () => {
  it('converges near an endpoint that answers 429 above 48 in flight and finishes with 0 errored rollouts, where fixed -c 256 is rate-limited many times over', async () => {
    const auto = counting(limitedTo48);
    const controller = new AdmissionController({ mode: 'auto', maxConcurrency: 256 });
    const autoRun = await run(auto.counted, controller);
    expect(autoRun.progress).toMatchObject({ done: 400, errored: 0 });
    expect(autoRun.records.every((record) => record.error === null && record.reward === 1)).toBe(true);
    const snapshot = controller.snapshot();
    expect(snapshot.cuts.overload).toBeGreaterThan(0);
    // Settled near the endpoint's limit (the ramp overshoots once, its 429s arriving a round trip late): far below the ceiling, around 48.
    const settled = snapshot.history.slice(-10).map(([, level]) => level);
    expect(Math.max(...settled)).toBeLessThanOrEqual(64);
    expect(Math.min(...settled)).toBeGreaterThanOrEqual(24);
    // The ramp's overshoot, then a 429 now and then as the level probes.
    expect(auto.counts.rateLimited / auto.counts.calls).toBeLessThan(0.25);

    const fixed = counting(limitedTo48);
    const fixedRun = await run(fixed.counted, 256);
    // The same run at a fixed 256: over a hundred 429s (retried; a rollout that runs out of retries errors), more than -c
    // auto's. How many more depends on how fast this process fires requests on a loaded machine (2.4x to 5x seen), so
    // the test claims the order, not a ratio.
    expect(fixed.counts.rateLimited).toBeGreaterThan(100);
    expect(fixed.counts.rateLimited).toBeGreaterThan(auto.counts.rateLimited);
    expect(fixedRun.progress.done).toBe(400);
  });

  it('climbs to the ceiling on a healthy endpoint', async () => {
    const controller = new AdmissionController({ mode: 'auto', maxConcurrency: 64 });
    const { progress, server } = await run(() => ({ kind: 'text', content: 'yes', delayMs: ANSWER_MS }), controller);
    expect(progress).toMatchObject({ done: 400, errored: 0 });
    // It reaches the ceiling (a latency cut on a starved CI machine may take it a step down again near the end).
    const snapshot = controller.snapshot();
    expect(Math.max(...snapshot.history.map(([, level]) => level))).toBe(64);
    expect(snapshot.peak_in_flight).toBe(64);
    expect(snapshot.cuts.overload).toBeUndefined();
    expect(server.load.peakInFlight).toBe(64);
  });
});
