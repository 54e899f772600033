/**
 * setupScope 'example': the environment's setup runs once per example, in one rollout opened only for it (the
 * template), and every rollout of the group opens from that template's checkpoint: a copy of its state and a fork of
 * its sandbox's files. The template is closed (cleanup runs, its sandbox goes back) as soon as its checkpoint is
 * taken, so it holds no pool capacity while the group runs. A setup that fails for the environment's own reasons
 * fails every rollout of the group with that one error (setup is not run again); a transient infrastructure fault
 * is forgotten, so the driver's retry of a rollout prepares the example again.
 */
import { raceAbort } from '../../core/abort.js';
import { CorralError } from '../../core/errors.js';
import type { Environment, Example } from '../contract/environment.js';
import type { EnvironmentRolloutFactory, RolloutCheckpoint } from '../contract/environment-rollout.js';

interface PreparedExample {
  checkpoint: Promise<RolloutCheckpoint>;
  /** Rollouts of the group still to open from it; unknown (Infinity) until the driver plans the group. */
  remaining: number;
}

export interface SharedSetupRollouts extends EnvironmentRolloutFactory {
  /** The driver's plan of a group: how many rollouts will open from this example's checkpoint. */
  plan(example: Example, rollouts: number): void;
  /** Forgets every checkpoint and stops templates still preparing (the run ended). */
  clear(): void;
}

export function sharedSetupRollouts(environment: Environment, inner: EnvironmentRolloutFactory): SharedSetupRollouts {
  const prepared = new Map<string, PreparedExample>();
  let lifetime = new AbortController();

  const prepare = async (example: Example, signal: AbortSignal): Promise<RolloutCheckpoint> => {
    // The template's own deadline: a group waits on it, whichever of its rollouts happened to start it.
    const abortSignal = AbortSignal.any([signal, AbortSignal.timeout(environment.limits.rolloutTimeoutMs)]);
    const template = await inner.open({ example, abortSignal });
    let checkpoint: RolloutCheckpoint;
    try {
      await template.runSetup({ abortSignal });
      checkpoint = await template.checkpoint({ abortSignal });
    } catch (error) {
      await template.close();
      throw error;
    }
    const cleanupFailure = await template.close();
    if (cleanupFailure) throw cleanupFailure;
    return checkpoint;
  };

  const entryFor = (example: Example): PreparedExample => {
    let entry = prepared.get(example.id);
    if (!entry) {
      entry = { checkpoint: prepare(example, lifetime.signal), remaining: Number.POSITIVE_INFINITY };
      entry.checkpoint.catch(() => undefined); // awaited by the rollouts; a group cancelled first must not leave it unhandled
      prepared.set(example.id, entry);
      const created = entry;
      entry.checkpoint.catch((error: unknown) => {
        if (isTransient(error) && prepared.get(example.id) === created) prepared.delete(example.id);
      });
    }
    return entry;
  };

  return {
    plan(example, rollouts) {
      const entry = entryFor(example);
      entry.remaining = rollouts;
    },
    clear() {
      lifetime.abort(new CorralError('RUNNER_ERR_CANCELLED', 'the run ended'));
      lifetime = new AbortController();
      prepared.clear();
    },
    async open({ example, abortSignal }) {
      const entry = entryFor(example);
      entry.remaining -= 1;
      // The last rollout of the group has its checkpoint: drop it, so a group's snapshot lives only while needed.
      if (entry.remaining <= 0 && prepared.get(example.id) === entry) prepared.delete(example.id);
      const checkpoint = await raceAbort(entry.checkpoint, abortSignal);
      return inner.open({ example, from: checkpoint, ...(abortSignal ? { abortSignal } : {}) });
    },
  };
}

const isTransient = (error: unknown) => CorralError.isInstance(error) && error.transient;
