/**
 * isolation.setup-idempotent: a pool that reuses sandboxes (`reuse: reset`) runs an environment's setup on a sandbox
 * that may have seen a setup before, and --resume or a retried rollout can too. So the oracle runs once more with
 * setup run twice on the same sandbox: first on a throwaway state, then on the rollout's own. The check wants the
 * second setup to succeed and the oracle to earn the same reward as in its plain run. States that differ after the
 * two setups are listed as evidence only: a state may rightly hold a per-run value (a pid, a port, a random id).
 * Environments without a setup hook pass without a run.
 */
import type { Environment } from '../runner/contract/environment.js';
import type { RolloutContext } from '../runner/contract/rollout-context.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { type CheckResult, failed, passed } from './check-report.js';

const TOLERANCE = 1e-9;

export interface DoubleSetupEnvironment {
  environment: Environment;
  /** Per example id: the state after the first setup and after the second, as JSON. */
  states: Map<string, { first: string; second: string }>;
}

const stateJson = (state: unknown): string => {
  try {
    return JSON.stringify(state) ?? 'undefined';
  } catch {
    return '(not serialisable)';
  }
};

export function doubleSetupEnvironment(environment: Environment): DoubleSetupEnvironment {
  const states = new Map<string, { first: string; second: string }>();
  const setup = environment.setup?.bind(environment);
  if (!setup) return { environment, states };
  const twice = async (context: RolloutContext<unknown, unknown>) => {
    const throwaway = environment.state ? environment.state({ example: context.example, envArgs: context.envArgs }) : {};
    await setup({ ...context, state: throwaway });
    const first = stateJson(throwaway);
    await setup(context);
    states.set(context.example.id, { first, second: stateJson(context.state) });
  };
  return { environment: Object.freeze({ ...environment, setup: twice }), states };
}

export function checkSetupIdempotent(
  hasSetup: boolean,
  plain: readonly ResultRecord[],
  twice: readonly ResultRecord[],
  states: DoubleSetupEnvironment['states'],
): CheckResult {
  if (!hasSetup) return passed('isolation.setup-idempotent', 'the environment has no setup hook', { setup: false });
  const plainReward = new Map(plain.map((record) => [record.example_id, record.reward]));
  const failedAgain = twice
    .filter((record) => record.error !== null && !plain.find((each) => each.example_id === record.example_id)?.error)
    .map((record) => ({ example: record.example_id, code: record.error!.code, message: record.error!.message.slice(0, 300) }));
  const changedState = [...states]
    .filter(([, state]) => state.first !== state.second)
    .map(([example, state]) => ({ example, first: state.first.slice(0, 300), second: state.second.slice(0, 300) }));
  const changedReward = twice
    .filter((record) => record.reward !== null && plainReward.get(record.example_id) != null)
    .filter((record) => Math.abs(record.reward! - plainReward.get(record.example_id)!) > TOLERANCE)
    .map((record) => ({ example: record.example_id, once: plainReward.get(record.example_id), twice: record.reward }));
  const evidence = { setup: true, examples: twice.length, failed_again: failedAgain, changed_state: changedState, changed_reward: changedReward };
  if (failedAgain.length > 0 || changedReward.length > 0)
    return failed(
      'isolation.setup-idempotent',
      'error',
      `setup run twice on one sandbox fails on ${failedAgain.length} and changes the oracle's reward on ${changedReward.length} examples`,
      evidence,
    );
  return passed('isolation.setup-idempotent', `setup run twice on one sandbox left the same state and reward on ${twice.length} examples`, evidence);
}
