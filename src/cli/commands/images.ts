import { type Command, InvalidArgumentError } from 'commander';

/** `corral images build [--offline]`: builds the sandbox images; offline means from the host's Debian packages. */
export function registerImagesCommand(program: Command): void {
  const images = program.command('images').description('sandbox images');
  images
    .command('build')
    .description('build the sandbox images (skipped when an image with the same content hash exists)')
    .option('--offline', 'build from Debian packages with debootstrap + docker import (no registry needed)')
    .option('--force', 'rebuild even when the content hash matches')
    .option('--only <set>', 'sandbox (corral/python), task-bases (corral/task-debian, corral/task-python: FROM bases of terminal tasks) or all', 'all')
    .action(async (options: { offline?: boolean; force?: boolean; only: string }) => {
      const { buildImages } = await import('../../sandbox/docker/image-builder.js');
      const { IMAGE_DEFINITIONS, TASK_BASE_IMAGE_DEFINITIONS } = await import('../../sandbox/docker/image-definition.js');
      const sets = { sandbox: IMAGE_DEFINITIONS, 'task-bases': TASK_BASE_IMAGE_DEFINITIONS, all: [...IMAGE_DEFINITIONS, ...TASK_BASE_IMAGE_DEFINITIONS] };
      const definitions = sets[options.only as keyof typeof sets];
      if (!definitions) throw new InvalidArgumentError(`--only ${options.only}: use sandbox, task-bases or all`);
      await buildImages({
        offline: options.offline === true,
        force: options.force === true,
        definitions,
        log: (line: string) => process.stderr.write(`[images] ${line}\n`),
      });
    });
}
