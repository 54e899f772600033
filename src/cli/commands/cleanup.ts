import type { Command } from 'commander';
import { isOwnerAlive } from '../../core/owner.js';
import { openDockerConnection } from '../../sandbox/docker/docker-connection.js';
import { loadProvider } from '../../sandbox/registry.js';
import { removeStaleCommittedImages } from '../../terminal/trial/trial-reaper.js';
import { BACKEND_NAMES } from '../../sandbox/spec.js';

/** `corral cleanup`: removes every corral-labelled sandbox whose owner is gone (or all of them with --all). */
export function registerCleanupCommand(program: Command): void {
  program
    .command('cleanup')
    .description('remove corral sandboxes (containers, processes) left behind by dead owners or past expiry')
    .option('--all', 'remove every corral sandbox, including those of running owners')
    .action(async (options: { all?: boolean }) => {
      let total = 0;
      for (const name of BACKEND_NAMES) {
        const provider = await loadProvider(name);
        try {
          if (!(await provider.available()).ok) continue;
          const removed = await provider.cleanup({ ownerAlive: isOwnerAlive, all: options.all === true });
          process.stdout.write(`${name}: removed ${removed}\n`);
          total += removed;
        } finally {
          await provider.close();
        }
      }
      process.stdout.write(`removed ${total} sandbox(es)\n`);
      // Images committed for terminal trials' verifiers carry the same owner and expiry labels.
      const { docker, close } = openDockerConnection();
      try {
        const images = await removeStaleCommittedImages(docker, { ownerAlive: isOwnerAlive, all: options.all === true }).catch(() => null);
        if (images !== null) process.stdout.write(`docker: removed ${images} committed trial image(s)\n`);
      } finally {
        close();
      }
    });
}
