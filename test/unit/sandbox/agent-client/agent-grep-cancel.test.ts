/**
 * grep runs in a child process the call's timeout and cancel kill: a catastrophic regex no longer pins an agent
 * thread until the sandbox dies (before, the agent checked its deadline only between lines, never inside re).
 */
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CorralError } from '../../../../src/core/errors.js';
import { startRealAgent, type RealAgent } from './agent-real-child.js';

/** Pids of grep workers searching this workspace (their cwd), read from /proc like ps would. */
function grepWorkers(workspace: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === workspace && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('grep_worker.py');
      } catch {
        return false; // exited, or not ours to read
      }
    })
    .map(Number);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('grep in a killable child process', () => {
  let agent: RealAgent | undefined;
  afterEach(() => agent?.stop());

  async function agentWithCatastrophicInput(): Promise<RealAgent> {
    agent = await startRealAgent();
    // (a+)+$ against 30,000 a's and a '!' backtracks exponentially: it would run for longer than the universe.
    writeFileSync(join(agent.workspace, 'trap.txt'), `${'a'.repeat(30_000)}!\n`);
    return agent;
  }

  it('a timeout is the agent killing the search (wire TIMEOUT), and the agent keeps serving', async () => {
    const { connection, workspace } = await agentWithCatastrophicInput();
    const error = await connection.session.files.grep({ pattern: '(a+)+$', timeoutMs: 1_000 }).catch((caught: unknown) => caught);
    expect(CorralError.hasCode(error, 'SBX_ERR_TIMEOUT')).toBe(true);
    // Answered by the agent after killing the worker, not by the host giving up HOST_MARGIN_MS later.
    expect((error as CorralError).details).toMatchObject({ wireCode: 'TIMEOUT' });
    expect(grepWorkers(workspace)).toEqual([]);
    expect((await connection.session.exec({ command: 'echo alive' })).stdout).toBe('alive\n');
  });

  it('cancelling the call kills the search process', async () => {
    const { connection, workspace } = await agentWithCatastrophicInput();
    const controller = new AbortController();
    const search = connection.session.files.grep({ pattern: '(a+)+$', timeoutMs: 60_000, abortSignal: controller.signal }).catch((caught: unknown) => caught);
    await until(() => grepWorkers(workspace).length === 1, 'the grep worker to start');
    controller.abort();
    expect(CorralError.hasCode(await search, 'ERR_ABORTED')).toBe(true);
    await until(() => grepWorkers(workspace).length === 0, 'the grep worker to be killed');
    const found = await connection.session.files.grep({ pattern: 'a!$' });
    expect(found.map((match) => match.path)).toEqual(['trap.txt']);
  });
});
