/**
 * Who is writing a run: metadata.json names the pid and host of the `corral eval` that has it open (status
 * "running"). A run found "running" whose process is gone was interrupted (SIGKILL, a crash, a lost node);
 * one whose process is alive on this host must not be resumed alongside it.
 */
import { hostname } from 'node:os';
import { CorralError } from '../../core/errors.js';
import { isProcessAlive } from '../../core/process-alive.js';

export interface RunWriter {
  pid: number;
  hostname: string;
}

export const thisWriter = (): RunWriter => ({ pid: process.pid, hostname: hostname() });

export type RunLiveness =
  { state: 'not-running' } | { state: 'interrupted'; writer: RunWriter } | { state: 'active'; writer: RunWriter } | { state: 'unknown'; writer: RunWriter };

export function runLiveness(metadata: Record<string, unknown> | null): RunLiveness {
  if (metadata?.status !== 'running') return { state: 'not-running' };
  const writer = { pid: Number(metadata.pid), hostname: String(metadata.hostname ?? '') };
  if (!Number.isInteger(writer.pid) || writer.pid <= 0) return { state: 'interrupted', writer };
  if (writer.hostname !== hostname()) return { state: 'unknown', writer };
  return isProcessAlive(writer.pid) && writer.pid !== process.pid ? { state: 'active', writer } : { state: 'interrupted', writer };
}

/**
 * Before --resume writes anything: refuses a run another live corral on this host is still writing (two writers would
 * duplicate rollouts), and says what it assumes about one it cannot check. Every run kind (local, queued, terminal) asks here.
 */
export function refuseActiveRun(previous: Record<string, unknown> | null, directory: string, log: (line: string) => void): void {
  const liveness = runLiveness(previous);
  if (liveness.state === 'active') {
    throw new CorralError(
      'RUNNER_ERR_RUN_ACTIVE',
      `--resume ${directory}: corral eval pid ${liveness.writer.pid} on this host is still writing this run; wait for it, or stop it first`,
      { details: { ...liveness.writer } },
    );
  }
  if (liveness.state === 'interrupted')
    log(`resuming an interrupted run: pid ${liveness.writer.pid} on ${liveness.writer.hostname} stopped while the run was still running`);
  if (liveness.state === 'unknown')
    log(`warning: this run was last written by pid ${liveness.writer.pid} on ${liveness.writer.hostname}; make sure it is no longer running there`);
}
