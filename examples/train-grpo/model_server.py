"""The trainer's own OpenAI-compatible chat-completions endpoint, serving the policy it is training.

It answers in vLLM's spelling, which corral's openai agent records: top-level `prompt_token_ids`, and per choice
`token_ids` and `logprobs.content[].logprob` (when the request asks with `return_token_ids` and `logprobs`).
Sampling is seeded per request by `seed` and the prompt (corral sends `seed + rollout index`, the same for every
example), so a run is repeatable whatever order corral's concurrent rollouts arrive in. The lock keeps sampling and the trainer's update apart.
"""

import json
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch

from policy import END, decode_text, ends_call, parse_reply, render_prompt


class ModelServer:
    def __init__(self, policy, lock, host="127.0.0.1", port=0, model_name="keybox-policy"):
        self.policy = policy
        self.lock = lock
        self.model_name = model_name
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 (http.server's naming)
                if not self.path.endswith("/chat/completions"):
                    return self.reply(404, {"error": {"message": f"no route {self.path}"}})
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length))
                except ValueError:
                    return self.reply(400, {"error": {"message": "the body is not JSON"}})
                status, answer = server.complete(body)
                self.reply(status, answer)

            def reply(self, status, value):
                data = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer((host, port), Handler)
        self.http.daemon_threads = True
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    @property
    def base_url(self):
        host, port = self.http.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self):
        self.thread.start()
        return self

    def close(self):
        self.http.shutdown()
        self.http.server_close()

    def complete(self, body):
        if body.get("stream"):
            return 400, {"error": {"message": "this server does not stream"}}
        if body.get("temperature", 1.0) != 1.0 or body.get("n", 1) != 1:
            return 400, {"error": {"message": "this server samples one choice at temperature 1"}}
        tools = body.get("tools") or []
        prompt_ids = render_prompt(body["messages"], tools)
        generator = torch.Generator()
        seed = body.get("seed")
        prompt_hash = zlib.crc32(json.dumps(prompt_ids).encode())
        generator.manual_seed(int(seed) * 4_294_967_311 + prompt_hash if seed is not None else time.time_ns())
        with self.lock:
            self.requests += 1
            number = self.requests
            token_ids, logprobs = self.policy.sample(
                prompt_ids, int(body.get("max_tokens") or 16), generator, stop=lambda sampled: ends_call(decode_text(sampled), tools)
            )
        content, calls = parse_reply(decode_text(token_ids), tools)
        finished = bool(token_ids) and token_ids[-1] == END
        message = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {"id": f"call_{number}_{index}", "type": "function", "function": call} for index, call in enumerate(calls)
            ]
        choice = {
            "index": 0,
            "message": message,
            "finish_reason": "tool_calls" if calls else ("stop" if finished else "length"),
        }
        if body.get("return_token_ids"):
            choice["token_ids"] = token_ids
        if body.get("logprobs"):
            choice["logprobs"] = {"content": [{"token": f"token_id:{token}", "logprob": logprob} for token, logprob in zip(token_ids, logprobs)]}
        answer = {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": [choice],
            "usage": {"prompt_tokens": len(prompt_ids), "completion_tokens": len(token_ids), "total_tokens": len(prompt_ids) + len(token_ids)},
        }
        if body.get("return_token_ids"):
            answer["prompt_token_ids"] = prompt_ids
        return 200, answer
