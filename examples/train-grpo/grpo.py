"""The GRPO loss over corral's training samples.

A sample (docs/training.md) is `prompt_ids` plus `completion_ids`: the tokens the model sampled (mask 1, with the
logprob it sampled them at) and the tokens the chat template inserted between turns, tool results included (mask
0). Only mask-1 tokens are trained on; the inserted ones are context. Each sampled token gets the clipped policy
ratio times its rollout's advantage (reward minus its group's mean), averaged over every sampled token of the batch.
"""

import torch


def batch_tensors(samples):
    """Right-padded token ids (the GRU reads left to right, so padding never changes earlier positions) and, per
    completion token, its row, position, target, mask, recorded logprob and advantage."""
    sequences = [sample["prompt_ids"] + sample["completion_ids"] for sample in samples]
    width = max(len(sequence) for sequence in sequences)
    token_ids = torch.zeros((len(samples), width), dtype=torch.long)
    rows, positions, targets, masks, old_logprobs, advantages = [], [], [], [], [], []
    for row, (sample, sequence) in enumerate(zip(samples, sequences)):
        token_ids[row, : len(sequence)] = torch.tensor(sequence)
        start = len(sample["prompt_ids"])
        for offset, token in enumerate(sample["completion_ids"]):
            rows.append(row)
            positions.append(start + offset - 1)  # the output that predicts this token
            targets.append(token)
            masks.append(sample["completion_mask"][offset] == 1)
            old_logprobs.append(sample["completion_logprobs"][offset])
            advantages.append(sample["advantage"])
    return {
        "token_ids": token_ids,
        "rows": torch.tensor(rows),
        "positions": torch.tensor(positions),
        "targets": torch.tensor(targets),
        "mask": torch.tensor(masks),
        "old_logprobs": torch.tensor(old_logprobs, dtype=torch.float64),
        "advantages": torch.tensor(advantages, dtype=torch.float64),
    }


def sampled_token_logprobs(policy, batch):
    """The policy's logprob of every sampled (mask-1) token, recomputed from the whole sequences."""
    log_probs, _ = policy(batch["token_ids"])
    every = log_probs[batch["rows"], batch["positions"], batch["targets"]]
    # Inserted tokens may be ones the policy cannot write (logprob -inf): select, never multiply by the mask.
    return every[batch["mask"]]


def grpo_loss(new_logprobs, batch, clip=0.2):
    """Clipped surrogate (PPO's, as GRPO uses it; no KL term), token-level mean over the batch's sampled tokens."""
    old = batch["old_logprobs"][batch["mask"]]
    advantages = batch["advantages"][batch["mask"]].to(new_logprobs.dtype)
    ratio = torch.exp(new_logprobs - old.to(new_logprobs.dtype))
    surrogate = torch.minimum(ratio * advantages, torch.clamp(ratio, 1 - clip, 1 + clip) * advantages)
    return -surrogate.mean()
