/**
 * import() of a user's module (an environment, its agents) with a deadline. A module whose top-level await never
 * settles would otherwise hang `corral env show` and `corral serve --env` for ever, and a SIGHUP reload would block
 * every later reload behind it. The import itself cannot be cancelled (Node has no way to), so it is abandoned: the
 * caller gets ENV_ERR_LOAD_TIMEOUT and goes on; the half-loaded module is never used.
 */
import { CorralError } from '../../core/errors.js';

/** The default of config key environments.loadTimeoutMs. */
export const DEFAULT_MODULE_LOAD_TIMEOUT_MS = 60_000;

export async function importWithTimeout<T>(url: string, path: string, timeoutMs: number = DEFAULT_MODULE_LOAD_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new CorralError(
          'ENV_ERR_LOAD_TIMEOUT',
          `module ${path} did not finish loading within ${timeoutMs / 1000} s (a top-level await that never settles?); raise environments.loadTimeoutMs (CORRAL_ENV_LOAD_TIMEOUT_MS) if it is only slow`,
          { details: { path, timeoutMs } },
        ),
      );
    }, timeoutMs);
    // The abandoned import must not keep a CLI that is done alive just for this timer.
    timer.unref();
  });
  try {
    return (await Promise.race([import(url) as Promise<T>, deadline])) as T;
  } finally {
    clearTimeout(timer);
  }
}
