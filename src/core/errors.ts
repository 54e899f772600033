/**
 * Errors with stable codes. Every error corral throws on purpose is a CorralError whose `code` is one of
 * ERROR_CODES; `CorralError.isInstance` works across copies of this module through a Symbol.for marker.
 * `audience` says who should see it: 'model' errors become tool results with isError, 'caller' errors are
 * protocol/config misuse, 'infrastructure' errors mark a rollout errored (never scored 0).
 */
const MARKER = Symbol.for('corral.error');

export type ErrorAudience = 'model' | 'caller' | 'infrastructure';

export const ERROR_CODES = {
  SBX_ERR_TIMEOUT: { audience: 'model', transient: false, doc: 'A sandbox call exceeded its timeout; the process tree was killed.' },
  SBX_ERR_OUTPUT_LIMIT: { audience: 'model', transient: false, doc: 'A result exceeded a size cap (e.g. a file larger than the read limit).' },
  SBX_ERR_KILLED: { audience: 'infrastructure', transient: true, doc: 'The sandbox was killed (out of memory, pids limit, or externally) during a call.' },
  SBX_ERR_NOT_FOUND: { audience: 'model', transient: false, doc: 'A path or object does not exist (methods that can return null do so instead).' },
  SBX_ERR_PERMISSION: {
    audience: 'model',
    transient: false,
    doc: 'The operation is not allowed: outside the workspace, a symlink escape, or denied by the OS.',
  },
  SBX_ERR_INVALID_ARGUMENT: {
    audience: 'model',
    transient: false,
    doc: 'A sandbox call was given an argument it cannot act on (e.g. an edit whose old text is absent).',
  },
  SBX_ERR_UNAVAILABLE: {
    audience: 'infrastructure',
    transient: true,
    doc: 'A backend cannot be reached or started here (no Docker daemon, no bwrap, missing image).',
  },
  SBX_ERR_UNSUPPORTED: { audience: 'caller', transient: false, doc: 'The backend does not offer this capability (e.g. shell on the isolate backend).' },
  SBX_ERR_PROTOCOL: { audience: 'infrastructure', transient: false, doc: 'The in-sandbox agent sent something that breaks the wire protocol.' },
  SBX_ERR_INTERNAL: {
    audience: 'infrastructure',
    transient: false,
    doc: 'The in-sandbox agent failed while serving a call (an internal fault or a resource it could not get, e.g. no thread under the pids limit).',
  },
  SBX_ERR_CLOSED: { audience: 'infrastructure', transient: true, doc: 'The sandbox is gone (destroyed, expired or its stream closed) and cannot serve calls.' },
  SBX_ERR_RESET_FAILED: { audience: 'infrastructure', transient: true, doc: 'A reset could not prove the sandbox clean; it was destroyed instead.' },
  SBX_ERR_UNRESPONSIVE: {
    audience: 'infrastructure',
    transient: true,
    doc: 'A sandbox call timed out and the in-sandbox agent then failed its own health check (e.g. a frozen container); the sandbox was taken out of service and the next call gets a fresh one.',
  },
  SBX_ERR_MEMORY_LIMIT: { audience: 'model', transient: false, doc: 'A JavaScript isolate ran out of its memory limit; its state was lost.' },
  SBX_ERR_FORK_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: "Copying a sandbox's file system for a fork failed (the copy in the sandbox's namespace exited with an error, e.g. on a file the sandbox user made unreadable, or ran out of time); no child was handed out.",
  },
  POOL_ERR_ACQUIRE_TIMEOUT: { audience: 'infrastructure', transient: true, doc: 'No sandbox became free within the acquire timeout.' },
  POOL_ERR_CLOSED: { audience: 'infrastructure', transient: false, doc: 'The pool is shutting down and hands out no more sandboxes.' },
  POOL_ERR_CREATE_FAILED: { audience: 'infrastructure', transient: true, doc: 'The backend failed to create a sandbox.' },
  CFG_ERR_INVALID: { audience: 'caller', transient: false, doc: 'Configuration failed validation; the message names the flag or variable to set.' },
  CLI_ERR_NEEDS_CHECKOUT: {
    audience: 'caller',
    transient: false,
    doc: 'The command runs only from a corral source checkout (e.g. `corral bench`: an installed package does not ship the benchmarks).',
  },
  SERVE_ERR_LISTEN_FAILED: {
    audience: 'caller',
    transient: false,
    doc: '`corral serve` could not listen: the port is in use, not permitted, or the host is not an address of this machine; the message names the flag to change.',
  },
  IMG_ERR_BUILD_FAILED: { audience: 'infrastructure', transient: false, doc: 'Building a sandbox image failed.' },
  IMG_ERR_UNKNOWN_SET: { audience: 'caller', transient: false, doc: '`corral images build --only` named a set of images that does not exist.' },
  WIKI_ERR_CORPUS_NOT_FOUND: {
    audience: 'caller',
    transient: false,
    doc: 'A wiki corpus path (pages.jsonl, a folder of .md files, or the data directory) does not exist or holds no pages.',
  },
  WIKI_ERR_CORPUS_INVALID: { audience: 'caller', transient: false, doc: 'A wiki corpus file is malformed; the message names the file and line.' },
  WIKI_ERR_DUPLICATE_PAGE_ID: {
    audience: 'caller',
    transient: false,
    doc: 'Two wiki pages share an id (within a corpus, or across combined corpora without an id prefix).',
  },
  WIKI_ERR_INDEX_FILE_INVALID: {
    audience: 'infrastructure',
    transient: false,
    doc: 'A saved wiki index file cannot be read (truncated or not written by this library).',
  },
  WIKI_ERR_INDEX_NOT_FOUND: {
    audience: 'caller',
    transient: false,
    doc: 'No disk wiki index at the given path (a directory written by `corral wiki index`, or its wiki-index.sqlite file).',
  },
  WIKI_ERR_INDEX_INCOMPLETE: {
    audience: 'caller',
    transient: false,
    doc: 'The disk wiki index was not finished (its build was interrupted); run `corral wiki index` again with the same corpus and --out to resume it.',
  },
  WIKI_ERR_SQLITE_UNAVAILABLE: {
    audience: 'caller',
    transient: false,
    doc: 'The disk wiki index needs the optional native module better-sqlite3, which is not installed; the message names the npm install command.',
  },
  RUNNER_ERR_CANCELLED: {
    audience: 'infrastructure',
    transient: false,
    doc: 'The rollout was cancelled (Ctrl-C, a closed rollout request); its sandbox was released.',
  },
  RUNNER_ERR_TIMEOUT: { audience: 'infrastructure', transient: false, doc: "The rollout exceeded the environment's rolloutTimeoutMs." },
  RUNNER_ERR_UNEXPECTED: {
    audience: 'infrastructure',
    transient: false,
    doc: 'A rollout failed with an error that carries no corral code (a bug: please report it).',
  },
  RUNNER_ERR_RESUME_MISMATCH: {
    audience: 'caller',
    transient: false,
    doc: '--resume was given a flag (or an environment, or a dataset) that differs from what the run in that directory was started with; the message names both values.',
  },
  RUNNER_ERR_RUN_ACTIVE: {
    audience: 'caller',
    transient: false,
    doc: '--resume points at a run that a live `corral eval` process on this host is still writing (metadata.json names its pid).',
  },
  RUNNER_ERR_AGENT_MISMATCH: {
    audience: 'caller',
    transient: false,
    doc: 'The chosen agent declares the environments it serves, and this environment is not one of them (e.g. --agent oracle on wiki-search).',
  },
  MODEL_ERR_HTTP: {
    audience: 'infrastructure',
    transient: false,
    doc: 'The model endpoint answered with an HTTP error that retrying cannot fix (400, 401, 403, 404, 422...); details.status holds the status.',
  },
  MODEL_ERR_CONTEXT_LENGTH: {
    audience: 'infrastructure',
    transient: false,
    doc: "The model endpoint refused the request because the conversation exceeds the model's context length (HTTP 400); details.status holds the status.",
  },
  MODEL_ERR_RATE_LIMITED: {
    audience: 'infrastructure',
    transient: true,
    doc: 'The model endpoint kept answering HTTP 429 after all retries; details.status and details.attempts say what happened.',
  },
  MODEL_ERR_SERVER: {
    audience: 'infrastructure',
    transient: true,
    doc: 'The model endpoint kept answering HTTP 5xx (or 408) after all retries; details.status holds the last status.',
  },
  MODEL_ERR_CONNECTION: {
    audience: 'infrastructure',
    transient: true,
    doc: 'The model endpoint could not be reached (refused, reset, DNS) after all retries.',
  },
  MODEL_ERR_TIMEOUT: { audience: 'infrastructure', transient: true, doc: "A model request exceeded the agent's requestTimeoutMs on every attempt." },
  MODEL_ERR_ENDPOINT_REFUSED: {
    audience: 'caller',
    transient: false,
    doc: "The server's model endpoint policy refuses model.base_url's resolved address (loopback, link-local, metadata or unspecified on a server bound beyond 127.0.0.1, or not in server.modelEndpointAllowlist): HTTP 400 before any rollout runs, or a recorded model error when only the connection's own lookup saw it.",
  },
  MODEL_ERR_BAD_RESPONSE: {
    audience: 'infrastructure',
    transient: false,
    doc: 'The model endpoint answered 2xx with a body that is not a chat completion (not JSON, or no choices[0].message).',
  },
  MODEL_ERR_TOKEN_IN: {
    audience: 'infrastructure',
    transient: false,
    doc: 'Token-in mode cannot continue a rollout: /tokenize or /v1/completions is missing or sent no token ids, or the chat template renders the conversation so that its earlier turns are not a prefix of the whole (corral would have to re-tokenise history).',
  },
  ENV_ERR_NOT_FOUND: { audience: 'caller', transient: false, doc: 'No built-in environment has this name and no environment module exists at this path.' },
  ENV_ERR_INVALID_MODULE: {
    audience: 'caller',
    transient: false,
    doc: 'An environment module failed to load, or its default export is not an Environment made with defineEnvironment.',
  },
  ENV_ERR_INSTALL_FAILED: {
    audience: 'caller',
    transient: false,
    doc: "`corral env install` failed: npm could not be run or exited non-zero; the message ends with the tail of npm's stderr.",
  },
  ENV_ERR_NOT_ENVIRONMENT_PACKAGE: {
    audience: 'caller',
    transient: false,
    doc: 'A package has no `"corral": {"environment": "./path"}` in its package.json and is not named corral-env-*, or its entry module is missing; an install of it is undone.',
  },
  ENV_ERR_DATASET_NOT_FOUND: {
    audience: 'caller',
    transient: false,
    doc: 'A dataset file (questions, problems) does not exist; the message names the flag or CORRAL_DATA_DIR to set.',
  },
  ENV_ERR_DATASET_INVALID: {
    audience: 'caller',
    transient: false,
    doc: 'A dataset file is malformed or of an unknown format; the message names the file and line.',
  },
  ENV_ERR_INVALID_ARGS: {
    audience: 'caller',
    transient: false,
    doc: "Environment arguments (`corral eval --env-args JSON`, an episode's env_args) are not a JSON object, fail the environment's argsSchema (details.issues lists each zod issue by path), or were given to an environment that declares no argsSchema.",
  },
  ENV_ERR_SETUP_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: "The environment's setup hook (or its state()) threw before the agent's first turn: the rollout is errored with boundary 'environment', never scored; cleanup still runs.",
  },
  ENV_ERR_CLEANUP_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: "The environment's cleanup hook threw after scoring: the rollout is errored with boundary 'environment' (its sandbox is released anyway).",
  },
  ENV_ERR_STOP_PREDICATE_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: "One of the environment's stopWhen predicates threw: the rollout is errored with boundary 'environment'.",
  },
  ENV_ERR_RESPOND_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: "The environment's respond (its reply after an assistant turn without tool calls, a simulated user included) threw or returned something that is not an EnvironmentReply: the rollout is errored with boundary 'environment', never scored 0.",
  },
  ENV_ERR_REPLIES_UNSUPPORTED: {
    audience: 'caller',
    transient: false,
    doc: 'The environment answers turns itself (respond) and the chosen agent cannot continue a conversation after such a reply (a CLI coding agent, a model-free agent): the run is refused before its first rollout; use --agent openai (--model, --base-url) or a ScriptedAgent.',
  },
  ENV_ERR_NOT_SERVED: {
    audience: 'caller',
    transient: false,
    doc: 'A client named an environment this server does not serve (POST /v1/rollouts, /v1/episodes): only built-ins and what the operator loaded with `corral serve --env` can be named, never a path or package a client chooses (HTTP 400).',
  },
  ENV_ERR_NAME_TAKEN: {
    audience: 'caller',
    transient: false,
    doc: "`corral serve --env` loaded an environment whose name is a built-in's (python-code, wiki-search, ...): it would silently replace the built-in for every client, so serve refuses to start; rename the environment.",
  },
  ENV_ERR_LOAD_TIMEOUT: {
    audience: 'caller',
    transient: false,
    doc: 'An environment or agent module did not finish importing within environments.loadTimeoutMs (CORRAL_ENV_LOAD_TIMEOUT_MS, default 60 s): a top-level await that never settles. A reload that times out keeps the previous definition and later reloads still run.',
  },
  ENV_ERR_NO_EXAMPLE: {
    audience: 'model',
    transient: false,
    doc: "An environment's own tool (or its state()) read the example at /mcp/<env> or /ws/<env>, where no example was chosen: the call is answered as an error result naming the field; run the tool in an episode (POST /v1/episodes) or a rollout.",
  },
  ENV_ERR_INIT_EXISTS: {
    audience: 'caller',
    transient: false,
    doc: '`corral env init <dir>` found files it would write (package.json, index.ts, agents.ts, README.md) already there; it never overwrites.',
  },
  AGENT_ERR_MISUSE: {
    audience: 'caller',
    transient: false,
    doc: "A model-free agent an environment module exports used the agent API wrongly: defineAgent's callTool with a tool the environment lacks, arguments that are not an object, more calls than maxTurns, a second answer(); or recorder.callTool given something other than (tools, a tool call, turn). The rollout is errored with this code and the message says what to write.",
  },
  EPISODE_ERR_NOT_FOUND: {
    audience: 'caller',
    transient: false,
    doc: "No episode has this id for this client (never created, already deleted, or another principal's): HTTP 404.",
  },
  EPISODE_ERR_EXPIRED: {
    audience: 'caller',
    transient: false,
    doc: 'The episode was idle longer than server.episodeIdleTtlMs and was released (cleanup ran, its sandbox is gone): HTTP 410; create a new one.',
  },
  EPISODE_ERR_ALREADY_SCORED: {
    audience: 'caller',
    transient: false,
    doc: 'POST /v1/episodes/<id>/score was called a second time for the same episode: HTTP 409.',
  },
  EPISODE_ERR_CLOSED: {
    audience: 'caller',
    transient: false,
    doc: 'The episode was released (DELETE /v1/episodes/<id>, or server shutdown) while this tool call or score ran; its sandbox and state are gone: HTTP 409.',
  },
  EPISODE_ERR_UNKNOWN_TOOL: {
    audience: 'caller',
    transient: false,
    doc: "The episode's environment has no tool of this name: HTTP 404; details.available lists its tools.",
  },
  EPISODE_ERR_DONE: {
    audience: 'caller',
    transient: false,
    doc: 'A step (POST /v1/episodes/<id>/step, or step over /ws/episodes) on an episode that has ended: done was answered, or a step failed and errored it (details.reason). HTTP 409; create a new episode.',
  },
  EPISODE_ERR_BUSY: {
    audience: 'caller',
    transient: false,
    doc: "A step sent while the same episode's previous step still runs: steps of one episode are one conversation, taken in turn. HTTP 409; wait for the answer, then step.",
  },
  EPISODE_ERR_STEPPED: {
    audience: 'caller',
    transient: false,
    doc: 'POST /v1/episodes/<id>/score on an episode driven by step: its reward comes with the step that ends it, over the conversation stepped on the server. HTTP 409.',
  },
  EPISODE_ERR_NOT_DONE: {
    audience: 'caller',
    transient: false,
    doc: 'GET /v1/episodes/<id>/record on an episode that has not ended: its record (and training samples) exist once a step answered done, or a step errored it. HTTP 409; step on.',
  },
  ENV_ERR_FORK_STATE_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: "Copying the environment's state into another rollout (an episode fork, setupScope 'example') failed: its forkState hook threw, or, without one, structuredClone refused the state (functions, sockets). No copy was made; keep state to plain data or define forkState.",
  },
  RUBRIC_ERR_TOOL_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: "A rubric could not use the rollout's tools (e.g. writing the test harness failed), so the answer could not be judged.",
  },
  RUBRIC_ERR_JUDGE_FAILED: {
    audience: 'infrastructure',
    transient: true,
    doc: 'The LLM judge endpoint failed or gave no yes/no grade; the rollout is errored, never scored 0.',
  },
  RUBRIC_ERR_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: "A rubric function threw an error without a corral code (a bug in the environment's rubric); the rollout is errored, never scored 0.",
  },
  RESCORE_ERR_RUN_NOT_FOUND: {
    audience: 'caller',
    transient: false,
    doc: '`corral rescore`, `corral replay` or `corral export pairs` was given a folder that is not a run: it does not exist or holds no results.jsonl.',
  },
  RESCORE_ERR_NEEDS_SANDBOX: {
    audience: 'caller',
    transient: false,
    doc: "A rubric function reads the rollout's sandbox (its tools) or the state its tools left, which a saved trajectory does not hold: it declares readsSandbox, or touched tools/state during the dry scoring. That rubric cannot be re-scored offline.",
  },
  RESCORE_ERR_NO_FILE_SYSTEM: {
    audience: 'caller',
    transient: false,
    doc: "`corral rescore` of a terminal run: a scored trial has no kept final file system (the run predates keeping it, the agent's changes were over the size cap, or the archive is gone), so its verifier cannot run again; details.trials names each.",
  },
  REPLAY_ERR_BAD_TURN: {
    audience: 'caller',
    transient: false,
    doc: '`corral replay --from-turn K`: K must be a whole number from 1 to the number of turns of the longest selected trajectory.',
  },
  REPLAY_ERR_TOOL_MISMATCH: {
    audience: 'model',
    transient: false,
    doc: 'A replayed agent called a tool that differs (name or arguments) from the call recorded at that point; with --tools recorded it gets this as an error result, and the record shows it.',
  },
  HTTP_ERR_QUOTA_EXCEEDED: {
    audience: 'caller',
    transient: true,
    doc: 'A per-principal server quota (MCP sessions, sandbox handles, leased sandboxes, rollout requests) is full: HTTP 429; details.quota names the setting, details.limit its value.',
  },
  HTTP_ERR_JSON_TOO_DEEP: {
    audience: 'caller',
    transient: false,
    doc: 'A request body (or WebSocket frame) nests JSON objects and arrays deeper than the server reads (128 levels): HTTP 400, JSON-RPC -32600 on MCP routes; details.limit is the bound.',
  },
  HTTP_ERR_UNSUPPORTED_ENCODING: {
    audience: 'caller',
    transient: false,
    doc: 'A request body has a Content-Encoding the server cannot decode (it decodes gzip, deflate and br): HTTP 415.',
  },
  HTTP_ERR_CONNECTION_LIMIT: {
    audience: 'caller',
    transient: true,
    doc: 'The server (or the share of one remote address) is at its connection cap and every connection is busy or was used within the keep-alive timeout: HTTP 503 with Retry-After, before any request is read; retry later or raise server.maxConnectionsPerAddress.',
  },
  TASK_ERR_NOT_FOUND: {
    audience: 'caller',
    transient: false,
    doc: 'A task path does not exist, or a dataset folder holds no task folder (instruction.md + task.toml, or a Terminal-Bench v1 task.yaml).',
  },
  TASK_ERR_INVALID: {
    audience: 'caller',
    transient: false,
    doc: 'A task folder is malformed: a required file is missing, or task.toml / task.yaml does not parse or fails validation; the message names the file and field.',
  },
  TASK_ERR_UNSUPPORTED: {
    audience: 'caller',
    transient: false,
    doc: 'A task uses a feature corral does not run yet (multi-step [[steps]], a docker-compose environment, network_mode allowlist, a multi-service TB v1 compose file); it is refused, never run wrongly.',
  },
  TASK_ERR_IMAGE_BUILD_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: "A task's environment image could not be built (Dockerfile error, build_timeout_sec exceeded, daemon error); details.logPath names the kept build log. Other tasks still build.",
  },
  TASK_ERR_IMAGE_NOT_FOUND: {
    audience: 'caller',
    transient: false,
    doc: "A task's [environment].docker_image is not a local image, or a Dockerfile's FROM image is neither in the base-image map nor local; the message says what to build or map.",
  },
  TASK_ERR_REMOTE_SOURCE: {
    audience: 'caller',
    transient: false,
    doc: "A task Dockerfile would make the daemon fetch from outside the task's build context (ADD of a URL or git repository, a variable in an ADD source, COPY/ADD --from that is not an earlier stage): refused before the build, because the daemon fetches on the host's network.",
  },
  TASK_ERR_RESULT_INVALID: {
    audience: 'caller',
    transient: false,
    doc: "Harbor job layout input is unusable: a trial name that is not one path segment, or a file's target name that leaves its trial folder.",
  },
  TERMINAL_ERR_NO_REWARD: {
    audience: 'infrastructure',
    transient: false,
    doc: "A trial's verifier left no usable reward: /logs/verifier/reward.json (flat numbers) and reward.txt (one number) are both missing, empty or unparseable. The trial is errored, never scored 0.",
  },
  TERMINAL_ERR_VERIFIER_TIMEOUT: {
    audience: 'infrastructure',
    transient: false,
    doc: "A trial's tests/test.sh ran past [verifier].timeout_sec (x --timeout-multiplier) and was killed; the trial is errored.",
  },
  TERMINAL_ERR_TRIAL_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: 'A trial container could not be created, started, committed or verified (daemon error, an image without python3 or /opt/corral/agent, a failed healthcheck); details name the phase.',
  },
  TERMINAL_ERR_CONTAINER_UNAVAILABLE: {
    audience: 'infrastructure',
    transient: true,
    doc: 'The Docker daemon failed while creating, attaching or starting a trial container (a 5xx answer, a reset or refused socket): the trial is errored as transient and the run retries it in a fresh container.',
  },
  TERMINAL_ERR_STORAGE_EXCEEDED: {
    audience: 'caller',
    transient: false,
    doc: "A trial's agent phase left more than the task's [environment].storage_mb in the container's writable layer: the trial scores 0 without being verified (info.agent_phase.error carries this code); it is not errored.",
  },
  CLI_AGENT_ERR_UNKNOWN: {
    audience: 'caller',
    transient: false,
    doc: 'A CLI agent name that corral does not know (opencode, codex, claude-code, gemini-cli, qwen-code).',
  },
  CLI_AGENT_ERR_INSTALL_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: '`corral agents install`: npm could not install a pinned CLI agent (or Node 22) into the cache, or its executable is missing afterwards.',
  },
  CLI_AGENT_ERR_NOT_INSTALLED: {
    audience: 'infrastructure',
    transient: false,
    doc: 'A sandbox needs a CLI agent that is not in the cache: run `corral agents install <name>` (never installed per rollout).',
  },
  EXPORT_ERR_RUN_NOT_FOUND: {
    audience: 'caller',
    transient: false,
    doc: '`corral export` was given a folder that is not a run: it does not exist or holds no results.jsonl.',
  },
  EXPORT_ERR_ATIF_INVALID: {
    audience: 'caller',
    transient: false,
    doc: 'A trajectory is not valid ATIF v1.7 (strict schema, sequential step ids, tool-call references, agent-only fields); details.problems lists each with its JSON path.',
  },
  PROXY_ERR_BAD_REQUEST: {
    audience: 'caller',
    transient: false,
    doc: "A CLI's request to the model proxy cannot be translated to Chat Completions (not JSON, a required field missing, previous_response_id, larger than the body limit): answered 400 or 413 in the CLI's dialect.",
  },
  PROXY_ERR_UNAUTHORIZED: {
    audience: 'caller',
    transient: false,
    doc: "A request to the model proxy carried no live rollout key (none, a wrong one, one of a closed rollout, or another rollout's key on a rollout's own socket): answered 401 in the CLI's dialect.",
  },
  PROXY_ERR_NOT_FOUND: { audience: 'caller', transient: false, doc: 'The model proxy has no route for this method and path: answered 404.' },
  PROXY_ERR_ROLLOUT_LIMIT: {
    audience: 'caller',
    transient: false,
    doc: "A rollout's model calls passed what the proxy records per rollout (maxCallsPerRollout, default 2,000 calls; maxRecordedBytesPerRollout, default 64 MiB): that call and every later one are answered 400 in the CLI's dialect, and the rollout is errored with this code rather than recorded cut short.",
  },
  PROXY_ERR_INTERNAL: {
    audience: 'infrastructure',
    transient: false,
    doc: 'The model proxy itself failed while serving a call (a bug): answered 500 and recorded on the call.',
  },
  ERR_ABORTED: { audience: 'caller', transient: false, doc: 'The operation was cancelled through its AbortSignal.' },
  VIEW_ERR_NOT_FOUND: {
    audience: 'caller',
    transient: false,
    doc: 'The run viewer was asked for a run, rollout line or file that does not exist under its folder (answered 404).',
  },
  VIEW_ERR_OUTSIDE_ROOT: {
    audience: 'caller',
    transient: false,
    doc: "The run viewer refused a path that leaves its folder: '..', an absolute path, or a symlink pointing out (answered 403).",
  },
  VIEW_ERR_BAD_QUERY: {
    audience: 'caller',
    transient: false,
    doc: 'A run viewer API query parameter is missing or malformed (answered 400 with the parameter named).',
  },
  VIEW_ERR_BAD_RECORD: {
    audience: 'caller',
    transient: false,
    doc: "A line of a run's results.jsonl that the run viewer was asked to open is not a rollout record (answered 422; the run page counts such lines).",
  },
  SERIES_ERR_UNAVAILABLE: {
    audience: 'caller',
    transient: false,
    doc: 'A rollout request asked to record a series (`record: {series, step}`) and this server keeps no runs folder to write it in (answered 400).',
  },
  SERIES_ERR_WRITE: {
    audience: 'infrastructure',
    transient: false,
    doc: "A series' run folder could not be written (a symlink on the way, a file that is not regular, a full disk): the records were streamed, the summary line says so.",
  },
  QUEUE_ERR_REDIS_URL: {
    audience: 'caller',
    transient: false,
    doc: '--redis / --queue is not a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379).',
  },
  QUEUE_ERR_REDIS_UNREACHABLE: {
    audience: 'infrastructure',
    transient: true,
    doc: "The queue's Redis server did not answer (not running, wrong address, or cut off); the message names the URL without its password.",
  },
  QUEUE_ERR_INVALID_JOB: {
    audience: 'infrastructure',
    transient: false,
    doc: 'A queued rollout job or a stored result failed validation (written by another corral version, or corrupted); the job fails instead of running.',
  },
  QUEUE_ERR_NO_ENVIRONMENT: {
    audience: 'infrastructure',
    transient: false,
    doc: 'A worker received a rollout of an environment it does not hold (placement routes by environment name, so a mismatch means the worker --env list and the queue disagree); the rollout errors.',
  },
  QUEUE_ERR_UNSUPPORTED: {
    audience: 'caller',
    transient: false,
    doc: 'This run cannot go through the queue (e.g. terminal trials of a CLI agent, or episodes under `corral serve --queue`); the message says what to use instead.',
  },
  QUEUE_ERR_INVALID_RESULT: {
    audience: 'infrastructure',
    transient: false,
    doc: 'A result stored in Redis is unreadable (not JSON, or not the record of the key it is stored under); the producer records that rollout as errored and goes on, instead of re-reading it for ever.',
  },
  QUEUE_ERR_JOB_REFUSED: {
    audience: 'caller',
    transient: false,
    doc: "A queued job asks for more than the worker's own sandbox policy allows (an example's network, image or limits beyond what the environment loaded on the worker sets); the rollout is recorded errored and never runs.",
  },
  QUEUE_ERR_UNKNOWN_RUN: {
    audience: 'caller',
    transient: false,
    doc: '`corral queue cancel <run-id>` names a run this Redis does not know (`corral queue status` lists the runs; metadata.json has queue.run_id).',
  },
  QUEUE_ERR_WORKER_FAILED: {
    audience: 'infrastructure',
    transient: false,
    doc: 'A worker could not run a rollout after every attempt (it threw instead of returning a record); the record carries the last error message.',
  },
  MCP_ERR_TASK_LIMIT: {
    audience: 'caller',
    transient: true,
    doc: 'A tools/call could not become a task (tasks extension): the client already has as many running or kept tasks as the server allows; cancel one, wait for one to finish, or let kept ones reach their ttl.',
  },
  MCP_ERR_TASK_CANCELLED: {
    audience: 'caller',
    transient: false,
    doc: "The abort reason of a task's work when the task was cancelled by tasks/cancel, dropped at its ttl or ended by shutdown; the task reads as cancelled.",
  },
} as const satisfies Record<string, { audience: ErrorAudience; transient: boolean; doc: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class CorralError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CorralError';
    this.code = code;
    this.details = Object.freeze({ ...(options.details ?? {}) });
  }

  get audience(): ErrorAudience {
    return ERROR_CODES[this.code].audience;
  }

  /** Transient errors may be retried by the runner; others are final. */
  get transient(): boolean {
    return ERROR_CODES[this.code].transient;
  }

  static isInstance(value: unknown): value is CorralError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  static hasCode(value: unknown, code: ErrorCode): value is CorralError {
    return CorralError.isInstance(value) && value.code === code;
  }

  toJSON(): { code: ErrorCode; message: string; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, details: { ...this.details } };
  }
}
