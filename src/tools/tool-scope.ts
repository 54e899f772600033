/**
 * The scope of a tool call: the example, the rollout's state and the environment arguments. A rollout or an episode
 * binds its own; an endpoint with no example chosen (/mcp/<env>, the built-in catalog entries) gets an absent example.
 */
import { CorralError } from '../core/errors.js';

/** The example a call belongs to (runner/contract's Example, as far as a tool may rely on it). */
export interface ToolExample {
  readonly id: string;
  /** The user turn, or a full message list. */
  readonly prompt: string | readonly unknown[];
  readonly answer?: unknown;
  readonly info?: Record<string, unknown>;
}

export interface ToolScope<State = Record<string, unknown>, Args = Record<string, unknown>> {
  readonly example: ToolExample;
  /** Per rollout, mutable, created by the environment's `state()` (default `{}`). */
  readonly state: State;
  /** The validated environment arguments (`--env-args`, the episode's env_args). */
  readonly envArgs: Args;
}

/**
 * What a tool (and state()) sees as its example where no task was chosen: reading any field throws
 * ENV_ERR_NO_EXAMPLE, a model-audience error the call reports as its result. An empty example instead made a tool
 * that compares with example.answer answer plausibly wrong ("wrong", against undefined). `refusal()` is the error
 * thrown, if any, so a caller can report it in place of a wrapper.
 */
export function absentExample(): { example: ToolExample; refusal: () => CorralError | undefined } {
  let refusal: CorralError | undefined;
  const example = new Proxy(Object.freeze({}) as ToolExample, {
    get(_target, property) {
      // Symbols (inspection, iteration) and `then` (await of the context) are not reads of the example's content.
      if (typeof property === 'symbol' || property === 'then' || property === 'toJSON') return undefined;
      refusal ??= new CorralError(
        'ENV_ERR_NO_EXAMPLE',
        `this tool reads the example (example.${property}), and a session at /mcp/<env> has no example; call it inside an episode (POST /v1/episodes with an example_id) or a rollout, where the example is known`,
        { details: { field: property } },
      );
      throw refusal;
    },
  });
  return { example, refusal: () => refusal };
}

/** The scope of a call outside any environment: no example, an empty state, no arguments. */
export function unscopedToolScope(): ToolScope<unknown, unknown> {
  return { example: absentExample().example, state: {}, envArgs: {} };
}
