import type { Command } from 'commander';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { loadConfig } from '../../config/load-config.js';
import { createToolServer } from '../../mcp/create-tool-server.js';
import { ENVIRONMENT_NAMES } from '../../mcp/environments.js';
import { LazySandboxes } from '../../mcp/lazy-sandboxes.js';
import { startToolRuntime } from './tool-runtime.js';

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
    .description(`serve one environment (${ENVIRONMENT_NAMES.join(', ')}) as an MCP server over stdio`)
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
      const runtime = await startToolRuntime(config, { corpusPaths: corpus, minIdle: 0, loadWiki: environmentName === 'wiki' || environmentName === 'all', log });
      const environment = runtime.catalog.get(environmentName);
      if (!environment) {
        log(`no environment named ${environmentName}; available here: ${runtime.catalog.names().join(', ')}`);
        await runtime.close();
        process.exitCode = 2;
        return;
      }
      const sandboxes = new LazySandboxes(runtime.sandboxSource);
      const served = serveStdio(
        () => createToolServer({ tools: environment.tools, sandboxSource: sandboxes, instructions: environment.instructions, onCallStart: () => sandboxes.beginCall() }),
        { onerror: (error) => log(`mcp: ${error.message}`) },
      );
      log(`serving ${environment.name} (backend ${runtime.backend})`);
      let stopping = false;
      const stop = async (reason: string) => {
        if (stopping) return;
        stopping = true;
        log(`${reason}: releasing sandboxes`);
        await served.close().catch(() => undefined);
        await sandboxes.release();
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
