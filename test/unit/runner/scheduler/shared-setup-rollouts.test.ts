/**
 * The setupScope 'example' decorator's failure rules, over a scripted inner factory: a transient fault while
 * preparing is prepared again by the next open (the driver's retry), a deterministic one is not, and every rollout
 * of a group opens from the one checkpoint.
 */
import { describe, expect, it } from 'vitest';
import { CorralError } from '../../../../src/core/errors.js';
import { defineEnvironment } from '../../../../src/runner/contract/environment.js';
import type { EnvironmentRollout, EnvironmentRolloutFactory, RolloutCheckpoint } from '../../../../src/runner/contract/environment-rollout.js';
import { sharedSetupRollouts } from '../../../../src/runner/scheduler/shared-setup-rollouts.js';

const environment = defineEnvironment({
  name: 'shared',
  setupScope: 'example',
  dataset: () => [],
  rubric: [{ name: 'r', weight: 1, score: () => 1 }],
  systemPrompt: 'p',
});
const example = { id: 'e', prompt: 'go' };

/** Templates run `setups` in order (a throw per entry, or success); children record the checkpoint they opened from. */
function scriptedFactory(setups: Array<Error | null>) {
  const openedFrom: Array<RolloutCheckpoint | undefined> = [];
  let templates = 0;
  const factory: EnvironmentRolloutFactory = {
    async open({ from }) {
      if (from) {
        openedFrom.push(from);
        return { example } as EnvironmentRollout;
      }
      const failure = setups[templates++] ?? null;
      return {
        example,
        runSetup: async () => {
          if (failure) throw failure;
        },
        checkpoint: async () => ({ state: { template: templates }, sandbox: null }),
        close: async () => null,
      } as unknown as EnvironmentRollout;
    },
  };
  return { factory, openedFrom, templates: () => templates };
}

const codeOf = (error: unknown) => (CorralError.isInstance(error) ? error.code : String(error));

describe('sharedSetupRollouts', () => {
  it('opens every rollout of a planned group from one checkpoint', async () => {
    const inner = scriptedFactory([null]);
    const shared = sharedSetupRollouts(environment, inner.factory);
    shared.plan(example, 3);
    await Promise.all([shared.open({ example }), shared.open({ example }), shared.open({ example })]);
    expect(inner.templates()).toBe(1);
    expect(new Set(inner.openedFrom).size).toBe(1);
    // The group is done with it: a later open (a retry) prepares the example again.
    await shared.open({ example });
    expect(inner.templates()).toBe(2);
  });

  it('prepares again after a transient fault, never after the environment failed', async () => {
    const transient = scriptedFactory([new CorralError('SBX_ERR_CLOSED', 'sandbox died'), null]);
    const retried = sharedSetupRollouts(environment, transient.factory);
    expect(codeOf(await retried.open({ example }).catch((error: unknown) => error))).toBe('SBX_ERR_CLOSED');
    await retried.open({ example });
    expect(transient.templates()).toBe(2);
    expect(transient.openedFrom).toHaveLength(1);

    const broken = scriptedFactory([new CorralError('ENV_ERR_SETUP_FAILED', 'fixture missing'), null]);
    const kept = sharedSetupRollouts(environment, broken.factory);
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(codeOf(await kept.open({ example }).catch((error: unknown) => error))).toBe('ENV_ERR_SETUP_FAILED');
    }
    expect(broken.templates()).toBe(1);
  });
});
