/**
 * `corral env install <name|path|tarball>...`, `corral env list`, `corral env show <env>`, `corral env remove <name>`
 * (and `corral env check <env>`, in env-check.ts):
 * environment packages in corral's cache (an npm prefix under --cache-dir / CORRAL_CACHE_DIR), beside the built-ins.
 */
import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { corralVersion } from '../../core/project-root.js';
import { environmentCache } from '../../environment-packages/environment-cache.js';
import { summariseEnvironment } from '../../environment-packages/environment-summary.js';
import { installEnvironmentPackage, uninstallEnvironmentPackage } from '../../environment-packages/install-environment-package.js';
import { readInstalledRecords } from '../../environment-packages/installed-environments.js';
import { resolveEnvironment } from '../../environment-packages/resolve-environment.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import { registerEnvCheckCommand } from './env-check.js';
import { scaffoldEnvironment } from './env-init.js';

const log = (line: string) => process.stderr.write(`[env] ${line}\n`);
const cacheFor = (options: { cacheDir?: string }) => environmentCache(loadConfig({ flags: { cacheDir: options.cacheDir } }));

export function registerEnvCommand(program: Command): void {
  const env = program.command('env').description('install, list and inspect environments (npm packages in corral’s cache, and the built-ins)');
  env
    .command('init')
    .description('write a new environment that runs out of the box: package.json, index.ts (a tool, dataset, rubric), agents.ts (reference and floor), README')
    .argument('[dir]', 'the folder to create it in (default: the current folder)', '.')
    .action((directory: string) => {
      const created = scaffoldEnvironment(directory);
      process.stdout.write(`created environment ${created.name} in ${created.directory}: ${created.files.join(', ')}\n`);
      process.stdout.write(`try: cd ${created.directory} && corral eval ./index.ts --agent reference\n`);
    });
  env
    .command('install')
    .description('install environment packages with npm into corral’s cache (install scripts never run); a registry name, a tarball or a folder')
    .argument('<specs...>', 'corral-env-x, corral-env-x@1.2.3, ./corral-env-x-1.2.3.tgz, ./my-env-package/')
    .option('--cache-dir <dir>', 'corral’s cache folder (default CORRAL_CACHE_DIR, else ~/.cache/corral)')
    .action(async (specs: string[], options: { cacheDir?: string }) => {
      const cache = cacheFor(options);
      for (const spec of specs) {
        const { record, manifest } = await installEnvironmentPackage(spec, { cache, log });
        process.stdout.write(`installed ${record.name}@${record.version} from ${record.installedFrom} -> ${manifest.directory}\n`);
      }
    });
  env
    .command('list')
    .description('list the built-in environments and the installed environment packages, with versions and sources')
    .option('--json', 'print JSON')
    .option('--cache-dir <dir>', 'corral’s cache folder (default CORRAL_CACHE_DIR, else ~/.cache/corral)')
    .action((options: { json?: boolean; cacheDir?: string }) => {
      const cache = cacheFor(options);
      const rows = [
        ...Object.keys(builtInEnvironments).map((name) => ({ name, version: corralVersion(), kind: 'built-in', source: `corral ${corralVersion()}` })),
        ...readInstalledRecords(cache).map((record) => ({
          name: record.name,
          version: record.version,
          kind: 'package',
          source: record.installedFrom,
          resolved: record.resolved,
          integrity: record.integrity,
          installed_at: record.installedAt,
        })),
      ];
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ cache: cache.directory, environments: rows }, null, 2)}\n`);
        return;
      }
      const width = Math.max(...rows.map((row) => row.name.length)) + 2;
      for (const row of rows) process.stdout.write(`${row.name.padEnd(width)}${row.version.padEnd(10)}${row.kind.padEnd(10)}${row.source}\n`);
    });
  env
    .command('show')
    .description('describe an environment: toolsets, its own tools, the JSON Schema of its --env-args, limits, example count')
    .argument('<env>', 'a built-in, an installed package name, or a module path')
    .option('--json', 'print JSON')
    .option('--data-dir <dir>', 'evaluation data directory, for counting a built-in’s examples (default CORRAL_DATA_DIR)')
    .option('--cache-dir <dir>', 'corral’s cache folder (default CORRAL_CACHE_DIR, else ~/.cache/corral)')
    .option('--env-load-timeout-ms <ms>', 'a module that takes longer to import fails with ENV_ERR_LOAD_TIMEOUT (default 60000; CORRAL_ENV_LOAD_TIMEOUT_MS)')
    .action(async (name: string, options: { json?: boolean; dataDir?: string; cacheDir?: string; envLoadTimeoutMs?: string }) => {
      const config = loadConfig({ flags: { cacheDir: options.cacheDir, dataDir: options.dataDir, envLoadTimeoutMs: options.envLoadTimeoutMs } });
      const resolved = await resolveEnvironment(name, {
        builtIns: builtInEnvironments,
        cache: environmentCache(config),
        log,
        loadTimeoutMs: config.environments.loadTimeoutMs,
      });
      const summary = await summariseEnvironment(resolved.environment, { dataDir: config.data.dataDir });
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ ...summary, source: resolved.source }, null, 2)}\n`);
        return;
      }
      const lines = [
        `${summary.name}: ${summary.description}`,
        `source      ${JSON.stringify(resolved.source)}`,
        `toolsets    ${summary.toolsets.join(', ') || '(none)'}`,
        `tools       ${summary.tools.length ? '' : '(none of its own)'}`,
        ...summary.tools.map((tool) => `  ${tool.name}: ${tool.description}`),
        `env args    ${summary.args_schema === null ? '(none declared)' : JSON.stringify(summary.args_schema)}`,
        `max turns   ${summary.max_turns}`,
        `limits      ${JSON.stringify(summary.limits)}`,
        `sandbox     ${JSON.stringify(summary.sandbox)}`,
        `examples    ${summary.examples ?? summary.examples_note}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
  env
    .command('remove')
    .description('uninstall an environment package from corral’s cache')
    .argument('<name>', 'the package name')
    .option('--cache-dir <dir>', 'corral’s cache folder (default CORRAL_CACHE_DIR, else ~/.cache/corral)')
    .action(async (name: string, options: { cacheDir?: string }) => {
      await uninstallEnvironmentPackage(name, { cache: cacheFor(options), log });
      process.stdout.write(`removed ${name}\n`);
    });
  registerEnvCheckCommand(env);
}
