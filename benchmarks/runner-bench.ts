/**
 * `corral bench runner`: wiki-search rollouts per second with the real OpenAI agent against an instant scripted
 * model (all rollouts in flight at once), HumanEval reference solutions graded in Docker sandboxes against a
 * `docker run` per problem, the baseline agent's exact match on the SQuAD dev split, and the cost of building
 * training samples per rollout against JSON.stringify of the same record, and -c auto against the best and worst
 * fixed -c on a degrading endpoint.
 */
import { createPythonCodeEnvironment, createWikiSearchEnvironment, defaultCorpusPaths } from '../src/runner/environments/index.js';
import { codeDataset } from '../src/runner/environments/python-code/code-dataset.js';
import { questionDataset } from '../src/runner/environments/wiki-search/question-dataset.js';
import { loadProvider } from '../src/sandbox/registry.js';
import type { Figure } from './figure.js';
import { baselineExactMatchFigures } from './runner-bench-baseline.js';
import { humanEvalFigures } from './runner-bench-humaneval.js';
import type { OpenBenchTools } from './runner-bench-tools.js';
import { wikiRolloutFigures } from './runner-bench-wiki.js';
import { sampleBuildFigures } from './runner-bench-samples.js';
import { admissionFigures } from './runner-bench-admission.js';

export const RUNNER_BENCH_PARTS = ['wiki', 'humaneval', 'baseline', 'samples', 'admission'] as const;
export type RunnerBenchPart = (typeof RUNNER_BENCH_PARTS)[number];

export interface RunnerBenchOptions {
  dataDir: string;
  openTools: OpenBenchTools;
  parts: readonly RunnerBenchPart[];
  /** Rollouts per timed wiki run, all in flight (default 1024). */
  rollouts: number;
  /** Timed wiki runs; the figure is their median (default 3). */
  repeats: number;
  image: string;
  humanEvalConcurrency: number;
  /** Dev questions for the baseline; undefined = the whole split. */
  baselineLimit: number | undefined;
  baselineConcurrency: number;
  /** Rollouts per setting of the admission comparison. */
  admissionRollouts: number;
  log: (line: string) => void;
}

export async function runRunnerBench(options: RunnerBenchOptions): Promise<Figure[]> {
  const figures: Figure[] = [];
  if (options.parts.includes('samples')) figures.push(...sampleBuildFigures({ log: options.log }));
  if (options.parts.includes('admission')) figures.push(...(await admissionFigures({ rollouts: options.admissionRollouts, log: options.log })));
  const datasetOptions = { args: {}, dataDir: options.dataDir };
  if (options.parts.includes('wiki') || options.parts.includes('baseline')) {
    const environment = createWikiSearchEnvironment({ corpus: defaultCorpusPaths(options.dataDir) });
    const questions = questionDataset(datasetOptions);
    const runtime = await options.openTools(environment, { backend: 'process' });
    try {
      if (options.parts.includes('wiki')) {
        options.log(`wiki rollouts: ${options.rollouts} in flight, ${options.repeats} timed runs after a warm-up`);
        figures.push(
          ...(await wikiRolloutFigures({
            environment,
            examples: questions,
            tools: runtime.tools,
            rollouts: options.rollouts,
            repeats: options.repeats,
            log: options.log,
          })),
        );
      }
      if (options.parts.includes('baseline')) {
        const examples = options.baselineLimit === undefined ? questions : questions.slice(0, options.baselineLimit);
        options.log(`baseline: ${examples.length} dev questions at concurrency ${options.baselineConcurrency}`);
        figures.push(
          ...(await baselineExactMatchFigures({ environment, examples, tools: runtime.tools, concurrency: options.baselineConcurrency, log: options.log })),
        );
      }
    } finally {
      await runtime.close();
    }
  }
  if (options.parts.includes('humaneval')) {
    const docker = await loadProvider('docker');
    const availability = await docker.available().finally(() => docker.close());
    if (availability.ok) {
      figures.push(
        ...(await humanEvalFigures({
          environment: createPythonCodeEnvironment(),
          examples: codeDataset(datasetOptions),
          openTools: options.openTools,
          image: options.image,
          concurrency: options.humanEvalConcurrency,
          log: options.log,
        })),
      );
    } else {
      options.log(`docker unavailable (${availability.reason ?? 'no reason given'}): humaneval figures skipped (run \`corral doctor\`)`);
    }
  }
  return figures;
}
