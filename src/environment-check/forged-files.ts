/**
 * isolation.verifier-trusts-agent-files, for terminal tasks: the verifier runs on the agent's final file system, so
 * any path the tests read outside their own folders (/tests, /logs) is one the agent could have written. Most such
 * paths are the work itself (the task asks for /app/hello.txt), which no static rule can tell from a verdict the
 * tests merely trust (a marker, a status file, a script they run). So the check forges: a do-nothing agent creates
 * every path the tests mention that does not exist when it starts, each holding a small shell script that exits 0
 * and says PASS, OK, true, success and 1. A verifier that pays for that more than for doing nothing trusts a file's
 * existence or contents it never checks, which any agent can forge without doing the task.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TerminalTask } from '../terminal/terminal-task.js';
import type { TrialAgent, TrialAgentOutcome } from '../terminal/trial/trial-agent.js';

/** What every forged file holds: passes as a marker, a grep for a pass word, a number 1, and a script that succeeds. */
export const FORGED_CONTENT = '#!/bin/sh\n# corral-forged: PASS OK true success 1\nexit 0\n';

/** Folders the trial machinery owns (fresh volumes for the verifier) or the system provides: never candidates. */
const EXCLUDED_ROOTS = ['tests', 'logs', 'usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'etc', 'proc', 'sys', 'dev', 'run', 'boot', 'solution'];
/** A test file larger than this is data, not code that names paths. */
const MAX_SCANNED_BYTES = 1024 * 1024;
/** An absolute path not preceded by a name, a scheme or a template (so URLs, $HOME/x and {dir}/x are skipped). */
const ABSOLUTE_PATH = /(?<![\w.$:/}-])\/(?:[A-Za-z0-9._-]+\/)*[A-Za-z0-9._-]+/g;
const MAX_CANDIDATES = 40;

/** The absolute paths a task's test script and tests/ files mention that an agent could have written. */
export async function forgeryCandidates(task: TerminalTask): Promise<string[]> {
  const files = [task.testScript, ...(await filesUnder(task.testsDirectory))];
  const found = new Set<string>();
  for (const file of [...new Set(files)]) {
    const info = await stat(file).catch(() => null);
    if (!info || !info.isFile() || info.size > MAX_SCANNED_BYTES) continue;
    const text = await readFile(file, 'utf8');
    if (text.includes('\u0000')) continue;
    for (const match of text.matchAll(ABSOLUTE_PATH)) {
      const path = match[0].replace(/\.+$/, '');
      const root = path.split('/')[1] ?? '';
      if (path.length > 1 && !EXCLUDED_ROOTS.includes(root)) found.add(path);
    }
  }
  return [...found].sort().slice(0, MAX_CANDIDATES);
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The forging floor: does none of the task, only creates each candidate path that is missing (as the agent's user,
 * so only what the agent could write), and reports the paths it planted through `planted`.
 */
export function forgingNopAgent(candidatesByTask: ReadonlyMap<string, readonly string[]>, planted: Map<string, string[]>): TrialAgent {
  return {
    name: 'nop-forging',
    model: 'nop-forging',
    async run(context): Promise<TrialAgentOutcome> {
      const candidates = candidatesByTask.get(context.task.name) ?? [];
      if (candidates.length === 0) {
        planted.set(context.task.name, []);
        return { exitCode: null, summary: 'nothing to forge' };
      }
      const content = shellQuote(FORGED_CONTENT);
      const script = candidates
        .map((path) => {
          const quoted = shellQuote(path);
          return `if [ ! -e ${quoted} ] && mkdir -p "$(dirname ${quoted})" 2>/dev/null && printf '%s' ${content} > ${quoted} 2>/dev/null; then chmod 755 ${quoted}; echo ${quoted}; fi`;
        })
        .join('\n');
      const result = await context.exec(script);
      const paths = result.stdout.split('\n').filter((line) => line.startsWith('/'));
      planted.set(context.task.name, paths);
      return { exitCode: result.exitCode, summary: paths.length > 0 ? `forged ${paths.join(', ')}` : 'nothing to forge' };
    },
  };
}
