/**
 * The training sample contract: what a trainer consumes, built from one result record (build-samples.ts). Field
 * names are the wire format of samples.jsonl and of the rollout API's `samples` array (docs/training.md).
 */

export interface TrainingSample {
  example_id: string;
  rollout_index: number;
  /** 0 for a rollout's first sample; +1 at every prefix break (a prompt that did not extend the previous turn). */
  sample_index: number;
  /** The prompt of the sample's first model call, as the server tokenised it. */
  prompt_ids: number[];
  /** Every later token: sampled completions and the tokens the chat template inserted between turns. */
  completion_ids: number[];
  /** Per completion token: 1 sampled by the model (train on it), 0 inserted by the template or a tool result. */
  completion_mask: number[];
  /** Per completion token: the sampling logprob where the mask is 1, 0 where it is 0. */
  completion_logprobs: number[];
  reward: number;
  /** reward - the group's mean reward (no division by the group's std); null when the record has no group statistics. */
  advantage: number | null;
  /** The role whose side this is, in an environment with roles (one sample set per role); absent otherwise. */
  role?: string;
}

/** Why a rollout has no sample: it errored, or a model call of it came back without token ids or logprobs. */
export type SampleMissingReason = 'errored' | 'tokens_missing';

export interface RolloutSamples {
  samples: TrainingSample[];
  /** Null when the rollout has samples. */
  missing: SampleMissingReason | null;
  /** How many times a prompt did not extend the previous prompt + completion (samples.length - 1 when any). */
  prefix_breaks: number;
}
