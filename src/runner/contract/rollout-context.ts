/**
 * What an environment's own code sees during one rollout: its setup and cleanup hooks, its custom tools and its
 * stop predicates. One context per rollout: `state` is never shared between two rollouts, and `sandbox` is the
 * same sandbox the built-in tools of that rollout use (leased lazily, on the first call that needs it).
 */
import type { ToolSandbox } from '../../tools/tool-sandbox.js';
import type { Example } from './environment.js';

/**
 * The rollout's restricted sandbox surface, the same one its tools get (src/tools/tool-sandbox.ts): nothing is leased
 * until a method is first called; infrastructure faults throw CorralErrors with SBX_/POOL_ codes.
 */
export type EnvironmentSandbox = ToolSandbox;

export interface RolloutContext<State = Record<string, unknown>, Args = Record<string, unknown>> {
  readonly example: Example;
  /** Per-rollout, mutable, created by the environment's `state()` (default `{}`). */
  readonly state: State;
  /** The validated environment arguments (`--env-args`, the episode's env_args). */
  readonly envArgs: Args;
  readonly sandbox: EnvironmentSandbox;
  /** Fires when the rollout is cancelled or exceeds its deadline (in a tool: when the call is cancelled). */
  readonly abortSignal: AbortSignal;
}
