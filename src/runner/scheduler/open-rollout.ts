/**
 * The start every rollout shares, one role or several: open the example's rollout (the environment's own factory, or
 * one over the run's tool sessions) and run its setup. A failing setup is the environment's failure, handed to
 * `onSetupFailure` for the record; the rollout is returned open either way, so the caller's cleanup still runs.
 */
import type { EnvironmentRollout } from '../contract/environment-rollout.js';
import type { Example } from '../contract/environment.js';
import { describeFailure } from './rollout-error.js';
import type { RolloutInput } from './run-rollout.js';
import { toolSessionRollouts } from './tool-session-rollouts.js';

export async function openRolloutWithSetup(
  input: RolloutInput,
  example: Example,
  abortSignal: AbortSignal,
  onSetupFailure: (failure: ReturnType<typeof describeFailure>) => void,
): Promise<{ rollout: EnvironmentRollout; setupDone: boolean }> {
  const factory = input.rollouts ?? toolSessionRollouts(input.environment, input.tools!);
  const rollout = await factory.open({ example, abortSignal });
  try {
    await rollout.runSetup({ abortSignal });
    return { rollout, setupDone: true };
  } catch (error) {
    onSetupFailure(describeFailure(error, 'environment'));
    return { rollout, setupDone: false };
  }
}
