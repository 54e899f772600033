/**
 * runner.wiki.baseline.exact_match.dev: the model-free baseline agent's SQuAD exact match on the dev questions,
 * through the runner and the same in-process wiki tools `corral eval wiki-search --agent baseline` uses. It is a
 * quality floor for models to beat and a check that search + read + span picking still work end to end.
 */
import { builtInAgents } from '../src/runner/agents/baseline/baseline-agents.js';
import type { Environment, Example } from '../src/runner/contract/environment.js';
import type { ToolSessionFactory } from '../src/runner/contract/tool-session.js';
import { runEvaluation } from '../src/runner/scheduler/run-evaluation.js';
import { type Figure, round } from './figure.js';

export interface BaselineBenchOptions {
  environment: Environment;
  examples: readonly Example[];
  tools: ToolSessionFactory;
  concurrency: number;
  log: (line: string) => void;
}

export async function baselineExactMatchFigures(options: BaselineBenchOptions): Promise<Figure[]> {
  let exactMatches = 0;
  let scored = 0;
  const startedAt = performance.now();
  const progress = await runEvaluation({
    environment: options.environment,
    agent: builtInAgents['baseline']!(),
    tools: options.tools,
    examples: options.examples,
    rolloutsPerExample: 1,
    concurrency: options.concurrency,
    abortSignal: new AbortController().signal,
    onGroup: (records) => {
      for (const record of records) {
        if (record.error) continue;
        scored++;
        exactMatches += record.metrics['exact_match'] ?? 0;
      }
    },
  });
  const seconds = (performance.now() - startedAt) / 1000;
  options.log(`baseline: ${options.examples.length} questions in ${round(seconds, 1)} s, ${progress.errored} errored`);
  return [
    {
      name: 'runner.wiki.baseline.exact_match.dev',
      value: round(exactMatches / Math.max(1, scored)),
      unit: 'fraction',
      target: `${options.examples.length} dev questions, ${progress.errored} errored`,
    },
    { name: 'runner.wiki.baseline.questions_per_s', value: round(progress.done / seconds, 1), unit: 'questions/s' },
  ];
}
