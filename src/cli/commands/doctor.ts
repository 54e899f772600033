import type { Command } from 'commander';
import { loadProvider } from '../../sandbox/registry.js';
import { BACKEND_NAMES } from '../../sandbox/spec.js';

/** `corral doctor`: which backends work here and, when one does not, why and what to do. */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('report which sandbox backends work on this machine, and why not')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const report = [];
      for (const name of BACKEND_NAMES) {
        try {
          const provider = await loadProvider(name);
          const availability = await provider.available();
          await provider.close();
          report.push({ backend: name, ...availability });
        } catch (error) {
          report.push({ backend: name, ok: false, reason: `cannot load backend: ${(error as Error).message}` });
        }
      }
      if (options.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        for (const entry of report) process.stdout.write(`${entry.ok ? 'ok  ' : 'FAIL'} ${entry.backend.padEnd(8)} ${entry.reason ?? ''}\n`);
      }
      if (!report.some((entry) => entry.ok)) process.exitCode = 1;
    });
}
