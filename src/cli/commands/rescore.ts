/**
 * `corral rescore <run-dir>`: the same trajectories scored again by an environment's parser and rubric (the run's
 * own, or `--env`, e.g. a newer version), into a new run directory through the one run driver and eval flow.
 * `--repeats N` scores each trajectory N times and reports the spread per metric (judge variance). Rubrics that read
 * the sandbox are refused before the run starts (RESCORE_ERR_NEEDS_SANDBOX); errored records stay errored. A terminal
 * run is verified again instead, by its tasks' tests as they are now or as `--tasks` has them (rescore-terminal.ts).
 */
import type { Command } from 'commander';
import { CorralError } from '../../core/errors.js';
import { exampleOfRecord, trajectoryOfRecord } from '../../runner/replay/record-trajectory.js';
import { rescoreExecutor } from '../../runner/replay/rescore-executor.js';
import { formatScoreSpread, scoreSpread } from '../../runner/replay/score-spread.js';
import { type SourceRun, readSourceRun, sourceRolloutsPerExample } from '../../runner/replay/source-run.js';
import { assertRescorable, dryScore } from '../../runner/replay/trajectory-only-scoring.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import { runStamp } from '../eval/run-metadata.js';
import { runEvalFlow } from '../eval/eval-flow.js';
import { environmentForSourceRun, newRunDirectory, positiveInteger, sourceExamples } from './source-run-environment.js';

interface RescoreFlags {
  env?: string;
  tasks?: string;
  envArgs?: string;
  repeats?: string;
  out?: string;
  concurrency: string;
  dataDir?: string;
  progress: boolean;
}

export function registerRescoreCommand(program: Command): void {
  program
    .command('rescore')
    .description("score a run's saved trajectories again with an environment's parser and rubric, into a new run (judge variance with --repeats)")
    .exitOverride()
    .argument('<run-dir>', 'a run directory (results.jsonl + metadata.json)')
    .option('--env <env>', "the environment whose parser and rubric score (default: the run's own), e.g. a newer version or a module path")
    .option('--env-args <json>', "environment arguments as a JSON object (default: the run's)")
    .option('--tasks <dir>', "a terminal run: the task folder(s) whose tests verify again (default: the run's), e.g. with changed tests")
    .option('--repeats <n>', 'score each trajectory n times: reward and metrics are the means, the spread per metric is reported', '1')
    .option('--out <dir>', 'the new run directory (default <run-dir>-rescore-<time> beside the run)')
    .option('-c, --concurrency <c>', 'trajectories scored at once', '8')
    .option('--data-dir <dir>', 'evaluation data directory (default CORRAL_DATA_DIR)')
    .option('--no-progress', 'no progress bar or progress lines')
    .action(async (runDirectory: string, flags: RescoreFlags) => {
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const repeats = positiveInteger('--repeats', flags.repeats, 1);
      const concurrency = positiveInteger('--concurrency', flags.concurrency, 8);
      const source = readSourceRun(runDirectory);
      if (source.records.length === 0) throw new CorralError('RESCORE_ERR_RUN_NOT_FOUND', `${source.directory} holds no records to re-score`);
      if (isTerminalSourceRun(source)) {
        // Loaded only here: the Docker and task-folder modules would slow every other rescore's start.
        const { rescoreTerminalRun } = await import('./rescore-terminal.js');
        process.exitCode = await rescoreTerminalRun(source, flags, { repeats, concurrency, log });
        return;
      }
      if (flags.tasks !== undefined)
        throw new CorralError(
          'CFG_ERR_INVALID',
          `--tasks applies to terminal runs; ${source.directory} is a ${String(source.metadata['env'] ?? 'non-terminal')} run`,
        );
      const chosen = await environmentForSourceRun(source, flags, log);
      const { environment } = chosen;
      assertRescorable(environment);
      const first = source.records.find((record) => record.error === null);
      if (first) await dryScore(environment, exampleOfRecord(first), trajectoryOfRecord(first));
      const directory = newRunDirectory(source, flags.out, 'rescore');
      const examples = sourceExamples(source);
      const rolloutsPerExample = sourceRolloutsPerExample(source);
      const written: ResultRecord[] = [];
      const startedAt = Date.now();
      const metadata: Record<string, unknown> = {
        env_id: environment.name,
        env: environment.name,
        env_source: chosen.source,
        model: source.metadata['model'] ?? null,
        agent: source.metadata['agent'] ?? null,
        num_examples: examples.length,
        rollouts_per_example: rolloutsPerExample,
        ...(source.metadata['tools'] ? { tools: source.metadata['tools'] } : {}),
        lineage: {
          kind: 'rescore',
          source_run: source.directory,
          source_env: source.metadata['env'] ?? null,
          source_env_source: source.metadata['env_source'] ?? null,
          env: chosen.name,
          env_source: chosen.source,
          repeats,
        },
        ...runStamp(startedAt),
      };
      process.exitCode = await runEvalFlow({
        executor: rescoreExecutor({ source, environment, repeats }),
        metadata,
        extraMetadata: () => (repeats > 1 ? { score_spread: scoreSpread(written, repeats) } : {}),
        describe: `rescore ${source.directory} with ${chosen.name}: ${source.records.length} trajectories x ${repeats} scorings`,
        cancelling: 'finishing the scorings in flight',
        close: async () => undefined,
        afterGroup: (records) => void written.push(...records),
        directory,
        task: environment.name,
        examples,
        rolloutsPerExample,
        plannedRollouts: source.records.length,
        options: { concurrency, maxConcurrency: concurrency, progress: flags.progress, progressInterval: 5, samples: false },
        atif: false,
        startedAt,
        log,
      });
      if (repeats > 1) process.stdout.write(`${formatScoreSpread(scoreSpread(written, repeats))}\n`);
    });
}

/** True for a run `corral eval terminal` (or `corral eval <task folder>`) wrote, or a re-verification of one. */
function isTerminalSourceRun(run: SourceRun): boolean {
  const source = run.metadata['env_source'] as { kind?: unknown } | undefined;
  return run.metadata['env'] === 'terminal' || source?.kind === 'task-folder';
}
