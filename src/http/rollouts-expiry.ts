/**
 * The stale-work policy of one POST /v1/rollouts request: its `deadline` (an ISO 8601 time) and its `max_staleness`
 * (policy steps past its `policy_step`, on the clock of its `policy`). Once either says the request's rollouts can no
 * longer make it, the expiry's signal fires and the service cancels every rollout not yet streamed: those waiting
 * never start, those running are aborted (sandboxes released), and none is ever recorded as scored.
 */
import { CorralError } from '../core/errors.js';
import type { CancelReason, RolloutExpiry, RolloutRequest } from './rollouts-contract.js';
import { DEFAULT_POLICY, type PolicyStepClocks } from './rollouts-policy-steps.js';

/** setTimeout's longest delay (about 24.8 days): a later deadline re-arms the timer on the way. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DisposableExpiry extends RolloutExpiry {
  /** Stops the timer and the clock subscription (the request is over). */
  dispose(): void;
}

/** The request's expiry, or undefined when it gives neither a deadline nor a maximum staleness. */
export function requestExpiry(request: RolloutRequest, clocks: PolicyStepClocks, principal: string): DisposableExpiry | undefined {
  const deadlineMs = request.deadline === undefined ? undefined : Date.parse(request.deadline);
  const policy = request.policy ?? DEFAULT_POLICY;
  const policyStep = request.policy_step;
  const maxStaleness = request.max_staleness;
  const watchesSteps = maxStaleness !== undefined && policyStep !== undefined;
  if (deadlineMs === undefined && !watchesSteps) return undefined;
  const controller = new AbortController();
  let reason: CancelReason | undefined;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  const dispose = () => {
    clearTimeout(timer);
    unsubscribe?.();
  };
  const expire = (why: CancelReason) => {
    if (reason) return;
    reason = why;
    dispose();
    const message =
      why === 'deadline'
        ? `the request's deadline ${request.deadline} passed`
        : `policy '${policy}' moved more than ${maxStaleness} step(s) past ${policyStep}`;
    controller.abort(new CorralError('RUNNER_ERR_CANCELLED', `${message}: unfinished rollouts are cancelled`));
  };
  const stale = (step: number | undefined) => policyStep !== undefined && maxStaleness !== undefined && step !== undefined && step - policyStep > maxStaleness;
  const check = (): CancelReason | undefined => {
    if (reason) return reason;
    if (deadlineMs !== undefined && Date.now() >= deadlineMs) expire('deadline');
    else if (stale(clocks.current(principal, policy))) expire('stale');
    return reason;
  };
  const arm = () => {
    const delayMs = deadlineMs! - Date.now();
    if (delayMs <= 0) return expire('deadline');
    timer = setTimeout(arm, Math.min(delayMs, MAX_TIMER_MS));
  };
  if (watchesSteps)
    unsubscribe = clocks.subscribe(principal, policy, (step) => {
      if (stale(step)) expire('stale');
    });
  if (check() === undefined && deadlineMs !== undefined) arm();
  return {
    signal: controller.signal,
    check,
    details: () =>
      reason === 'deadline'
        ? { deadline: request.deadline }
        : { policy, policy_step: policyStep, current_step: clocks.current(principal, policy) ?? null, max_staleness: maxStaleness },
    dispose,
  };
}
