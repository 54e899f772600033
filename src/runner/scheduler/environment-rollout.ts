/**
 * The runner half of an EnvironmentRollout: state, setup, stop check, the environment's replies, scoring and cleanup
 * over a tool session and a sandbox that the serving side opened (cli/runtime/environment-rollouts.ts). Keeps the
 * ordering rules in one place for corral eval, POST /v1/rollouts and the episode API: setup once before the first turn, cleanup
 * once and always, the sandbox released last.
 */
import { CorralError } from '../../core/errors.js';
import { readAnswer } from '../contract/answer-parser.js';
import type { Environment, Example } from '../contract/environment.js';
import type { EnvironmentRollout, EnvironmentScore, RolloutCheckpoint } from '../contract/environment-rollout.js';
import type { EnvironmentSandbox, RolloutContext } from '../contract/rollout-context.js';
import type { ToolSession } from '../contract/tool-session.js';
import { scoreRubric } from '../rubrics/rubric.js';
import type { ChatMessage } from '../trajectory/messages.js';
import type { Trajectory } from '../trajectory/trajectory.js';
import { callRespond } from './environment-respond.js';

/** Cleanup gets this long whatever happened to the rollout. */
export const CLEANUP_TIMEOUT_MS = 60_000;

export interface EnvironmentRolloutParts {
  environment: Environment;
  example: Example;
  /** The state object the tools were bound to (create it with initialRolloutState). */
  state: unknown;
  tools: ToolSession;
  sandbox: EnvironmentSandbox;
  /** Host folder of the agent's sockets for this rollout (AgentSandboxNeeds.socketsTarget); removed by release(). */
  agentSocketsDirectory?: string | null;
  /** Fires when the rollout is cancelled; setup and cleanup see it. */
  abortSignal?: AbortSignal;
  /** Releases the sandbox and anything else the serving side holds, after the tool session closed. */
  release(): Promise<void>;
  /** Started from a checkpoint (setupScope 'example'): setup already ran in the checkpoint's rollout. */
  setupDone?: boolean;
  /** Snapshots the rollout's general sandbox, or null when none was leased (checkpoint()). */
  snapshotSandbox?(options: { abortSignal?: AbortSignal }): Promise<RolloutCheckpoint['sandbox']>;
}

/**
 * A copy of a state for another rollout (setupScope 'example', an episode fork): the environment's forkState, else
 * structuredClone. Throws ENV_ERR_FORK_STATE_FAILED when forkState throws or structuredClone refuses the state.
 */
export function copyRolloutState(environment: Environment, state: unknown): unknown {
  try {
    return environment.forkState ? environment.forkState(state) : structuredClone(state);
  } catch (error) {
    const how = environment.forkState ? 'its forkState hook threw' : 'structuredClone refused it';
    throw new CorralError(
      'ENV_ERR_FORK_STATE_FAILED',
      `environment ${environment.name}: copying its state into another rollout failed: ${how} (${(error as Error).message}); keep state to plain data, or define forkState(state)`,
      { cause: error, details: { hook: 'forkState' } },
    );
  }
}

/** A fresh per-rollout state: the environment's state() or `{}`. Throws ENV_ERR_SETUP_FAILED when state() throws. */
export function initialRolloutState(environment: Environment, example: Example): unknown {
  try {
    return environment.state ? environment.state({ example, envArgs: environment.envArgs }) : {};
  } catch (error) {
    throw new CorralError('ENV_ERR_SETUP_FAILED', `environment ${environment.name}: state() failed for example ${example.id}: ${(error as Error).message}`, {
      cause: error,
      details: { example: example.id, hook: 'state' },
    });
  }
}

export function createEnvironmentRollout(parts: EnvironmentRolloutParts): EnvironmentRollout {
  const { environment, example, tools, sandbox, state } = parts;
  const context = (abortSignal: AbortSignal | undefined): RolloutContext<unknown, unknown> => ({
    example,
    state,
    envArgs: environment.envArgs,
    sandbox,
    abortSignal: abortSignal ?? parts.abortSignal ?? new AbortController().signal,
  });
  let setup: Promise<void> | undefined = parts.setupDone ? Promise.resolve() : undefined;
  let closing: Promise<Error | null> | undefined;
  return {
    example,
    state,
    envArgs: environment.envArgs,
    tools,
    sandbox,
    agentSocketsDirectory: parts.agentSocketsDirectory ?? null,
    runSetup(options = {}) {
      setup ??= runHook(environment, 'setup', context(options.abortSignal));
      return setup;
    },
    responds: environment.respond !== undefined,
    respond({ messages, turn, role, nextRole }, options = {}) {
      return callRespond(environment, { ...context(options.abortSignal), messages, turn, ...(role === undefined ? {} : { role, nextRole }) });
    },
    async checkpoint(options = {}): Promise<RolloutCheckpoint> {
      await (setup ?? Promise.reject(new CorralError('RUNNER_ERR_UNEXPECTED', 'checkpoint() before runSetup()')));
      const copied = copyRolloutState(environment, state);
      const snapshot = parts.snapshotSandbox ? await parts.snapshotSandbox(options.abortSignal ? { abortSignal: options.abortSignal } : {}) : null;
      return Object.freeze({ state: copied, sandbox: snapshot });
    },
    shouldStop(trajectory) {
      for (const predicate of environment.stopWhen) {
        let holds: boolean;
        try {
          holds = predicate({ trajectory, example, state, parser: environment.parser });
        } catch (error) {
          throw new CorralError('ENV_ERR_STOP_PREDICATE_FAILED', `environment ${environment.name}: a stop predicate threw: ${(error as Error).message}`, {
            cause: error,
          });
        }
        if (holds) return true;
      }
      return false;
    },
    async score(input, options = {}): Promise<EnvironmentScore> {
      const trajectory = 'trajectory' in input ? input.trajectory : trajectoryOfCompletion(input.completion);
      const { text, parsed } = readAnswer(environment.parser, trajectory.answer);
      const scored = await scoreRubric(environment.rubric, {
        example,
        trajectory: { ...trajectory, answer: text },
        tools,
        state,
        parsedAnswer: parsed,
        rawAnswer: trajectory.answer,
        ...(input.role === undefined ? {} : { role: input.role }),
        ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      });
      return { ...scored, answer: text };
    },
    close() {
      closing ??= (async () => {
        let failure: Error | null = null;
        try {
          // Its own deadline: cleanup also runs after a cancel, when the rollout's signal has already fired.
          await runHook(environment, 'cleanup', context(AbortSignal.timeout(CLEANUP_TIMEOUT_MS)));
        } catch (error) {
          failure = error as Error;
        }
        await tools.close().catch(() => undefined);
        await parts.release().catch(() => undefined);
        return failure;
      })();
      return closing;
    },
  };
}

async function runHook(environment: Environment, hook: 'setup' | 'cleanup', context: RolloutContext<unknown, unknown>): Promise<void> {
  const run = environment[hook];
  if (!run) return;
  try {
    await run.call(environment, context);
  } catch (error) {
    // A sandbox that died or a pool that is exhausted is infrastructure, whoever called it.
    if (CorralError.isInstance(error) && error.audience === 'infrastructure' && !error.code.startsWith('ENV_')) throw error;
    const code = hook === 'setup' ? 'ENV_ERR_SETUP_FAILED' : 'ENV_ERR_CLEANUP_FAILED';
    throw new CorralError(code, `environment ${environment.name}: ${hook} failed for example ${context.example.id}: ${(error as Error).message}`, {
      cause: error,
      details: { example: context.example.id, hook },
    });
  }
}

/** The episode API scores a completion its trainer produced: as a trajectory, that text is the last assistant message. */
function trajectoryOfCompletion(completion: string | ChatMessage[]): Trajectory {
  const messages: ChatMessage[] = typeof completion === 'string' ? [{ role: 'assistant', content: completion }] : completion;
  const last = [...messages].reverse().find((message) => message.role === 'assistant');
  const answer = last && typeof last.content === 'string' ? last.content : null;
  return {
    completion: messages,
    answer,
    events: [],
    toolCalls: [],
    turns: messages.filter((message) => message.role === 'assistant').length,
    tokens: [],
    failure: null,
  };
}
