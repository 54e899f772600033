import type { Command } from 'commander';
import { CorralError } from '../../core/errors.js';

/** `corral export atif <run-dir>`: the run's rollouts as ATIF v1.7 trajectory.json files (docs/results.md). */
export function registerExportCommand(program: Command): void {
  const exporting = program.command('export').description("write a run's trajectories in other formats");
  exporting
    .command('atif <run-dir>')
    .description('write one validated ATIF v1.7 trajectory.json per rollout to <out>/<example id>/<rollout index>/ (default <run-dir>/atif)')
    .option('--out <dir>', 'where the trajectories go (default <run-dir>/atif)')
    .action(async (runDirectory: string, options: { out?: string }) => {
      const { exportRunAtif } = await import('../../export/atif-run-export.js');
      const result = await exportRunAtif(runDirectory, { outDirectory: options.out });
      process.stdout.write(`wrote ${result.written.length} ATIF trajectories to ${result.outDirectory}\n`);
    });
  exporting
    .command('samples <run-dir>')
    .description(
      'write training samples (prompt_ids, completion_ids, completion_mask, completion_logprobs, reward, advantage), one JSON a line (docs/training.md)',
    )
    .option('--out <file>', 'where the samples go (default <run-dir>/samples.jsonl)')
    .action(async (runDirectory: string, options: { out?: string }) => {
      const { exportRunSamples } = await import('../../export/samples-export.js');
      const { describeTally } = await import('../../runner/samples/sample-tally.js');
      const result = await exportRunSamples(runDirectory, { ...(options.out ? { outPath: options.out } : {}) });
      process.stdout.write(`${describeTally(result.tally)}\nwrote ${result.outPath}\n`);
    });
  exporting
    .command('pairs <original-run> <replayed-run>')
    .description(
      'write preference pairs {prompt, chosen, rejected} from a replay: each continuation against the trajectory it continued, the higher reward chosen',
    )
    .option('--out <file>', 'where the pairs go (default <replayed-run>/pairs.jsonl)')
    .option('--min-margin <d>', 'only pairs whose rewards differ by more than d (default 0)')
    .action(async (originalRun: string, replayedRun: string, options: { out?: string; minMargin?: string }) => {
      const minMargin = options.minMargin === undefined ? 0 : Number(options.minMargin);
      if (!Number.isFinite(minMargin) || minMargin < 0)
        throw new CorralError('CFG_ERR_INVALID', `--min-margin must be a number of at least 0, got ${options.minMargin}`);
      const { exportPairs } = await import('../../export/pairs-export.js');
      const result = await exportPairs(originalRun, replayedRun, { ...(options.out ? { outPath: options.out } : {}), minMargin });
      process.stdout.write(
        `wrote ${result.pairs} pairs from ${result.replayed} replayed trajectories (left out: equal rewards ${result.ties}, errored ${result.errored}, no source record ${result.unmatched}; copied whole ${result.copied}) to ${result.outPath}\n`,
      );
    });
  exporting
    .command('sft <run-dir>')
    .description('write chat conversations for supervised fine-tuning, one {messages, tools} a line; errored rollouts never included')
    .option('--out <file>', 'where the conversations go (default <run-dir>/sft.jsonl)')
    .option('--min-reward <r>', 'only rollouts whose reward is at least r')
    .option('--best-per-example', 'only the best rollout of each example')
    .option('--strip-thinking', 'drop <think> blocks and reasoning_content from assistant messages')
    .action(async (runDirectory: string, options: { out?: string; minReward?: string; bestPerExample?: boolean; stripThinking?: boolean }) => {
      const minReward = options.minReward === undefined ? undefined : Number(options.minReward);
      if (minReward !== undefined && !Number.isFinite(minReward))
        throw new CorralError('CFG_ERR_INVALID', `--min-reward must be a number, got ${options.minReward}`);
      const { exportRunSft } = await import('../../export/sft-export.js');
      const result = await exportRunSft(runDirectory, {
        ...(options.out ? { outPath: options.out } : {}),
        ...(minReward !== undefined ? { minReward } : {}),
        bestPerExample: options.bestPerExample === true,
        stripThinking: options.stripThinking === true,
      });
      process.stdout.write(
        `wrote ${result.written} conversations of ${result.rollouts} rollouts (left out: errored ${result.errored}, below --min-reward ${result.belowMinReward}, not the best of their example ${result.notBest}) to ${result.outPath}\n`,
      );
      if (!result.hadTools) process.stderr.write('note: metadata.json holds no tool schemas (a run written before corral kept them); lines carry tools: []\n');
    });
}
