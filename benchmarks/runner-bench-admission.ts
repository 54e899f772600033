/**
 * `corral bench runner --only admission`: -c auto against the best and the worst fixed -c on a degrading endpoint,
 * in the same run. The endpoint (the scripted model server, in process) answers in 100 ms plus 2 ms per request in
 * flight beyond 32, and 429 to any request beyond 48 in flight; rollouts are one model call in a tool-less
 * environment. Target (issue 28): auto reaches >= 90% of the best fixed setting's rollouts/s with 0 errored rollouts.
 */
import { loadavg } from 'node:os';
import { OpenAIAgent } from '../src/runner/agents/openai/openai-agent.js';
import { defineEnvironment, type Example } from '../src/runner/contract/environment.js';
import { AdmissionController } from '../src/runner/run/admission/admission-controller.js';
import { runEvaluation } from '../src/runner/scheduler/run-evaluation.js';
import { type ModelScript, startScriptedModelServer } from '../src/testing/scripted-model-server.js';
import { type Figure, round } from './figure.js';

const FIXED_LEVELS = [8, 16, 32, 48, 64, 128, 256];
const LIMIT = 48;

const degrading: ModelScript = (_request, _index, load) =>
  load.inFlight > LIMIT
    ? { kind: 'http-error', status: 429, message: 'too many requests in flight' }
    : { kind: 'text', content: 'yes', delayMs: 100 + 2 * Math.max(0, load.inFlight - 32) };

const environment = defineEnvironment({
  name: 'admission-bench',
  toolsets: [],
  dataset: () => [],
  systemPrompt: 'Answer.',
  rubric: [{ name: 'answered', weight: 1, score: ({ trajectory }) => (trajectory.answer === 'yes' ? 1 : 0) }],
});

interface Measured {
  label: string;
  rolloutsPerS: number;
  errored: number;
  rateLimited: number;
  level?: number;
  /** -c auto: seconds until the level first reached the endpoint's limit, and its time-weighted mean. */
  secondsToLimit?: number;
  meanLevel?: number;
}

export async function admissionFigures(options: { rollouts: number; log: (line: string) => void }): Promise<Figure[]> {
  const examples: Example[] = Array.from({ length: options.rollouts }, (_, index) => ({ id: `q${index}`, prompt: `question ${index}` }));
  const measure = async (label: string, concurrency: number | AdmissionController): Promise<Measured> => {
    let rateLimited = 0;
    const server = await startScriptedModelServer(
      async (request, index, load) => {
        const reply = await degrading(request, index, load);
        if (reply.kind === 'http-error') rateLimited++;
        return reply;
      },
      { recordRequests: false },
    );
    const agent = new OpenAIAgent({ model: 'm', baseURL: server.baseURL, apiKey: 'k' });
    try {
      const startedAt = performance.now();
      const progress = await runEvaluation({
        environment,
        agent,
        tools: { open: async () => ({ tools: [], call: async () => ({ text: '', isError: false }), close: async () => undefined }) },
        examples,
        rolloutsPerExample: 1,
        concurrency,
        abortSignal: new AbortController().signal,
        onGroup: () => undefined,
      });
      const seconds = (performance.now() - startedAt) / 1000;
      const measured: Measured = { label, rolloutsPerS: progress.done / seconds, errored: progress.errored, rateLimited };
      let levels = '';
      if (typeof concurrency !== 'number') {
        const { history } = concurrency.snapshot();
        measured.level = concurrency.level;
        measured.secondsToLimit = history.find(([, level]) => level >= LIMIT)?.[0] ?? Number.NaN;
        measured.meanLevel = meanLevel(history, seconds);
        levels = `, final level ${measured.level}, level ${LIMIT} after ${round(measured.secondsToLimit, 2)} s, mean level ${round(measured.meanLevel, 1)}`;
      }
      options.log(
        `  ${label}: ${round(measured.rolloutsPerS, 1)} rollouts/s in ${round(seconds, 2)} s, ${measured.errored} errored, ${rateLimited} 429s${levels} (load average ${loadavg()[0]!.toFixed(1)})`,
      );
      return measured;
    } finally {
      await server.close();
    }
  };
  options.log(`admission: ${options.rollouts} rollouts per setting; endpoint 429 above ${LIMIT} in flight, latency rising past 32`);
  const fixed: Measured[] = [];
  for (const level of FIXED_LEVELS) fixed.push(await measure(`-c ${level}`, level));
  const auto = await measure('-c auto', new AdmissionController({ mode: 'auto', maxConcurrency: 256 }));
  const best = fixed.reduce((a, b) => (b.rolloutsPerS > a.rolloutsPerS ? b : a));
  const worst = fixed.reduce((a, b) => (b.rolloutsPerS < a.rolloutsPerS ? b : a));
  options.log(`  auto / best fixed (${best.label}): x${round(auto.rolloutsPerS / best.rolloutsPerS)}`);
  // A setting that errored rollouts bought its rate with lost work: the fair peer is the best one without errors.
  const clean = fixed.filter((each) => each.errored === 0);
  const bestClean = clean.length > 0 ? clean.reduce((a, b) => (b.rolloutsPerS > a.rolloutsPerS ? b : a)) : best;
  return [
    {
      name: 'runner.admission.auto_rollouts_per_s',
      value: round(auto.rolloutsPerS, 1),
      unit: 'rollouts/s',
      peer: `best fixed (${best.label})`,
      peerValue: round(best.rolloutsPerS, 1),
      ratio: round(auto.rolloutsPerS / best.rolloutsPerS),
      target: '>= 0.9',
    },
    {
      name: 'runner.admission.auto_vs_best_error_free_fixed',
      value: round(auto.rolloutsPerS, 1),
      unit: 'rollouts/s',
      peer: `best fixed with 0 errored (${bestClean.label})`,
      peerValue: round(bestClean.rolloutsPerS, 1),
      ratio: round(auto.rolloutsPerS / bestClean.rolloutsPerS),
      target: '>= 0.9',
    },
    {
      name: 'runner.admission.auto_vs_worst_fixed',
      value: round(auto.rolloutsPerS, 1),
      unit: 'rollouts/s',
      peer: `worst fixed (${worst.label})`,
      peerValue: round(worst.rolloutsPerS, 1),
      ratio: round(auto.rolloutsPerS / worst.rolloutsPerS),
    },
    { name: 'runner.admission.auto_errored', value: auto.errored, unit: 'rollouts', target: '0' },
    { name: 'runner.admission.auto_rate_limited', value: auto.rateLimited, unit: '429s', peer: '-c 256', peerValue: fixed.at(-1)!.rateLimited },
    { name: 'runner.admission.auto_final_level', value: auto.level ?? 0, unit: 'rollouts in flight', target: `near ${LIMIT}` },
    { name: 'runner.admission.auto_mean_level', value: round(auto.meanLevel ?? Number.NaN, 1), unit: 'rollouts in flight (time-weighted)' },
    { name: 'runner.admission.auto_seconds_to_limit', value: round(auto.secondsToLimit ?? Number.NaN, 2), unit: `s until the level first reached ${LIMIT}` },
    { name: 'runner.admission.fixed_256_errored', value: fixed.at(-1)!.errored, unit: 'rollouts' },
  ];
}

/** The level's mean over the run, each level weighted by how long it held. */
function meanLevel(history: readonly (readonly [number, number])[], seconds: number): number {
  let weighted = 0;
  history.forEach(([atS, level], index) => (weighted += level * (Math.min(seconds, history[index + 1]?.[0] ?? seconds) - atS)));
  return weighted / seconds;
}
