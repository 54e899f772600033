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
    .command('build <dir>')
    .description('build the image of every task (FROM lines through the base-image map; skipped when the content-hash tag exists); exit 2 when any fails')
    .option('--base-image-map <file>', 'JSON {"pattern": "local-image"} entries tried before the built-in FROM map')
    .option('--logs <dir>', 'where build logs are kept', 'corral-task-builds')
    .option('--concurrency <n>', 'builds at once', (value) => Number.parseInt(value, 10), 2)
    .option('--force', 'rebuild even when the content-hash tag exists')
    .action(async (directory: string, options: { baseImageMap?: string; logs: string; concurrency: number; force?: boolean }) => {
      const { loadTaskDataset } = await import('../../terminal/dataset-loader.js');
      const { loadBaseImageMap } = await import('../../terminal/base-image-map.js');
      const { buildTaskImages } = await import('../../terminal/task-image-builder.js');
      const { openDockerConnection } = await import('../../sandbox/docker/docker-connection.js');
      const dataset = await loadTaskDataset(directory);
      const connection = openDockerConnection();
      try {
        const log = (line: string) => process.stderr.write(`[tasks] ${line}\n`);
        const results = await buildTaskImages(dataset.tasks, {
          docker: connection.docker,
          map: await loadBaseImageMap(options.baseImageMap),
          logDirectory: options.logs,
          concurrency: options.concurrency,
          force: options.force === true,
          log,
        });
        for (const result of results)
          process.stdout.write(`${result.task}: ${result.status}${result.image ? ` ${result.image}` : ''}${result.error ? ` ${result.error.code}` : ''}\n`);
        if (dataset.failures.length > 0 || results.some((result) => result.status === 'failed')) process.exitCode = 2;
      } finally {
        connection.close();
      }
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
