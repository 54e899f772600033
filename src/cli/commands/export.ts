import type { Command } from 'commander';

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
}
