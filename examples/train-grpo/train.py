"""GRPO through corral: a policy trained from scratch on the keybox environment (env.ts), served by the trainer itself.

    corral serve --env examples/train-grpo/env.ts &
    /usr/bin/python3 examples/train-grpo/train.py --corral http://127.0.0.1:7777

Each step asks corral for rollouts (POST /v1/rollouts with "samples": true): corral runs every rollout against this
process's chat-completions endpoint (model_server.py), calls the environment's tool, scores it, and streams back
records whose training samples hold the token ids, masks, logprobs and advantages. The trainer recomputes the
sampled tokens' logprobs with the weights that sampled them (they must equal the recorded ones: the token path is
exact end to end), takes one Adam step on the GRPO loss, and repeats. The requests name a series, so corral serve
keeps the reward curve under its runs folder (runs/series/<name>/), and its viewer draws it.

Prints one line per step on stderr, and one JSON object on stdout at the end.
"""

import argparse
import json
import math
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "clients", "python")]

import torch  # noqa: E402

from corral_client import CorralClient  # noqa: E402
from grpo import batch_tensors, grpo_loss, sampled_token_logprobs  # noqa: E402
from model_server import ModelServer  # noqa: E402
from policy import Policy  # noqa: E402


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corral", default=os.environ.get("CORRAL_URL", "http://127.0.0.1:7777"), help="corral serve's address")
    parser.add_argument("--token", default=os.environ.get("CORRAL_TOKEN"), help="corral serve's bearer token, if it has one")
    parser.add_argument("--env", default="keybox", help="the served environment (corral serve --env examples/train-grpo/env.ts)")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rollouts-per-example", type=int, default=8)
    parser.add_argument("--examples", type=int, default=4, help="the first N examples of the environment's dataset")
    parser.add_argument("--max-tokens", type=int, default=4, help="per model turn")
    parser.add_argument("--learning-rate", type=float, default=0.005)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--series", default="train-grpo", help="the reward curve's name in corral's runs folder")
    parser.add_argument("--window", type=int, default=5, help="steps averaged at each end for the first/last reward")
    return parser.parse_args(argv)


def rollout_request(args, step, base_url):
    """The POST /v1/rollouts fields beside env and n (docs/rollouts-api.md)."""
    return {
        "model": {"base_url": base_url, "model": "keybox-policy", "max_retries": 0},
        "rollouts_per_example": args.rollouts_per_example,
        "sampling_args": {"max_tokens": args.max_tokens, "logprobs": True, "return_token_ids": True},
        "seed": args.seed * 1_000_000 + step * 1_000,
        "samples": True,
        "record": {"series": args.series, "step": step},
    }


def samples_of(record):
    samples = record.get("samples")
    if samples is None:
        raise SystemExit("corral sent records without samples: it predates training samples (POST /v1/rollouts \"samples\": true)")
    return samples


def train(args, log=lambda line: print(line, file=sys.stderr, flush=True)):
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    # float64: the recomputed logprobs must match the sampled ones to far better than 1e-4.
    policy = Policy().double()
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.learning_rate)
    lock = threading.Lock()
    server = ModelServer(policy, lock).start()
    corral = CorralClient(args.corral, token=args.token, timeout=600)
    history = []
    max_delta = 0.0
    max_change = 0.0
    checked_tokens = 0
    try:
        for step in range(args.steps):
            started = time.monotonic()
            stream = corral.rollouts(args.env, n=args.examples, **rollout_request(args, step, server.base_url))
            records = list(stream)
            scored = [record for record in records if record.get("error") is None]
            # Groups arrive in the order they finish; a fixed order keeps the update (float sums) repeatable.
            samples = sorted(
                (sample for record in scored for sample in samples_of(record)),
                key=lambda sample: (sample["example_id"], sample["rollout_index"], sample["sample_index"]),
            )
            rewards = [record["reward"] for record in scored]
            entry = {
                "step": step,
                "rollouts": len(records),
                "errored": len(records) - len(scored),
                "mean_reward": sum(rewards) / len(rewards) if rewards else None,
                "samples": len(samples),
            }
            trained = [sample for sample in samples if sample["advantage"]]
            if samples:
                batch = batch_tensors(samples)
                with lock:  # no rollout is in flight now; the lock only documents that sampling and updates never overlap
                    new_logprobs = sampled_token_logprobs(policy, batch)
                    recorded = batch["old_logprobs"][batch["mask"]]
                    delta = float((new_logprobs.detach() - recorded).abs().max()) if len(recorded) else 0.0
                    max_delta = max(max_delta, delta)
                    checked_tokens += len(recorded)
                    entry["max_logprob_delta"] = delta
                    if trained:
                        loss = grpo_loss(new_logprobs, batch)
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                        entry["loss"] = float(loss)
                        # What the check above would see had the weights moved: one update's change, far above 1e-4.
                        with torch.no_grad():
                            change = float((sampled_token_logprobs(policy, batch) - recorded).abs().max())
                        max_change = max(max_change, change)
            entry["seconds"] = round(time.monotonic() - started, 3)
            history.append(entry)
            log(
                f"step {step:3d}  reward {fmt(entry['mean_reward'])}  errored {entry['errored']}  "
                f"samples {len(samples)} ({len(trained)} with advantage)  max |dlogprob| {fmt(entry.get('max_logprob_delta'), 2)}  "
                f"{entry['seconds']:.1f}s"
            )
    finally:
        server.close()
    means = [entry["mean_reward"] for entry in history if entry["mean_reward"] is not None]
    window = min(args.window, len(means))
    return {
        "steps": len(history),
        "first_mean_reward": sum(means[:window]) / window if window else None,
        "last_mean_reward": sum(means[-window:]) / window if window else None,
        "window": window,
        "max_logprob_delta": max_delta,
        "max_logprob_change_after_update": max_change,
        "sampled_tokens_checked": checked_tokens,
        "errored": sum(entry["errored"] for entry in history),
        "model_requests": server.requests,
        "series": args.series,
        "history": history,
    }


def fmt(value, digits=3):
    if value is None:
        return "-"
    return f"{value:.{digits}e}" if digits == 2 else f"{value:.{digits}f}"


if __name__ == "__main__":
    result = train(parse_args())
    print(json.dumps(result))
    sys.exit(0 if result["steps"] and math.isfinite(result["max_logprob_delta"]) else 1)
