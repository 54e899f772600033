import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
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
      // The daemon the pool and --backend auto use: --docker-socket / CORRAL_DOCKER_SOCKET, else DOCKER_HOST.
      const { dockerSocketPath: socketPath, sandboxUid } = loadConfig().sandbox;
      for (const name of BACKEND_NAMES) {
        try {
          const provider = await loadProvider(name, { ...(socketPath ? { dockerSocketPath: socketPath } : {}), sandboxUid });
          const availability = await provider.available();
          await provider.close();
          report.push({ backend: name, ...availability });
        } catch (error) {
          report.push({ backend: name, ok: false, reason: `cannot load backend: ${(error as Error).message}` });
        }
      }
      const docker = report.find((entry) => entry.backend === 'docker');
      const images = docker?.ok
        ? await (await import('../../sandbox/docker/image-builder.js')).imageStatus(socketPath ? { dockerSocketPath: socketPath } : {}).catch(() => [])
        : [];
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ backends: report, images }, null, 2)}\n`);
      } else {
        for (const entry of report) {
          const detail =
            'detail' in entry && entry.detail
              ? Object.entries(entry.detail)
                  .map(([key, value]) => `${key}=${String(value)}`)
                  .join(' ')
              : '';
          process.stdout.write(`${entry.ok ? 'ok  ' : 'FAIL'} ${entry.backend.padEnd(8)} ${entry.reason ?? detail}\n`);
        }
        for (const image of images) {
          const state = image.present
            ? image.upToDate
              ? 'up to date'
              : 'stale: run `corral images build --offline`'
            : 'missing: run `corral images build --offline`';
          process.stdout.write(`${image.present && image.upToDate ? 'ok  ' : 'WARN'} image    ${image.tag} ${state}\n`);
        }
      }
      if (!report.some((entry) => entry.ok)) process.exitCode = 1;
    });
}
