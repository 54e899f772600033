/**
 * Exit statuses of `corral eval`, so scripts and schedulers can tell a clean run from one to look at:
 *   0   complete, no rollout errored
 *   1   complete (or ended early without a cancel), with errored rollouts: the count is printed
 *   2   could not start: bad flags or config, a failed preflight check, a --resume mismatch
 *   3   stopped early by --max-errors
 *   130 cancelled (SIGINT / SIGTERM)
 */
export const EVAL_EXIT = Object.freeze({ clean: 0, errored: 1, couldNotStart: 2, maxErrors: 3, cancelled: 130 });

export type RunStatus = 'complete' | 'incomplete' | 'cancelled' | 'stopped';

export function evalExitCode(status: RunStatus, errored: number): number {
  if (status === 'stopped') return EVAL_EXIT.maxErrors;
  if (status === 'cancelled') return EVAL_EXIT.cancelled;
  return status === 'complete' && errored === 0 ? EVAL_EXIT.clean : EVAL_EXIT.errored;
}
