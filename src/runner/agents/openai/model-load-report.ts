/**
 * What the model client tells the admission controller (runner/run/admission) about each request attempt: its
 * latency, and whether the endpoint was overloaded (429, 503, 504), timed out or simply answered. Reported to the
 * observer of the rollout's run, if any; a JSON body that does not parse still counts as an answer (load-wise).
 */
import { reportLoad } from '../../run/admission/load-signals.js';
import type { ModelAttemptFailure } from './model-error.js';

const OVERLOAD_STATUSES = new Set([429, 503, 504]);

export function reportModelAttempt<T extends { body: unknown } | { failure: ModelAttemptFailure }>(outcome: T, startedAtMs: number): T {
  const latencyMs = performance.now() - startedAtMs;
  if (!('failure' in outcome)) {
    reportLoad({ kind: 'model-call', outcome: 'ok', startedAtMs, latencyMs });
    return outcome;
  }
  const { failure } = outcome;
  const kind =
    failure.status !== undefined && OVERLOAD_STATUSES.has(failure.status) ? 'overloaded' : failure.code === 'MODEL_ERR_TIMEOUT' ? 'timeout' : 'failed';
  reportLoad({ kind: 'model-call', outcome: kind, startedAtMs, latencyMs });
  return outcome;
}
