/**
 * The agent serves calls from a bounded pool (a fixed number of worker threads and a queue with a maximum depth)
 * instead of a thread per request: a flood of calls is refused with a clear "busy" error, not met with threads
 * until the pids limit (shared with user code) runs out, and the agent keeps serving afterwards.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CorralError } from '../../../../src/core/errors.js';
import { startRealAgent, type RealAgent } from './agent-real-child.js';

const FLOOD = 400; // well above the agent's 32 workers + 256 queued

describe('bounded request pool', () => {
  let agent: RealAgent | undefined;
  afterEach(() => agent?.stop());

  it('refuses calls past the queue with a busy error, runs the accepted ones, and keeps serving', async () => {
    agent = await startRealAgent();
    const { session } = agent.connection;
    const blocker = new AbortController();
    // The first cell holds the REPL, so every later python call occupies a worker (waiting) or a queue slot.
    const first = session.python({ code: 'import time; time.sleep(120)', timeoutMs: 150_000, abortSignal: blocker.signal }).catch(() => 'aborted');
    const refusals: string[] = [];
    const outcomes = Array.from({ length: FLOOD }, () =>
      session.python({ code: '1', timeoutMs: 150_000 }).then(
        (result) => result.value,
        (error: unknown) => {
          if (CorralError.hasCode(error, 'SBX_ERR_INTERNAL')) refusals.push(error.message);
          return 'refused';
        },
      ),
    );
    for (let attempt = 0; attempt < 400 && refusals.length === 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.every((message) => message.includes('the agent is busy'))).toBe(true);

    blocker.abort(); // cancel kills the long cell; the queued cells then run one after another
    await first;
    const values = await Promise.all(outcomes);
    expect(values.filter((value) => value === '1').length + refusals.length).toBe(FLOOD);
    expect(values.filter((value) => value === '1').length).toBeGreaterThan(0);
    expect((await session.exec({ command: 'echo served' })).stdout).toBe('served\n');
  }, 120_000);
});
