"""A client for a corral server (`corral serve`), written with the Python standard library only.

    from corral_client import CorralClient

    corral = CorralClient("http://127.0.0.1:7777", token="secret")
    for record in corral.rollouts("wiki-search", model={"base_url": "http://10.0.0.5:8000/v1", "model": "m"}, n=8):
        print(record["example_id"], record["reward"])

    with corral.episode("wordle", example_id="crane") as episode:   # your own agent loop
        print(episode.prompt, episode.tools)
        episode.call_tool("guess", {"word": "crane"})
        print(episode.score("crane"))                               # {"reward": ..., "metrics": ..., "answer": ...}

    with corral.episode("wordle", example_id="crane") as episode:   # or turn by turn: corral runs the tools
        result = episode.step({"role": "assistant", "content": "crane"})   # {"messages": [...], "done": ..., "reward"?}

    with corral.episode("wordle", example_id="crane") as episode:   # fork: children continue from the current turn
        children = episode.fork(4)                                   # Episodes with copies of sandbox, state, messages
        print([child.step("crane")["reward"] for child in children], children[0].record()["lineage"])

    with corral.episode_socket() as env:                             # the same over one WebSocket (reset/step/state)
        observation = env.reset("wordle", example_id="crane")["observation"]
        print(env.step("crane"))                                     # {"observation": {"messages"}, "reward", "done"}

Covers: rollouts as a streaming iterator (POST /v1/rollouts), episodes (POST /v1/episodes and its routes, step
included, and /ws/episodes over a minimal standard-library WebSocket client: corral_websocket.py),
sandbox handles (POST /v1/sandboxes, files, exec through the handle's bash tool) and MCP tool calls over
Streamable HTTP (initialize, tools/list, tools/call; JSON or Server-Sent Events answers). Every refusal raises a
CorralError carrying corral's stable error code (docs/errors.md); subclasses say which kind.
"""

import base64
import datetime
import json
import urllib.error
import urllib.parse
import urllib.request

from corral_websocket import HandshakeRefused, WebSocket, WebSocketClosed

__all__ = [
    "CorralClient",
    "CorralError",
    "InvalidRequestError",
    "AuthenticationError",
    "NotFoundError",
    "ConflictError",
    "ExpiredError",
    "QuotaExceededError",
    "ServerError",
    "McpError",
    "RolloutStream",
    "Episode",
    "EpisodeSocket",
    "Sandbox",
    "McpSession",
    "tokens_of",
]

__version__ = "0.1.0"

MCP_PROTOCOL_VERSION = "2025-11-25"


class CorralError(Exception):
    """A refusal or fault reported by corral. `code` is corral's stable code (e.g. EPISODE_ERR_NOT_FOUND),
    `status` the HTTP status (None for errors inside a stream), `details` the rest of the error body."""

    def __init__(self, code, message, status=None, details=None):
        super().__init__(f"{code}: {message}" if code else message)
        self.code = code
        self.message = message
        self.status = status
        self.details = details or {}


class InvalidRequestError(CorralError):
    """400: a malformed body or a field the server refused (details.field names it)."""


class AuthenticationError(CorralError):
    """401 or 403: a missing or wrong bearer token, or a refused Host/Origin."""


class NotFoundError(CorralError):
    """404: no such episode, sandbox, tool or route (another client's ids look the same)."""


class ConflictError(CorralError):
    """409: e.g. an episode scored twice."""


class ExpiredError(CorralError):
    """410: the episode was idle past the server's TTL and was released."""


class QuotaExceededError(CorralError):
    """429: a per-client quota is full (details.quota names the server setting)."""


class ServerError(CorralError):
    """5xx: an infrastructure fault (sandbox, backend); retry when the code is transient."""


class McpError(CorralError):
    """A JSON-RPC error from an MCP endpoint: `code` is corral's code when the server sent one (data.corralCode),
    else JSONRPC_<number>."""


_ERROR_BY_STATUS = {400: InvalidRequestError, 401: AuthenticationError, 403: AuthenticationError, 404: NotFoundError,
                    409: ConflictError, 410: ExpiredError, 429: QuotaExceededError}


def _error_from_response(status, text):
    """The typed exception for an HTTP error answer: {error: {code, message, ...}} or a JSON-RPC error body."""
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    code, message, details = f"HTTP_{status}", (text or "").strip()[:500], {}
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        details = {key: value for key, value in error.items() if key not in ("code", "message")}
        raw_code = error.get("code")
        code = raw_code if isinstance(raw_code, str) else data.get("code") or data.get("corralCode") or code
        message = error.get("message", message)
    kind = _ERROR_BY_STATUS.get(status, ServerError if status >= 500 else CorralError)
    return kind(code, message, status, details)


def tokens_of(completion):
    """The token data of a chat completion as vLLM returns it (asked with logprobs: true and return_token_ids: true):
    {prompt_token_ids, completion_token_ids, completion_logprobs} for Episode.step, or None when it has none."""
    choice = (completion.get("choices") or [{}])[0]
    prompt_ids = completion.get("prompt_token_ids") or choice.get("prompt_token_ids")
    completion_ids = choice.get("token_ids")
    if prompt_ids is None or completion_ids is None:
        return None
    tokens = {"prompt_token_ids": prompt_ids, "completion_token_ids": completion_ids}
    entries = (choice.get("logprobs") or {}).get("content")
    if entries is not None:
        tokens["completion_logprobs"] = [entry["logprob"] for entry in entries]
    return tokens


class CorralClient:
    """One corral server. `timeout` (seconds) bounds each HTTP request; streams wait that long between lines."""

    def __init__(self, base_url="http://127.0.0.1:7777", token=None, timeout=120.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # -- HTTP ---------------------------------------------------------------------------------------------

    def _headers(self, extra=None):
        headers = {"authorization": f"Bearer {self.token}"} if self.token else {}
        headers.update(extra or {})
        return headers

    def _open(self, method, url, body=None, headers=None, raw=None):
        """The open response (caller closes it); raises the typed CorralError for an HTTP error status."""
        if not url.startswith("http"):
            url = self.base_url + url
        all_headers = self._headers(headers)
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["content-type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            with error:
                raise _error_from_response(error.code, error.read().decode("utf-8", "replace")) from None

    def request(self, method, path, body=None):
        """A JSON request: the decoded JSON answer, or None for an empty one (204)."""
        with self._open(method, path, body) as response:
            text = response.read().decode()
        return json.loads(text) if text.strip() else None

    def health(self):
        return self.request("GET", "/healthz")

    # -- rollouts -----------------------------------------------------------------------------------------

    def rollouts(self, env, model, examples=None, example_ids=None, n=None, env_args=None, deadline=None, **options):
        """POST /v1/rollouts: iterate result records as their groups finish; `.summary` holds the summary line
        afterwards. `model` is {base_url, model, api_key?, ...}; `env_args` are the environment's arguments
        (validated by its argsSchema, as for episodes); `options` are the other request fields
        (rollouts_per_example, sampling_args, max_concurrency, max_turns, seed, policy, policy_step,
        max_staleness). Closing the stream early cancels the remaining rollouts on the server.

        Stale work: `deadline` (a datetime, naive meaning local time, or an ISO 8601 string with an offset) and/or
        `policy_step` with `max_staleness` (see set_policy_step) cancel the rollouts that can no longer make it:
        they are never yielded; `.cancelled` lists them ({reason, example_id, rollout_index, state, ...}).
        Canaries (`canaries` in options): a quarantined example's notice goes to `.quarantined`, never yielded."""
        body = {"env": env, "model": model, **options}
        if env_args is not None:
            body["env_args"] = env_args
        if deadline is not None:
            is_datetime = isinstance(deadline, datetime.datetime)
            body["deadline"] = deadline.astimezone().isoformat() if is_datetime else deadline
        for name, value in (("examples", examples), ("example_ids", example_ids), ("n", n)):
            if value is not None:
                body[name] = value
        return RolloutStream(self._open("POST", "/v1/rollouts", body))

    def samples(self, env, model, examples=None, example_ids=None, n=None, **options):
        """POST /v1/rollouts with samples: true: iterate training samples (dicts with example_id, rollout_index,
        sample_index, prompt_ids, completion_ids, completion_mask, completion_logprobs, reward, advantage; see
        docs/training.md) as their groups finish. Rollouts without samples (errored, tokens_missing) yield none;
        `.summary["samples"]` counts them afterwards, `.records` holds the records read so far. Pass token_in=True
        for token-in mode (vLLM /tokenize + /v1/completions)."""
        stream = self.rollouts(env, model, examples=examples, example_ids=example_ids, n=n, samples=True, **options)
        return SampleStream(stream)

    def set_policy_step(self, policy, step):
        """POST /v1/policies/<policy>/step: the trainer's policy is now at `step` (after a weight update). Requests of
        this policy with max_staleness cancel their rollouts once more than that many steps behind. Returns the
        policy's step (a clock never goes back)."""
        return self.request("POST", f"/v1/policies/{urllib.parse.quote(policy, safe='')}/step", {"step": step})["step"]

    def policy_step(self, policy):
        """GET /v1/policies/<policy>/step: the policy's current step, or None before any."""
        return self.request("GET", f"/v1/policies/{urllib.parse.quote(policy, safe='')}/step")["step"]

    # -- episodes -----------------------------------------------------------------------------------------

    def create_episode(self, env, example_id=None, example=None, env_args=None):
        """POST /v1/episodes: the environment's setup hook has run when this returns."""
        body = {"env": env}
        if example_id is not None:
            body["example_id"] = example_id
        if example is not None:
            body["example"] = example
        if env_args is not None:
            body["env_args"] = env_args
        return Episode(self, self.request("POST", "/v1/episodes", body))

    def episode(self, env, example_id=None, example=None, env_args=None):
        """Same as create_episode; the Episode is a context manager that deletes it on exit."""
        return self.create_episode(env, example_id=example_id, example=example, env_args=env_args)

    def episode_socket(self):
        """A connection to /ws/episodes: reset/step/state/fork/close over one WebSocket (an EpisodeSocket)."""
        return EpisodeSocket(self)

    # -- sandboxes ----------------------------------------------------------------------------------------

    def create_sandbox(self, env="python", ttl_ms=None, env_vars=None, files=None):
        """POST /v1/sandboxes. `files` maps workspace paths to str or bytes contents, written before it returns."""
        body = {"env": env}
        if ttl_ms is not None:
            body["ttl_ms"] = ttl_ms
        if env_vars is not None:
            body["env_vars"] = env_vars
        if files:
            body["files"] = [_upload(path, content) for path, content in files.items()]
        return Sandbox(self, self.request("POST", "/v1/sandboxes", body))

    def sandboxes(self):
        return [Sandbox(self, info) for info in self.request("GET", "/v1/sandboxes")["sandboxes"]]

    # -- MCP ----------------------------------------------------------------------------------------------

    def mcp(self, url_or_env):
        """An initialized MCP session at a full URL (an episode's or sandbox's mcpUrl) or at /mcp/<env>."""
        url = url_or_env if url_or_env.startswith("http") else f"{self.base_url}/mcp/{url_or_env}"
        return McpSession(self, url).initialize()


def _upload(path, content):
    if isinstance(content, bytes):
        return {"path": path, "content": base64.b64encode(content).decode(), "encoding": "base64"}
    return {"path": path, "content": content}


class RolloutStream:
    """Result records of POST /v1/rollouts, one per iteration, read as the server streams them (NDJSON)."""

    def __init__(self, response):
        self._response = response
        self.summary = None
        self.cancelled = []
        self.quarantined = []

    def __iter__(self):
        try:
            for line in self._response:
                if not line.strip():
                    continue
                value = json.loads(line)
                if value.get("type") == "cancelled":
                    # Past the deadline or too stale: never a record, so never yielded as one.
                    self.cancelled.append(value)
                    continue
                if value.get("type") == "quarantine":
                    # A canaried example whose oracle missed or whose empty answer scored: its records follow, flagged.
                    self.quarantined.append(value)
                    continue
                if value.get("type") == "summary":
                    self.summary = value
                    if value.get("status") == "failed":
                        error = value.get("error") or {}
                        code = error.get("code", "RUNNER_ERR_UNEXPECTED")
                        raise ServerError(code, error.get("message", "the run failed"))
                    continue
                yield value
        finally:
            self.close()

    def close(self):
        """Stops reading; the server cancels rollouts still running when the connection closes."""
        self._response.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SampleStream:
    """Training samples of POST /v1/rollouts with samples: true, one per iteration (a rollout may give several
    when its chat template broke the token prefix, or none)."""

    def __init__(self, rollouts):
        self._rollouts = rollouts
        self.records = []

    @property
    def summary(self):
        return self._rollouts.summary

    def __iter__(self):
        for record in self._rollouts:
            self.records.append(record)
            yield from record.get("samples") or []

    def close(self):
        self._rollouts.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Episode:
    """One episode: the prompt and tools to give your model, tools to call, a completion to score, then delete."""

    def __init__(self, client, info):
        self._client = client
        self.id = info["id"]
        self.env = info["env"]
        self.example_id = info.get("example_id")
        self.prompt = info["prompt"]
        self.tools = info["tools"]
        self.mcp_url = info["mcpUrl"]
        self.expires_at = info["expiresAt"]
        self.forked_from_turn = None
        self._path = "/v1/episodes/" + urllib.parse.quote(self.id, safe="")

    def call_tool(self, name, arguments=None):
        """The tool's result {text, structuredContent?, isError}; a failure inside the tool is isError, not a raise."""
        return self._client.request("POST", f"{self._path}/tools/{urllib.parse.quote(name, safe='')}", arguments or {})

    def score(self, completion):
        """The environment's rubric over `completion` (the final text, or the message list), in this episode's
        sandbox: {reward, metrics, answer}. Once per episode."""
        return self._client.request("POST", f"{self._path}/score", {"completion": completion})

    def step(self, message, tokens=None):
        """One turn of your model: `message` is its assistant message (an OpenAI-style dict with content and/or
        tool_calls, or its text alone). Corral runs the tool calls on this episode's sandbox and state, or asks the
        environment for its reply, and answers {messages, done}: the messages to append (tool results, or the
        environment's user turns); once done also reward, metrics, answer and reason, scored over the conversation
        stepped here. `tokens` ({prompt_token_ids, completion_token_ids, completion_logprobs?}, as your inference
        server gave them for this message; see tokens_of) are kept for the episode's record and training samples."""
        body = {"message": message}
        if tokens is not None:
            body["tokens"] = tokens
        return self._client.request("POST", f"{self._path}/step", body)

    def state(self):
        """The conversation stepped so far: {id, messages (prompt included), turns, tokens (per turn, as stepped),
        forked_from ({episode, turn} for a fork's child, else None), done, reward, reason}."""
        return self._client.request("GET", f"{self._path}/state")

    def fork(self, n):
        """`n` new episodes that continue this one from its current turn: each with a copy of its sandbox's files,
        its state and its conversation (token ids included); this episode is unchanged. All or nothing. Returns the
        children as Episode objects (each an ordinary episode: step, state, record, delete; `forked_from_turn` says
        where it starts)."""
        answer = self._client.request("POST", f"{self._path}/fork", {"n": n})
        children = [Episode(self._client, info) for info in answer["episodes"]]
        for child in children:
            child.forked_from_turn = answer["turn"]
        return children

    def record(self):
        """The ended episode's result record (the layout of results.jsonl; `lineage` {kind: "fork", source_record:
        the parent's id, from_turn} on a fork's child) with `samples`, its training samples built from the token ids
        stepped. ConflictError (EPISODE_ERR_NOT_DONE) before the episode ended."""
        return self._client.request("GET", f"{self._path}/record")

    def describe(self):
        return self._client.request("GET", self._path)

    def mcp(self):
        """An MCP session on this episode's endpoint (same sandbox and state as call_tool)."""
        return self._client.mcp(self.mcp_url)

    def delete(self):
        """Runs the environment's cleanup hook and releases the sandbox."""
        self._client.request("DELETE", self._path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.delete()
        except (NotFoundError, ExpiredError):
            pass  # already gone: nothing left to release


class EpisodeSocket:
    """/ws/episodes: one episode at a time over one WebSocket, with OpenEnv-style reset/step/state. Each call sends
    one JSON frame and returns the `data` of the answer; refusals raise the same typed CorralErrors as HTTP."""

    def __init__(self, client):
        url = client.base_url + "/ws/episodes"
        try:
            self._socket = WebSocket(url, headers=client._headers(), timeout=client.timeout)
        except HandshakeRefused as refused:
            raise _error_from_response(refused.status, refused.body) from None
        self._client = client
        self.episode_id = None

    def _call(self, message, expected):
        try:
            self._socket.send_text(json.dumps(message))
            answer = json.loads(self._socket.receive_text())
        except WebSocketClosed as closed:
            raise CorralError("WS_CLOSED", str(closed)) from None
        data = answer.get("data") or {}
        if answer.get("type") == "error":
            status = data.get("status") or 500
            details = {key: value for key, value in data.items() if key not in ("code", "message", "status")}
            kind = _ERROR_BY_STATUS.get(status, ServerError if status >= 500 else CorralError)
            raise kind(data.get("code"), data.get("message", ""), status, details)
        if answer.get("type") != expected:
            raise CorralError("WS_UNEXPECTED", f"expected a {expected} answer, got {answer.get('type')}")
        return data

    def reset(self, env, example_id=None, example=None, env_args=None):
        """A new episode (the previous one is released): {observation: {episode_id, prompt, tools, ...}, reward,
        done}."""
        body = {"env": env}
        for name, value in (("example_id", example_id), ("example", example), ("env_args", env_args)):
            if value is not None:
                body[name] = value
        data = self._call({"type": "reset", "data": body}, "observation")
        self.episode_id = data["observation"]["episode_id"]
        return data

    def step(self, message):
        """As Episode.step: {observation: {messages}, reward, done, metadata?} (metadata once done: metrics, answer,
        reason)."""
        return self._call({"type": "step", "data": {"message": message}}, "observation")

    def state(self):
        """{episode_id, step_count, messages, tokens, forked_from, done, reward, reason}."""
        return self._call({"type": "state"}, "state")

    def fork(self, n):
        """Forks this connection's episode at its current turn, as Episode.fork does (the same server call): `n`
        children as Episode objects, driven over HTTP (step, state, record, delete). The connection stays on the
        parent, and closing it does not release the children: delete them (or let idle expiry do it)."""
        data = self._call({"type": "fork", "data": {"n": n}}, "forked")
        paths = ["/v1/episodes/" + urllib.parse.quote(child_id, safe="") for child_id in data["ids"]]
        children = [Episode(self._client, self._client.request("GET", path)) for path in paths]
        for child in children:
            child.forked_from_turn = data["turn"]
        return children

    def close(self):
        """Releases the episode (cleanup hook) and closes the connection."""
        if self._socket.closed:
            return
        try:
            self._socket.send_text(json.dumps({"type": "close"}))
        except (WebSocketClosed, OSError):
            pass
        self._socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Sandbox:
    """A sandbox handle (POST /v1/sandboxes): files over HTTP, commands and tools over its MCP endpoint."""

    def __init__(self, client, info):
        self._client = client
        self.id = info["id"]
        self.env = info["env"]
        self.mcp_url = info["mcpUrl"]
        self.ws_url = info.get("wsUrl")
        self.expires_at = info["expiresAt"]
        self._path = "/v1/sandboxes/" + urllib.parse.quote(self.id, safe="")
        self._mcp = None

    def write_file(self, path, content):
        data = content.encode() if isinstance(content, str) else content
        url = f"{self._path}/files?path={urllib.parse.quote(path, safe='')}"
        with self._client._open("PUT", url, raw=data, headers={"content-type": "application/octet-stream"}) as response:
            return json.loads(response.read())

    def read_file(self, path):
        """The file's bytes, or None when it does not exist."""
        try:
            with self._client._open("GET", f"{self._path}/files?path={urllib.parse.quote(path, safe='')}") as response:
                return response.read()
        except NotFoundError:
            return None

    def call_tool(self, name, arguments=None):
        if self._mcp is None:
            self._mcp = self._client.mcp(self.mcp_url)
        return self._mcp.call_tool(name, arguments or {})

    def exec(self, command, timeout_s=None):
        """Runs a shell command (the bash tool): {stdout, stderr, exit_code, ...}."""
        arguments = {"command": command}
        if timeout_s is not None:
            arguments["timeout_s"] = timeout_s
        return self.call_tool("bash", arguments).get("structuredContent", {})

    def describe(self):
        return self._client.request("GET", self._path)

    def delete(self):
        if self._mcp is not None:
            self._mcp.close()
        self._client.request("DELETE", self._path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.delete()
        except NotFoundError:
            pass


class McpSession:
    """Just enough MCP over Streamable HTTP: each request gets its JSON-RPC response as a JSON body or inside a
    Server-Sent Events stream; the server's session id (2025-era) is sent back on every later request."""

    def __init__(self, client, url):
        self._client = client
        self.url = url
        self.session_id = None
        self.server_info = None
        self._next_id = 1

    def _post(self, message, wanted_id=None):
        headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": MCP_PROTOCOL_VERSION}
        if self.session_id:
            headers["mcp-session-id"] = self.session_id
        with self._client._open("POST", self.url, message, headers) as response:
            self.session_id = response.headers.get("mcp-session-id") or self.session_id
            if "text/event-stream" in (response.headers.get("content-type") or ""):
                return _first_sse_reply(response, wanted_id)
            text = response.read().decode()
        if not text.strip():
            return None
        replies = json.loads(text)
        for reply in replies if isinstance(replies, list) else [replies]:
            if reply.get("id") == wanted_id:
                return reply
        return None

    def request(self, method, params=None):
        message_id = self._next_id
        self._next_id += 1
        reply = self._post({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params or {}}, message_id)
        if reply is None:
            raise McpError("MCP_NO_RESPONSE", f"{method}: the server sent no response")
        if "error" in reply:
            error = reply["error"]
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
            code = data.get("corralCode") or f"JSONRPC_{error.get('code')}"
            raise McpError(code, error.get("message", ""), details=data)
        return reply["result"]

    def initialize(self):
        client_info = {"name": "corral-client-python", "version": __version__}
        params = {"protocolVersion": MCP_PROTOCOL_VERSION, "capabilities": {}, "clientInfo": client_info}
        result = self.request("initialize", params)
        self.server_info = result.get("serverInfo")
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    def list_tools(self):
        return self.request("tools/list")["tools"]

    def call_tool(self, name, arguments=None):
        """The CallToolResult plus `text` (its text blocks joined), as {text, structuredContent?, isError, content}."""
        result = self.request("tools/call", {"name": name, "arguments": arguments or {}})
        text = "\n".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")
        return {**result, "text": text, "isError": result.get("isError") is True}

    def close(self):
        """Ends a 2025-era session (DELETE); sessionless endpoints have nothing to end."""
        if not self.session_id:
            return
        try:
            self._client._open("DELETE", self.url, headers={"mcp-session-id": self.session_id}).close()
        except CorralError:
            pass
        self.session_id = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _first_sse_reply(response, wanted_id):
    """Reads Server-Sent Events until the JSON-RPC message with `wanted_id` (notifications before it are skipped)."""
    data_lines = []
    for raw in response:
        line = raw.decode().rstrip("\r\n")
        if line.startswith("data:"):
            data_lines.append(line[5:].lstrip(" "))
            continue
        if line or not data_lines:
            continue
        message = json.loads("\n".join(data_lines))
        data_lines = []
        if wanted_id is None or (isinstance(message, dict) and message.get("id") == wanted_id):
            return message
    if data_lines:
        message = json.loads("\n".join(data_lines))
        if wanted_id is None or message.get("id") == wanted_id:
            return message
    return None
