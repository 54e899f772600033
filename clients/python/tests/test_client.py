"""The Python client against a live `corral serve` (test/e2e/python-client.test.ts starts one with the tally fixture
environment served by --env, a wiki corpus and a scripted model). Configuration comes from the environment:

    CORRAL_URL, CORRAL_TOKEN   the server and its bearer token
    CORRAL_TEST_MODEL_URL      a scripted OpenAI-compatible model with token ids: calls peek once (twice when the prompt
                               starts with "Peek twice"), then answers with the tool's text
    CORRAL_TEST_IMPORT_MARKER  a module path a client names as its env; the server must refuse it without importing it
    CORRAL_TEST_EVAL_RESULTS   results.jsonl of `corral eval` run on the tally environment with that scripted model
    CORRAL_TEST_EVAL_GUESS_RESULTS  the same for the guess environment (it talks back; the model guesses 5, then 7)
"""

import datetime
import json
import os
import unittest
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from corral_client import (
    AuthenticationError,
    ConflictError,
    CorralError,
    CorralClient,
    InvalidRequestError,
    McpError,
    NotFoundError,
    RolloutStream,
    tokens_of,
)

URL = os.environ.get("CORRAL_URL", "http://127.0.0.1:7777")
TOKEN = os.environ.get("CORRAL_TOKEN")
MODEL = {"base_url": os.environ.get("CORRAL_TEST_MODEL_URL", "http://127.0.0.1:9/v1"), "model": "scripted"}


def tool_names(tools):
    return {tool["function"]["name"] for tool in tools}


class FakeResponse:
    """The NDJSON lines of a /v1/rollouts answer, as the stream reads them."""

    def __init__(self, values):
        self.lines = [json.dumps(value).encode() + b"\n" for value in values]
        self.closed = False

    def __iter__(self):
        return iter(self.lines)

    def close(self):
        self.closed = True


class RolloutStreamLinesTest(unittest.TestCase):
    def test_yields_only_records_and_keeps_quarantine_and_cancelled_lines_aside(self):
        quarantine = {"type": "quarantine", "example_id": "q1", "reason": "the oracle missed"}
        cancelled = {"type": "cancelled", "reason": "deadline", "example_id": "q2", "rollout_index": 0}
        record = {"example_id": "q1", "reward": 1, "error": None, "quarantined": True}
        summary = {"type": "summary", "status": "cancelled"}
        response = FakeResponse([quarantine, record, cancelled, summary])
        stream = RolloutStream(response)
        self.assertEqual(list(stream), [record])
        self.assertEqual(stream.quarantined, [quarantine])
        self.assertEqual(stream.cancelled, [cancelled])
        self.assertEqual(stream.summary, summary)
        self.assertTrue(response.closed)


class RolloutTest(unittest.TestCase):
    def setUp(self):
        self.corral = CorralClient(URL, token=TOKEN)

    def test_streams_records_of_a_custom_environment_then_the_summary(self):
        stream = self.corral.rollouts("tally", MODEL, n=2, rollouts_per_example=2)
        records = list(stream)
        ids = sorted(record["example_id"] for record in records)
        self.assertEqual(ids, ["tally-0", "tally-0", "tally-1", "tally-1"])
        self.assertTrue(all(record["reward"] == 1 and record["error"] is None for record in records), records)
        self.assertTrue(all(record["group"]["size"] == 2 for record in records))
        self.assertEqual(stream.summary["status"], "complete")
        self.assertEqual(stream.summary["avg_reward"], 1)

    def test_samples_of_each_rollout_with_masks_and_logprobs(self):
        stream = self.corral.samples("tally", MODEL, n=2, rollouts_per_example=2)
        samples = list(stream)
        self.assertEqual(len(samples), 4, stream.summary)
        for sample in samples:
            self.assertEqual(sample["sample_index"], 0)
            self.assertEqual(len(sample["completion_ids"]), len(sample["completion_mask"]))
            self.assertEqual(len(sample["completion_ids"]), len(sample["completion_logprobs"]))
            self.assertIn(0, sample["completion_mask"])  # the tool result, inserted between the two turns
            sampled = [lp for lp, bit in zip(sample["completion_logprobs"], sample["completion_mask"]) if bit == 1]
            self.assertTrue(all(lp < 0 for lp in sampled))
            self.assertEqual((sample["reward"], sample["advantage"]), (1, 0))
        self.assertEqual(stream.summary["samples"]["rollouts_with_samples"], 4)
        self.assertEqual(len(stream.records), 4)

    def test_streams_a_built_in_environment_with_inline_examples(self):
        examples = [{"id": "nile", "prompt": "Which river flows through Cairo?", "answer": "Nile"}]
        records = list(self.corral.rollouts("wiki-search", MODEL, examples=examples))
        self.assertEqual(len(records), 1)
        self.assertIsNone(records[0]["error"])
        self.assertEqual(records[0]["task"], "wiki-search")

    def test_a_past_deadline_cancels_every_rollout_and_yields_no_record(self):
        deadline = datetime.datetime.now() - datetime.timedelta(seconds=5)  # naive: local time
        stream = self.corral.rollouts("tally", MODEL, n=2, rollouts_per_example=2, deadline=deadline)
        self.assertEqual(list(stream), [])
        self.assertEqual(len(stream.cancelled), 4)
        self.assertTrue(all(line["reason"] == "deadline" and line["state"] == "waiting" for line in stream.cancelled))
        self.assertEqual(stream.summary["status"], "cancelled")
        self.assertEqual(stream.summary["cancelled"], {"reason": "deadline", "rollouts": 4})

    def test_the_policy_step_clock_cancels_stale_requests(self):
        self.assertIsNone(self.corral.policy_step("python-trainer"))
        self.assertEqual(self.corral.set_policy_step("python-trainer", 3), 3)
        self.assertEqual(self.corral.set_policy_step("python-trainer", 1), 3)
        stream = self.corral.rollouts("tally", MODEL, n=1, policy="python-trainer", policy_step=1, max_staleness=1)
        self.assertEqual(list(stream), [])
        self.assertEqual([(line["reason"], line["current_step"]) for line in stream.cancelled], [("stale", 3)])
        with self.assertRaises(InvalidRequestError) as refused:
            list(self.corral.rollouts("tally", MODEL, n=1, max_staleness=1))
        self.assertEqual(refused.exception.details["field"], "max_staleness")

    def test_refuses_an_environment_path_with_its_code(self):
        with self.assertRaises(InvalidRequestError) as refused:
            list(self.corral.rollouts(os.environ.get("CORRAL_TEST_IMPORT_MARKER", "./env.ts"), MODEL, n=1))
        self.assertEqual(refused.exception.code, "ENV_ERR_NOT_SERVED")
        self.assertEqual(refused.exception.status, 400)
        self.assertEqual(refused.exception.details["field"], "env")


class EpisodeTest(unittest.TestCase):
    def setUp(self):
        self.corral = CorralClient(URL, token=TOKEN)

    def test_runs_an_episode_with_plain_calls_and_mcp_on_one_sandbox(self):
        with self.corral.episode("tally", example_id="tally-1", env_args={"start": 1}) as episode:
            self.assertTrue(episode.id.startswith("epi_"))
            self.assertEqual(episode.prompt[-1], {"role": "user", "content": "What is the secret word?"})
            self.assertTrue({"peek", "tally", "read_file"} <= tool_names(episode.tools))
            self.assertEqual(episode.call_tool("tally", {"n": 41})["text"], "42")
            peeked = episode.call_tool("peek")
            self.assertEqual(peeked["structuredContent"], {"secret": "jade", "peeks": 1})
            with episode.mcp() as session:
                self.assertIn("peek", {tool["name"] for tool in session.list_tools()})
                self.assertEqual(session.call_tool("peek")["structuredContent"]["peeks"], 2)
                written = session.call_tool("write_file", {"path": "answer.txt", "content": "jade"})
                self.assertFalse(written["isError"])
            self.assertIn("jade", episode.call_tool("read_file", {"path": "answer.txt"})["text"])
            score = episode.score([{"role": "assistant", "content": "jade"}])
            metrics = {"correct": 1, "secret_in_sandbox": 1, "peeks": 2}
            self.assertEqual(score, {"reward": 1, "metrics": metrics, "answer": "jade"})
            with self.assertRaises(ConflictError) as again:
                episode.score("jade")
            self.assertEqual(again.exception.code, "EPISODE_ERR_ALREADY_SCORED")
        with self.assertRaises(NotFoundError) as gone:
            episode.describe()
        self.assertEqual(gone.exception.code, "EPISODE_ERR_NOT_FOUND")

    def test_a_failing_tool_is_a_result_and_errors_carry_codes(self):
        with self.corral.create_episode("tally", example={"id": "inline", "prompt": "p", "answer": "onyx"}) as episode:
            self.assertTrue(episode.call_tool("read_file", {"path": "missing.txt"})["isError"])
            with self.assertRaises(NotFoundError) as unknown:
                episode.call_tool("format_disk")
            self.assertEqual(unknown.exception.code, "EPISODE_ERR_UNKNOWN_TOOL")
            self.assertEqual(episode.score("onyx")["reward"], 1)
        with self.assertRaises(InvalidRequestError) as invalid:
            self.corral.create_episode("tally", example_id="tally-0", env_args={"start": "many"})
        self.assertEqual(invalid.exception.code, "ENV_ERR_INVALID_ARGS")
        with self.assertRaises(InvalidRequestError) as not_served:
            self.corral.create_episode("no-such-env", example_id="x")
        self.assertEqual(not_served.exception.code, "ENV_ERR_NOT_SERVED")


def eval_records(variable="CORRAL_TEST_EVAL_RESULTS"):
    with open(os.environ[variable], encoding="utf-8") as results:
        return [json.loads(line) for line in results if line.strip()]


def replay(test, step, record, messages_of):
    """Steps each assistant message of an eval record in order; what comes back must be the messages eval recorded
    between that assistant turn and the next. Returns the last step's answer."""
    completion = record["completion"]
    answer = None
    for index, message in enumerate(completion):
        if message["role"] != "assistant":
            continue
        answer = step(message)
        following = []
        for later in completion[index + 1:]:
            if later["role"] == "assistant":
                break
            following.append(later)
        test.assertEqual(messages_of(answer), following)
    return answer


class StepTest(unittest.TestCase):
    """Episodes driven turn by turn reach the reward `corral eval` gave the same conversation."""

    def setUp(self):
        self.corral = CorralClient(URL, token=TOKEN)
        self.records = eval_records()
        self.assertEqual(sorted(record["example_id"] for record in self.records), ["tally-0", "tally-1"])
        self.assertTrue(all(record["error"] is None for record in self.records), self.records)

    def test_steps_over_http_reach_the_eval_reward(self):
        for record in self.records:
            with self.corral.episode("tally", example_id=record["example_id"]) as episode:
                self.assertEqual(episode.prompt, record["prompt"])
                done = replay(self, episode.step, record, lambda answer: answer["messages"])
                self.assertTrue(done["done"])
                self.assertEqual(done["reason"], "answered")
                self.assertEqual((done["reward"], done["metrics"]), (record["reward"], record["metrics"]))
                self.assertEqual(episode.state()["messages"], record["prompt"] + record["completion"])
                with self.assertRaises(ConflictError) as again:
                    episode.step("once more")
                self.assertEqual(again.exception.code, "EPISODE_ERR_DONE")

    def test_steps_over_websocket_reach_the_eval_reward(self):
        with self.corral.episode_socket() as env:
            for record in self.records:
                observation = env.reset("tally", example_id=record["example_id"])["observation"]
                self.assertEqual(observation["prompt"], record["prompt"])
                self.assertIn("peek", tool_names(observation["tools"]))
                with self.assertRaises(NotFoundError) as unknown:
                    env.step({"role": "assistant", "content": None, "tool_calls": [
                        {"id": "x", "type": "function", "function": {"name": "format_disk", "arguments": "{}"}}]})
                self.assertEqual(unknown.exception.code, "EPISODE_ERR_UNKNOWN_TOOL")
                done = replay(self, env.step, record, lambda answer: answer["observation"]["messages"])
                self.assertTrue(done["done"])
                self.assertEqual((done["reward"], done["metadata"]["metrics"]), (record["reward"], record["metrics"]))
                state = env.state()
                self.assertEqual((state["episode_id"], state["done"]), (observation["episode_id"], True))
                self.assertEqual(state["messages"], record["prompt"] + record["completion"])

    def test_an_environment_that_talks_back_reaches_the_eval_reward_both_ways(self):
        [record] = eval_records("CORRAL_TEST_EVAL_GUESS_RESULTS")
        self.assertIsNone(record["error"])
        self.assertEqual(record["reward"], 0.5)  # two guesses: 5, then 7 after "higher"
        with self.corral.episode("guess", example_id="seven") as episode:
            done = replay(self, episode.step, record, lambda answer: answer["messages"])
            self.assertEqual(done["reason"], "done")
            self.assertEqual((done["reward"], done["metrics"]), (record["reward"], record["metrics"]))
        with self.corral.episode_socket() as env:
            env.reset("guess", example_id="seven")
            done = replay(self, env.step, record, lambda answer: answer["observation"]["messages"])
            self.assertEqual((done["reward"], done["metadata"]["metrics"]), (record["reward"], record["metrics"]))

    def test_an_environment_that_talks_back_over_http_and_websocket(self):
        with self.corral.episode("guess", example_id="seven") as episode:
            self.assertEqual(episode.step("3"), {"messages": [{"role": "user", "content": "higher"}], "done": False})
            done = episode.step({"role": "assistant", "content": "7"})
            self.assertEqual((done["done"], done["reward"], done["reason"]), (True, 0.5, "done"))
            self.assertEqual(done["environment_reason"], "found it")
        with self.corral.episode_socket() as env:
            env.reset("guess", example_id="seven")
            self.assertEqual(env.step("9")["observation"]["messages"], [{"role": "user", "content": "lower"}])
            # A fork over the socket: children continue from its turn, over HTTP; the socket stays on the parent.
            parent = env.state()
            children = env.fork(2)
            try:
                self.assertEqual([child.forked_from_turn for child in children], [1, 1])
                for child in children:
                    state = child.state()
                    self.assertEqual(state["forked_from"], {"episode": parent["episode_id"], "turn": 1})
                    self.assertEqual(state["messages"], parent["messages"])
                done = children[0].step("7")
                self.assertEqual((done["done"], done["reward"]), (True, 0.5))
                with self.assertRaises(InvalidRequestError) as too_few:
                    env.fork(0)
                self.assertEqual(too_few.exception.code, "INVALID_REQUEST")
            finally:
                for child in children:
                    child.delete()
            self.assertEqual(env.step("8")["observation"]["messages"], [{"role": "user", "content": "lower"}])
            done = env.step("7")
            self.assertEqual((done["done"], done["reward"]), (True, 1 / 3))
            self.assertEqual(done["metadata"]["metrics"], {"solved": 1 / 3, "guesses": 3})
            with self.assertRaises(ConflictError):
                env.step("7")
        with self.assertRaises(AuthenticationError) as refused:
            CorralClient(URL, token="wrong-token").episode_socket()
        self.assertEqual(refused.exception.status, 401)
        self.assertTrue(isinstance(refused.exception, CorralError))


def chat(messages, tools):
    """One turn of the scripted model, asked for token ids and logprobs as vLLM is: (assistant message, tokens)."""
    body = {"model": "scripted", "messages": messages, "tools": tools, "logprobs": True, "return_token_ids": True}
    url = MODEL["base_url"].rstrip("/") + "/chat/completions"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"},
                                     method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        completion = json.loads(response.read())
    return completion["choices"][0]["message"], tokens_of(completion)


class ForkTest(unittest.TestCase):
    """An episode forked at turn 2: every child continues from the parent's messages, token ids, state and files."""

    def setUp(self):
        self.corral = CorralClient(URL, token=TOKEN)

    def test_forks_at_turn_two_into_four_children_that_share_the_prefix_and_its_token_ids(self):
        example = {"id": "fork-me", "prompt": "Peek twice, then answer with the word.", "answer": "onyx"}
        with self.corral.create_episode("tally", example=example) as episode:
            messages = list(episode.prompt)
            for _ in range(2):
                message, tokens = chat(messages, episode.tools)
                self.assertIsNotNone(tokens)
                self.assertTrue(message.get("tool_calls"), message)
                result = episode.step(message, tokens=tokens)
                self.assertFalse(result["done"])
                messages += [message, *result["messages"]]
            parent = episode.state()
            self.assertEqual(parent["turns"], 2)
            self.assertEqual([entry["turn"] for entry in parent["tokens"]], [1, 2])
            children = episode.fork(4)
            try:
                self.assertEqual(len({child.id for child in children} | {episode.id}), 5)

                def continue_child(child):
                    self.assertEqual(child.forked_from_turn, 2)
                    state = child.state()
                    # The transcript starts with the parent's first two turns and their token ids.
                    self.assertEqual(state["messages"][:len(parent["messages"])], parent["messages"])
                    self.assertEqual(state["tokens"][:2], parent["tokens"])
                    self.assertEqual(state["forked_from"], {"episode": episode.id, "turn": 2})
                    message, tokens = chat(state["messages"], child.tools)
                    done = child.step(message, tokens=tokens)
                    # The secret setup wrote came along in the child's sandbox copy, the peeks in its state copy.
                    self.assertEqual((done["done"], done["reward"], done["answer"]), (True, 1, "onyx"))
                    self.assertEqual(done["metrics"], {"correct": 1, "secret_in_sandbox": 1, "peeks": 2})
                    record = child.record()
                    lineage = {"kind": "fork", "source_record": episode.id, "from_turn": 3}
                    self.assertEqual(record["lineage"], lineage)
                    self.assertEqual(len(record["samples"]), 1, record.get("samples_missing"))
                    return record["samples"][0]

                # The children are independent episodes: continued side by side, as a trainer's batch would.
                with ThreadPoolExecutor(max_workers=len(children)) as pool:
                    samples = list(pool.map(continue_child, children))
                # Every child's sample starts with the parent's two turns: sampled ids, the tool results between.
                first, second = parent["tokens"]
                seen = len(first["prompt_token_ids"]) + len(first["completion_token_ids"])
                inserted = second["prompt_token_ids"][seen:]
                prefix = first["completion_token_ids"] + inserted + second["completion_token_ids"]
                for sample in samples:
                    self.assertEqual(sample["prompt_ids"], first["prompt_token_ids"])
                    self.assertEqual(sample["completion_ids"][:len(prefix)], prefix)
                    mask = [1] * len(first["completion_token_ids"]) + [0] * len(inserted)
                    mask += [1] * len(second["completion_token_ids"])
                    self.assertEqual(sample["completion_mask"][:len(prefix)], mask)
                # The parent is unchanged by its children's turns.
                self.assertEqual(episode.state()["turns"], 2)
                with self.assertRaises(ConflictError) as not_done:
                    episode.record()
                self.assertEqual(not_done.exception.code, "EPISODE_ERR_NOT_DONE")
            finally:
                with ThreadPoolExecutor(max_workers=len(children)) as pool:
                    list(pool.map(lambda child: child.delete(), children))


class SandboxTest(unittest.TestCase):
    def setUp(self):
        self.corral = CorralClient(URL, token=TOKEN)

    def test_files_exec_and_tools_share_the_sandbox(self):
        with self.corral.create_sandbox("python", files={"data/a.txt": "hello", "b.bin": b"\x00\x01\xff"}) as sandbox:
            self.assertTrue(sandbox.id.startswith("hdl_"))
            self.assertEqual(sandbox.read_file("b.bin"), b"\x00\x01\xff")
            self.assertEqual(sandbox.write_file("c.txt", "from python")["path"], "c.txt")
            result = sandbox.exec("cat data/a.txt c.txt")
            self.assertEqual((result["exit_code"], result["stdout"]), (0, "hellofrom python"))
            self.assertEqual(sandbox.call_tool("python", {"code": "6 * 7"})["text"], "42")
            self.assertIsNone(sandbox.read_file("nothing-here.txt"))
            self.assertIn(sandbox.id, [listed.id for listed in self.corral.sandboxes()])
        with self.assertRaises(NotFoundError):
            sandbox.describe()


class McpTest(unittest.TestCase):
    def setUp(self):
        self.corral = CorralClient(URL, token=TOKEN)

    def test_calls_tools_of_a_built_in_and_a_served_environment(self):
        with self.corral.mcp("python") as session:
            self.assertIsNotNone(session.session_id)
            self.assertEqual(session.server_info["name"], "corral")
            result = session.call_tool("python", {"code": "1 / 0"})
            self.assertTrue(result["isError"])
            self.assertIn("ZeroDivisionError", result["text"])
        with self.corral.mcp("tally") as session:
            self.assertEqual(session.call_tool("tally", {"n": 3})["structuredContent"], {"sum": 3})

    def test_protocol_errors_raise_mcp_error(self):
        with self.corral.mcp("python") as session:
            with self.assertRaises(McpError) as refused:
                session.call_tool("no_such_tool", {})
            self.assertTrue(refused.exception.code.startswith("JSONRPC_"))


class AuthTest(unittest.TestCase):
    def test_a_wrong_token_raises_authentication_error(self):
        with self.assertRaises(AuthenticationError) as refused:
            CorralClient(URL, token="wrong-token").create_episode("tally", example_id="tally-0")
        self.assertEqual(refused.exception.status, 401)


if __name__ == "__main__":
    unittest.main()
