import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { CATALOG_ENTRY_NAMES } from '../../mcp/tool-catalog.js';
import type { ToolCallObserver } from '../../mcp/tool-call-observer.js';
import { serveMessageStream } from '../../mcp/message-stream-serving.js';
import { startToolRuntime } from '../runtime/tool-runtime.js';

interface McpFlags {
  backend?: string;
  corpus?: string[];
  dataDir?: string;
}

/**
 * `corral mcp <env>`: one environment over stdio for desktop clients and CLI agents, with one set of
 * sandboxes for the process lifetime. stdout carries MCP and nothing else; every log line goes to stderr.
 */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(`serve one environment (${CATALOG_ENTRY_NAMES.join(', ')}) as an MCP server over stdio`)
    .argument('<env>', 'environment name')
    .option('--backend <backend>', 'sandbox backend for python/shell/files: docker | process | auto (CORRAL_BACKEND)')
    .option('--corpus <path...>', 'wiki corpora (default: wiki/*/pages.jsonl under CORRAL_DATA_DIR)')
    .option('--data-dir <dir>', 'evaluation data directory (CORRAL_DATA_DIR)')
    .action(async (environmentName: string, flags: McpFlags) => {
      // Any stray console.log (ours or a dependency's) would corrupt the JSON-RPC stream.
      console.log = console.info = console.debug = console.error;
      const log = (line: string) => process.stderr.write(`[corral mcp] ${line}\n`);
      const { corpus, ...configFlags } = flags;
      const config = loadConfig({ flags: configFlags });
      const runtime = await startToolRuntime(config, {
        corpusPaths: corpus,
        minIdle: 0,
        loadWiki: environmentName === 'wiki' || environmentName === 'all',
        log,
      });
      const environment = runtime.catalog.get(environmentName);
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
