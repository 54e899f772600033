import type { Command } from 'commander';
import { type CorralConfig, loadConfig } from '../../config/load-config.js';
import { environmentCache } from '../../environment-packages/environment-cache.js';
import { CATALOG_ENTRY_NAMES, type ToolCatalogEntry } from '../../mcp/tool-catalog.js';
import type { ToolCallObserver } from '../../mcp/tool-call-observer.js';
import { serveMessageStream } from '../../mcp/message-stream-serving.js';
import { toolsForToolsets } from '../../mcp/toolsets.js';
import type { Environment } from '../../runner/contract/environment.js';
import { parseEnvironmentArgs } from '../eval/eval-options.js';
import { environmentCatalogEntry } from '../runtime/environment-catalog-entries.js';
import { loadServedEnvironments } from '../runtime/served-environments.js';
import { startToolRuntime } from '../runtime/tool-runtime.js';

interface McpFlags {
  backend?: string;
  corpus?: string[];
  dataDir?: string;
  cacheDir?: string;
  envArgs?: string;
  envLoadTimeoutMs?: string;
}

/**
 * `corral mcp <env>`: one environment over stdio for desktop clients and CLI agents, with one set of
 * sandboxes for the process lifetime. stdout carries MCP and nothing else; every log line goes to stderr.
 */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(
      `serve one environment over stdio as an MCP server: a toolset (${CATALOG_ENTRY_NAMES.join(', ')}), a built-in or installed environment, or a module file`,
    )
    .argument('<env>', 'a toolset name, an environment name (built-in or installed package), or a module file / package folder')
    .option('--env-args <json>', "the environment's arguments, validated by its argsSchema (as corral eval --env-args)")
    .option('--cache-dir <dir>', 'corral’s cache folder, where installed environment packages are (CORRAL_CACHE_DIR)')
    .option('--env-load-timeout-ms <ms>', 'a module that takes longer to import fails with ENV_ERR_LOAD_TIMEOUT (default 60000)')
    .option('--backend <backend>', 'sandbox backend for python/shell/files: docker | process | auto (CORRAL_BACKEND)')
    .option('--corpus <path...>', 'wiki corpora, or one disk index dir from `corral wiki index` (default: wiki/*/pages.jsonl under CORRAL_DATA_DIR)')
    .option('--data-dir <dir>', 'evaluation data directory (CORRAL_DATA_DIR)')
    .action(async (environmentName: string, flags: McpFlags) => {
      // Any stray console.log (ours or a dependency's) would corrupt the JSON-RPC stream.
      console.log = console.info = console.debug = console.error;
      const log = (line: string) => process.stderr.write(`[corral mcp] ${line}\n`);
      const { corpus, envArgs, ...configFlags } = flags;
      const config = loadConfig({ flags: configFlags });
      // A toolset entry by name; anything else is an environment, resolved as `corral eval` resolves it.
      const custom = (CATALOG_ENTRY_NAMES as readonly string[]).includes(environmentName)
        ? undefined
        : await boundEnvironment(environmentName, envArgs, config, log);
      const runtime = await startToolRuntime(config, {
        corpusPaths: corpus,
        minIdle: 0,
        loadWiki: environmentName === 'wiki' || environmentName === 'all' || (custom?.toolsets.includes('wiki') ?? false),
        log,
      });
      const environment: ToolCatalogEntry | undefined = custom
        ? environmentCatalogEntry(custom, toolsForToolsets(custom.toolsets, { wiki: runtime.wiki }))
        : runtime.catalog.get(environmentName);
      if (!environment) {
        log(`no environment named ${environmentName}; available here: ${runtime.catalog.names().join(', ')}`);
        await runtime.close();
        process.exitCode = 2;
        return;
      }
      const served = serveMessageStream({
        entry: environment,
        sandboxes: { source: runtime.sandboxSource },
        observer: stderrObserver(log),
        onError: (error) => log(`mcp: ${error.message}`),
      });
      log(`serving ${environment.name} (backend ${runtime.backend})`);
      let stopping = false;
      const stop = async (reason: string) => {
        if (stopping) return;
        stopping = true;
        log(`${reason}: releasing sandboxes`);
        await served.close();
        await runtime.close();
        process.exit(0);
      };
      // The client closing our stdin is the normal way a stdio server is told to stop.
      process.stdin.once('end', () => void stop('stdin closed'));
      process.stdin.once('close', () => void stop('stdin closed'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
      process.once('SIGINT', () => void stop('SIGINT'));
    });
}

/** The environment `nameOrPath` names (built-in, installed package, module file), bound to --env-args. */
async function boundEnvironment(nameOrPath: string, envArgs: string | undefined, config: CorralConfig, log: (line: string) => void): Promise<Environment> {
  const served = await loadServedEnvironments([nameOrPath], { cache: environmentCache(config), log, loadTimeoutMs: config.environments.loadTimeoutMs });
  const loaded = served.get(nameOrPath) ?? served.get(served.names().at(-1)!);
  return served.bind(loaded!.name, parseEnvironmentArgs(envArgs));
}

/**
 * What the HTTP transports count in /metrics, stdio reports on its only side channel: a call that failed as
 * infrastructure (a JSON-RPC error, not a tool's own isError result) gets one stderr line with its code.
 */
function stderrObserver(log: (line: string) => void): ToolCallObserver {
  return {
    toolCallFinished: (record) => {
      if (record.outcome === 'failed') log(`tool ${record.tool} failed after ${Math.round(record.durationMs)} ms: ${record.errorCode ?? 'INTERNAL'}`);
    },
  };
}
