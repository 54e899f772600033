/**
 * Sandbox defaults that more than one room needs (the config schema, the sandbox spec, the pool, the process
 * backend): each is written here once, so a change reaches every place that falls back to it.
 */
/** The image Docker sandboxes run unless a spec or the config names another. */
export const DEFAULT_SANDBOX_IMAGE = 'corral/python:latest';
/** How long acquire() waits in the pool's FIFO queue before POOL_ERR_ACQUIRE_TIMEOUT. */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 60_000;
/** Idle sandboxes above minIdle are destroyed once idle this long. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** The unprivileged uid (and gid) process-backend sandboxes run as; never 0. */
export const DEFAULT_SANDBOX_UID = 58_000;

/** Most sandboxes per spec (idle + leased + being created): a cap, not an allocation. */
export const DEFAULT_POOL_MAX = 256;
