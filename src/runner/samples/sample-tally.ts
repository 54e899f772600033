/**
 * Counts over a run's sample builds, as `corral export samples` prints them and the rollout API's summary line
 * carries them: samples from how many rollouts, how many rollouts were split at a prefix break, and how many have
 * none, by reason.
 */
import type { RolloutSamples, SampleMissingReason } from './training-sample.js';

export interface SampleTally {
  samples: number;
  rollouts: number;
  rollouts_with_samples: number;
  /** Rollouts with more than one sample. */
  rollouts_split: number;
  without_samples: Record<SampleMissingReason, number>;
}

export function emptySampleTally(): SampleTally {
  return { samples: 0, rollouts: 0, rollouts_with_samples: 0, rollouts_split: 0, without_samples: { errored: 0, tokens_missing: 0 } };
}

/** Adds one rollout's build to the tally (mutates and returns it). */
export function addToTally(tally: SampleTally, built: RolloutSamples): SampleTally {
  tally.rollouts++;
  tally.samples += built.samples.length;
  if (built.samples.length > 0) tally.rollouts_with_samples++;
  if (built.prefix_breaks > 0) tally.rollouts_split++;
  if (built.missing) tally.without_samples[built.missing]++;
  return tally;
}

/** "12 samples from 10 rollouts; 2 split at a prefix break; 3 without samples (errored 1, tokens_missing 2)". */
export function describeTally(tally: SampleTally): string {
  const without = tally.rollouts - tally.rollouts_with_samples;
  const reasons = Object.entries(tally.without_samples)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return `${tally.samples} samples from ${tally.rollouts_with_samples} rollouts; ${tally.rollouts_split} split at a prefix break; ${without} without samples (${reasons})`;
}
