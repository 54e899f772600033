"""Best-of-n at a chosen turn, with episode forks: run one episode to turn k, fork it into n children, continue each
with a different sample, score them by the environment's reward, keep the best.

    corral serve --env examples/best-of-n/env.ts &
    /usr/bin/python3 examples/best-of-n/search.py --corral http://127.0.0.1:7777 --model-url http://127.0.0.1:8000/v1

The model is any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, ...); each child samples with its own
seed. Token ids are passed on when the server returns them, so the children's training samples share the parent's
prefix. Prints one JSON object on stdout: the parent, every child (seed, reward, lineage, messages, samples) and the
best child's id. Standard library only (the client is clients/python).
"""

import argparse
import json
import os
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "clients", "python")]

from corral_client import CorralClient, tokens_of  # noqa: E402


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corral", default=os.environ.get("CORRAL_URL", "http://127.0.0.1:7777"),
                        help="corral serve's address")
    parser.add_argument("--token", default=os.environ.get("CORRAL_TOKEN"),
                        help="corral serve's bearer token, if it has one")
    parser.add_argument("--model-url", required=True, help="an OpenAI-compatible endpoint, ending in /v1")
    parser.add_argument("--model", default="policy", help="the model name sent to it")
    parser.add_argument("--env", default="target-sum")
    parser.add_argument("--example-id", default="sum-20")
    parser.add_argument("--fork-at", type=int, default=2, help="the turn after which the episode is forked (k)")
    parser.add_argument("--n", type=int, default=4, help="children, one sample each")
    return parser.parse_args(argv)


def chat(args, messages, tools, seed):
    """One sampled turn: (assistant message, token data or None). Asks for token ids and logprobs as vLLM is asked."""
    body = {"model": args.model, "messages": messages, "tools": tools, "seed": seed, "temperature": 1.0,
            "logprobs": True, "return_token_ids": True}
    request = urllib.request.Request(args.model_url.rstrip("/") + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=120) as response:
        completion = json.loads(response.read())
    message = completion["choices"][0]["message"]
    # The episode wants the assistant message as the model sent it, minus fields only the server uses.
    message = {key: value for key, value in message.items() if key in ("role", "content", "tool_calls")}
    return message, tokens_of(completion)


def play(args, episode, messages, seed, turns=None):
    """Steps the episode with the model until it is done (or `turns` turns were played); returns the last step."""
    result = {"done": False}
    played = 0
    while not result["done"] and (turns is None or played < turns):
        message, tokens = chat(args, messages, episode.tools, seed)
        result = episode.step(message, tokens=tokens)
        messages += [message, *result["messages"]]
        played += 1
    return result


def search(args):
    corral = CorralClient(args.corral, token=args.token)
    with corral.create_episode(args.env, example_id=args.example_id) as parent:
        messages = list(parent.prompt)
        if play(args, parent, messages, seed=0, turns=args.fork_at)["done"]:
            raise SystemExit(f"the episode ended before turn {args.fork_at}: nothing to fork")
        prefix = parent.state()
        children = parent.fork(args.n)
        try:
            def continue_child(indexed):
                seed, child = indexed
                state = child.state()  # the parent's conversation up to the fork, token ids included
                done = play(args, child, list(state["messages"]), seed=seed)
                record = child.record()
                return {"id": child.id, "seed": seed, "reward": done["reward"], "answer": done["answer"],
                        "metrics": done["metrics"], "lineage": record.get("lineage"),
                        "messages": record["prompt"] + record["completion"], "samples": record.get("samples") or []}

            # Children are independent episodes: continue them side by side, as a batch would.
            with ThreadPoolExecutor(max_workers=len(children)) as pool:
                results = list(pool.map(continue_child, enumerate(children)))
        finally:
            with ThreadPoolExecutor(max_workers=len(children)) as pool:
                list(pool.map(lambda child: child.delete(), children))
    best = max(results, key=lambda result: result["reward"])
    for result in results:
        marker = "  <- best" if result is best else ""
        print(f"child {result['id']} seed {result['seed']}: answer {result['answer']}, "
              f"reward {result['reward']:.3f}{marker}", file=sys.stderr)
    parent = {key: prefix[key] for key in ("id", "turns", "messages", "tokens")}
    return {"parent": parent, "children": results, "best": best["id"]}


if __name__ == "__main__":
    print(json.dumps(search(parse_args())))
