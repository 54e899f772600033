import type { Command } from 'commander';

/** `corral tasks check|migrate`: Harbor / Terminal-Bench v1 task folders (docs/terminal-tasks.md). */
export function registerTasksCommand(program: Command): void {
  const tasks = program.command('tasks').description('Harbor and Terminal-Bench v1 task folders');
  tasks
    .command('check <dir>')
    .description('validate a task folder (or a folder of them) and print what would run; exit 2 when any task fails')
    .option('--base-image-map <file>', 'JSON {"pattern": "local-image"} entries tried before the built-in FROM map')
    .action(async (directory: string, options: { baseImageMap?: string }) => {
      const { loadTaskDataset } = await import('../../terminal/dataset-loader.js');
      const { loadBaseImageMap } = await import('../../terminal/base-image-map.js');
      const { checkDataset } = await import('../../terminal/task-check.js');
      const report = await checkDataset(await loadTaskDataset(directory), await loadBaseImageMap(options.baseImageMap));
      for (const line of report.lines) process.stdout.write(`${line}\n`);
      for (const line of report.errorLines) process.stderr.write(`error: ${line}\n`);
      process.stdout.write(`${report.lines.length} task(s) ok, ${report.errorLines.length} failed\n`);
      if (!report.ok) process.exitCode = 2;
    });
  tasks
    .command('migrate <in> <out>')
    .description('write the Harbor form of Terminal-Bench v1 task folders to <out>/<task>/ (as harbor task migrate maps them)')
    .action(async (input: string, output: string) => {
      const { migrateTerminalBenchV1 } = await import('../../terminal/terminal-bench-migration.js');
      const result = await migrateTerminalBenchV1(input, output);
      for (const task of result.migrated) process.stdout.write(`migrated ${task.name}: ${task.from} → ${task.to}\n`);
      for (const failure of result.failures) process.stderr.write(`error: ${failure.directory}: ${failure.code}: ${failure.message}\n`);
      if (result.failures.length > 0) process.exitCode = 2;
    });
}
