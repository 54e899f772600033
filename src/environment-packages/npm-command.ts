/**
 * npm in the environment cache prefix. Install scripts never run (--ignore-scripts): an environment package is
 * code corral imports, but installing it must not execute anything on the host by itself (docs/security.md).
 */
import { runNpm as runCorralNpm } from '../core/npm-command.js';

/** An install that takes longer than this is stuck (a registry that never answers); npm is killed. */
const NPM_TIMEOUT_MS = 10 * 60_000;

export const NPM_INSTALL_FLAGS = ['--save-exact', '--ignore-scripts', '--no-audit', '--no-fund', '--install-links', '--omit=peer', '--omit=dev'];

export function runNpm(args: string[], options: { cwd: string; what: string }): Promise<string> {
  return runCorralNpm(args, { ...options, errorCode: 'ENV_ERR_INSTALL_FAILED', timeoutMs: NPM_TIMEOUT_MS });
}
