/** Server-requested waits (Retry-After) are honoured up to this long; beyond it a rollout would look hung. */
export const RETRY_AFTER_CAP_MS = 60_000;
