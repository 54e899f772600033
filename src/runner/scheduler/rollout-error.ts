import { CorralError } from '../../core/errors.js';
import type { FailureBoundary, RolloutFailure } from '../trajectory/trajectory.js';

/** The environment's own code failed: its hooks, state(), stop predicates or respond (dataset errors keep the caller's boundary). */
const ENVIRONMENT_CODES: ReadonlySet<string> = new Set([
  'ENV_ERR_SETUP_FAILED',
  'ENV_ERR_CLEANUP_FAILED',
  'ENV_ERR_STOP_PREDICATE_FAILED',
  'ENV_ERR_RESPOND_FAILED',
  'ENV_ERR_FORK_STATE_FAILED',
  'ENV_ERR_INVALID_ARGS',
  // A model-free agent the environment module ships, using the agent API wrongly.
  'AGENT_ERR_MISUSE',
]);

/** Turns any thrown value into the one failure a rollout records, blamed on one boundary. */
export function describeFailure(error: unknown, fallbackBoundary: FailureBoundary): RolloutFailure {
  if (CorralError.isInstance(error)) {
    const boundary: FailureBoundary = error.code.startsWith('MODEL_')
      ? 'model'
      : error.code.startsWith('SBX_') || error.code.startsWith('POOL_')
        ? 'sandbox'
        : error.code.startsWith('TOOL_')
          ? 'tool'
          : error.code.startsWith('RUNNER_')
            ? 'runner'
            : ENVIRONMENT_CODES.has(error.code)
              ? 'environment'
              : fallbackBoundary;
    return { boundary, code: error.code, message: error.message, transient: error.transient };
  }
  const details = error as { code?: unknown; data?: { corralCode?: unknown; transient?: unknown } };
  if (typeof details?.data?.corralCode === 'string') {
    // An infrastructure fault reported by an MCP server (possibly on another machine) as a JSON-RPC error.
    const code = details.data.corralCode;
    return {
      boundary: code.startsWith('SBX_') || code.startsWith('POOL_') ? 'sandbox' : 'tool',
      code,
      message: (error as Error).message,
      transient: details.data.transient === true,
    };
  }
  // A rubric function that throws is the environment's fault, not the runner's: it gets its own code.
  return {
    boundary: fallbackBoundary,
    code: fallbackBoundary === 'rubric' ? 'RUBRIC_ERR_FAILED' : 'RUNNER_ERR_UNEXPECTED',
    message: error instanceof Error ? error.message : String(error),
    transient: false,
  };
}
