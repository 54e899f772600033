import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { CorralError } from '../../core/errors.js';
import { buildViewerServer } from '../../http/viewer-server.js';
import { listenOrExplain } from './listen-or-explain.js';

interface ViewFlags {
  host: string;
  port?: string;
  token?: string;
  allowedHost?: string[];
}

const FIRST_PORT = 7780;
const PORTS_TRIED = 20;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i;

/**
 * `corral view [DIR]`: the run viewer on 127.0.0.1, the first free port from 7780 (or --port); prints the URL,
 * opens nothing. Bound beyond loopback its API wants a bearer token (--token, CORRAL_TOKEN, or one made up here),
 * printed in the URL's #token= fragment, which the page keeps and sends.
 */
export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description('browse runs in a local web page: runs, rollouts, comparisons, live runs (default DIR: runs/)')
    .argument('[dir]', 'folder holding the runs', 'runs')
    .option('--host <host>', 'interface to bind; beyond loopback a token is required (printed in the URL)', '127.0.0.1')
    .option('--port <port>', `port (default: the first free one from ${FIRST_PORT})`)
    .option('--token <token>', 'require Authorization: Bearer <token> on the API (CORRAL_TOKEN; made up when --host is not loopback)')
    .option('--allowed-host <name...>', 'also accept these names in Host and Origin (a DNS name or proxy the viewer is reached through)')
    .action(async (dir: string, flags: ViewFlags) => {
      const root = resolve(dir);
      if (!existsSync(root) || !statSync(root).isDirectory()) throw new CorralError('VIEW_ERR_NOT_FOUND', `${root} is not a folder of runs`);
      const token = flags.token ?? (process.env.CORRAL_TOKEN || undefined) ?? (LOOPBACK.test(flags.host) ? undefined : randomBytes(24).toString('base64url'));
      const app = buildViewerServer({ root, host: flags.host, allowedHosts: flags.allowedHost ?? [], ...(token ? { token } : {}) });
      const address = await listenFirstFree(app, flags);
      process.stdout.write(`corral view: ${root} at ${address}/${token ? `#token=${encodeURIComponent(token)}` : ''}\n`);
      const stop = async () => {
        await app.close();
        process.exit(0);
      };
      process.once('SIGTERM', () => void stop());
      process.once('SIGINT', () => void stop());
    });
}

async function listenFirstFree(app: ReturnType<typeof buildViewerServer>, flags: ViewFlags): Promise<string> {
  const none = async () => undefined;
  if (flags.port !== undefined) return listenOrExplain(app, { host: flags.host, port: Number(flags.port) }, none);
  for (let port = FIRST_PORT; port < FIRST_PORT + PORTS_TRIED; port++) {
    try {
      return await app.listen({ host: flags.host, port });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  return listenOrExplain(app, { host: flags.host, port: 0 }, none);
}
