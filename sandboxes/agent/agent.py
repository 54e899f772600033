"""corral in-sandbox agent: JSON lines on stdin/stdout, one request per line, answered concurrently.

Run as: python3 -u /opt/corral/agent/agent.py --workspace /workspace --deadline-ms <epoch ms>
The protocol is written down in PROTOCOL.md next to this file. Python 3 standard library only.
"""
import argparse
import json
import os
import stat
import sys
import threading
import time
import traceback

from call_context import CallContext
from dead_man import DeadManSwitch
from exec_op import ExecRunner
from file_ops import FileOps
from file_search import FileSearch
from grep_runner import GrepRunner
from process_control import LiveGroups, become_subreaper, kill_processes, sandbox_processes
from repl_host import ReplHost
from request_pool import RequestPool
from sandbox_reset import reset_sandbox
from agent_identity import adopt_user_for_files, make_non_dumpable, thread_identity_matches
from user_launcher import make_launcher, parse_command_prefix, parse_run_as
from wire import INTERNAL, INVALID_ARGUMENT, TIMEOUT, UNSUPPORTED, AgentError, LineWriter, require
from workspace_paths import WorkspacePaths

PROTOCOL_VERSION = 1
THREAD_STACK_BYTES = 1 << 20  # small stacks: dozens of request threads must fit a tight memory limit
# Concurrent calls beyond MAX_WORKERS wait in a queue; beyond MAX_QUEUED they are refused (request_pool.py).
MAX_WORKERS = 32
MAX_QUEUED = 256


def log(message):
    sys.stderr.write(f"[corral-agent {os.getpid()}] {message}\n")
    sys.stderr.flush()


class Agent:
    def __init__(self, options, writer):
        self.writer = writer
        self.workspace = os.path.abspath(options.workspace)
        self.process_scope = options.process_scope
        # /dev/mqueue: POSIX message queues are files too, and must not outlive an episode either.
        # The shared scratch places are wiped on reset only inside a sandbox's own mount namespace: an agent run
        # unsandboxed (descendants scope) without --scratch-dir would otherwise empty the host's /tmp.
        default_scratch = ["/tmp", "/dev/shm", "/dev/mqueue"] if options.process_scope == "namespace" else []
        scratch = options.scratch_dir if options.scratch_dir is not None else default_scratch
        self.scratch_dirs = [path for path in scratch if os.path.isdir(path)]
        wiped = [self.workspace, *self.scratch_dirs]
        self.directory_modes = {path: stat.S_IMODE(os.stat(path).st_mode) for path in wiped}
        self.launcher = make_launcher(options.user_spawner_prefix, options.run_as, log)
        self.groups = LiveGroups(self.launcher.signal_group)
        self.paths = WorkspacePaths(self.workspace)
        self.files = FileOps(self.paths)
        self.exec_runner = ExecRunner(self.paths, dict(os.environ), self.groups, self.launcher)
        self.repl = ReplHost(self.workspace, dict(os.environ), self.groups, self.launcher)
        self.search = FileSearch(self.paths, GrepRunner(self.launcher, self.workspace, dict(os.environ), self.groups))
        self.dead_man = DeadManSwitch(options.deadline_ms, lambda: self.shutdown("lease deadline passed"))
        self.calls = {}
        self.pool = RequestPool(MAX_WORKERS, MAX_QUEUED)
        self.calls_lock = threading.Lock()
        self.started = time.monotonic()
        # op -> (handler(request, call), runs inline on the reader thread?)
        self.ops = {
            "ping": (lambda request, call: self._ping(), True),
            "extend": (self._extend, True),
            "cancel": (self._cancel, True),
            "exec": (self.exec_runner.run, False),
            "python": (self.repl.run, False),
            "python_reset": (lambda request, call: self.repl.reset(request), False),
            "read": (lambda request, call: self.files.read(request), False),
            "write": (lambda request, call: self.files.write(request), False),
            "edit": (lambda request, call: self.files.edit(request), False),
            "list": (lambda request, call: self.files.list(request), False),
            "stat": (lambda request, call: self.files.stat(request), False),
            "remove": (lambda request, call: self.files.remove(request), False),
            "mkdir": (lambda request, call: self.files.mkdir(request), False),
            "glob": (lambda request, call: self.search.glob(request, call.deadline), False),
            "grep": (self.search.grep, False),
            "reset": (lambda request, call: reset_sandbox(self), False),
        }

    def serve(self, reader):
        self.dead_man.start()
        self.repl.start()  # warm the REPL while the host gets ready
        self.writer.write({"event": "ready", "version": PROTOCOL_VERSION, "pid": os.getpid()})
        for line in reader:
            if line.strip():
                self.handle_line(line)
        self.shutdown("stdin closed")

    def handle_line(self, line):
        try:
            request = json.loads(line)
            require(isinstance(request, dict), "a request must be a JSON object")
            request_id = request.get("id")
            require(isinstance(request_id, int) and not isinstance(request_id, bool), "id must be an integer")
            require(isinstance(request.get("op"), str), "op must be a string")
        except (ValueError, AgentError) as error:
            self.writer.write(_failure(None, INVALID_ARGUMENT, f"bad request: {error}"))
            return
        op = request.get("op")
        if op == "shutdown":
            self.writer.write({"id": request_id, "ok": True, "result": {}})
            self.shutdown("shutdown requested")
        handler, inline = self.ops.get(op, (None, True))
        if handler is None:
            self.writer.write(_failure(request_id, UNSUPPORTED, f"unknown op {op!r}"))
            return
        timeout_ms = request.get("timeoutMs")
        call = CallContext(request_id, timeout_ms if isinstance(timeout_ms, (int, float)) and timeout_ms > 0 else None)
        if inline:
            self._respond(handler, request, call)
            return
        with self.calls_lock:
            self.calls[request_id] = call
        refusal = self.pool.submit(lambda: self._respond(handler, request, call))
        if refusal is not None:
            with self.calls_lock:
                self.calls.pop(request_id, None)
            self.writer.write({"id": request_id, "ok": False, "error": {"code": INTERNAL, "message": refusal}})

    def _respond(self, handler, request, call):
        try:
            if call.cancelled:  # the host gave up while the call was queued: do not start it now
                raise AgentError(TIMEOUT, "cancelled before it started (the agent was busy)")
            message = {"id": call.request_id, "ok": True, "result": handler(request, call)}
        except AgentError as error:
            message = {"id": call.request_id, "ok": False, "error": {"code": error.code, "message": error.message}}
        except Exception as error:  # a bug or an exhausted resource: report it, keep serving
            log(f"op {request.get('op')} failed:\n{traceback.format_exc()}")
            message = _failure(call.request_id, INTERNAL, f"{type(error).__name__}: {error}")
        finally:
            with self.calls_lock:
                self.calls.pop(call.request_id, None)
        if not self.writer.write(message):
            self.shutdown("stdout closed")

    def _ping(self):
        return {"pid": os.getpid(), "uptimeMs": int((time.monotonic() - self.started) * 1000)}

    def _extend(self, request, _call):
        deadline_ms = request.get("deadlineMs")
        require(isinstance(deadline_ms, (int, float)), "deadlineMs must be epoch milliseconds")
        self.dead_man.extend(deadline_ms)
        return {"deadlineMs": deadline_ms}

    def _cancel(self, request, _call):
        with self.calls_lock:
            target = self.calls.get(request.get("targetId"))
        if target is not None:
            target.cancel()
        return {"cancelled": target is not None}

    def shutdown(self, reason):
        """Kills everything the agent started, then exits. Never returns."""
        log(f"shutting down: {reason}")
        try:
            self.repl.stop()
            self.groups.kill_all()
            self.launcher.stop()
            kill_processes(sandbox_processes(self.process_scope))
        except Exception:
            log(traceback.format_exc())
        finally:
            os._exit(0)


def _failure(request_id, code, message):
    return {"id": request_id, "ok": False, "error": {"code": code, "message": message}}


def parse_options(argv):
    parser = argparse.ArgumentParser(description="corral in-sandbox agent")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--deadline-ms", type=int, default=None, help="epoch ms after which the agent kills itself")
    parser.add_argument(
        "--process-scope", choices=["namespace", "descendants"], default="namespace",
        help="what reset and shutdown may kill: the whole PID namespace, or only the agent's descendants (unsandboxed)",
    )
    parser.add_argument(
        "--scratch-dir", action="append", default=None,
        help="directory reset wipes besides the workspace (default /tmp, /dev/shm, /dev/mqueue)",
    )
    parser.add_argument(
        "--user-spawner-prefix", type=parse_command_prefix, default=[],
        help="JSON array of argv strings (an inner bwrap) before the one spawner that starts every user process",
    )
    parser.add_argument(
        "--run-as", type=parse_run_as, default=None, metavar="UID:GID",
        help="run user code as UID:GID and do file operations as it (the agent stays root, see agent_identity.py)",
    )
    return parser.parse_args(argv)


def main():
    options = parse_options(sys.argv[1:])
    # Keep the protocol on private descriptors; fd 0 becomes /dev/null and fd 1 the log, so nothing a child or a
    # stray print does can corrupt the stream.
    protocol_in, protocol_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    threading.stack_size(THREAD_STACK_BYTES)
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("-1000")  # works only with CAP_SYS_RESOURCE; children get +1000 either way
    except OSError:
        pass
    # Before any thread exists: user code must not reach our protocol fds, ptrace or signal us (agent_identity.py).
    if not make_non_dumpable():
        log("warning: PR_SET_DUMPABLE 0 failed; user code running as our uid could open our descriptors")
    if options.run_as is not None:
        adopt_user_for_files(*options.run_as)
        if not thread_identity_matches(*options.run_as):
            log("threads do not inherit the filesystem uid; refusing to serve")
            sys.exit(2)
    os.makedirs(options.workspace, exist_ok=True)
    os.chdir(options.workspace)
    if options.process_scope == "descendants":
        become_subreaper()
    agent = Agent(options, LineWriter(protocol_out))
    agent.serve(os.fdopen(protocol_in, "rb", buffering=1 << 16))


if __name__ == "__main__":
    main()
