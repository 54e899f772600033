/**
 * Before --resume writes anything: refuses a run another live corral on this host is still writing (two writers
 * would duplicate rollouts and remove each other's trial folders), and says what it assumes about a writer it cannot
 * check. Every kind of run (local, queued, terminal) asks here.
 */
import { CorralError } from '../../core/errors.js';
import { runLiveness } from '../../runner/run/run-liveness.js';

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
