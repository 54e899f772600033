"""The agent's side of the user-process spawner (user_spawner.py): one inner bwrap per sandbox, started with a
clean environment, whose PID namespace holds every user process, so a `server &` left by one exec is visible to
and killable from the next. The agent keeps every policy (timeouts, output caps, tree kill, reset); the spawner
only forks, signals and reaps. If the spawner dies, calls in flight fail as infrastructure errors (SpawnerLost)
and the next spawn starts a fresh namespace.
"""
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from repl_channel import receive_message, send_message
from spawned_process import SpawnedProcess, SpawnerLost

SPAWNER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "user_spawner.py")
# The spawner and the bwrap in front of it see only this: nothing the user or an exec request sets.
SPAWNER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
START_TIMEOUT_S = 20.0


class SpawnerConnection:
    """One running spawner: its bwrap process, the control socket and a reader thread dispatching answers."""

    def __init__(self, command_prefix, log):
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        argv = [*command_prefix, sys.executable, "-B", "-E", "-s", SPAWNER_PATH, "--control-fd", str(child.fileno())]
        try:
            self.bwrap = subprocess.Popen(
                argv, pass_fds=[child.fileno()], env=SPAWNER_ENV, stdin=subprocess.DEVNULL, close_fds=True,
            )
        except OSError:
            parent.close()
            raise
        finally:
            child.close()
        self.control, self.log = parent, log
        self.send_lock = threading.Lock()
        self.state_lock = threading.Lock()
        self.next_id = 0
        self.pending = {}  # request id -> [threading.Event, reply, SpawnedProcess or None]
        self.processes = {}  # namespace pid -> SpawnedProcess
        self.alive, self.stopping = True, False
        self.control.settimeout(START_TIMEOUT_S)
        try:
            ready, _ = receive_message(self.control)
            if ready.get("event") != "ready":
                raise EOFError(f"unexpected first message {ready!r}")
        except (EOFError, OSError, ValueError) as error:
            self.kill_namespace()
            raise SpawnerLost(f"the user-process spawner did not start: {error}") from None
        self.control.settimeout(None)
        threading.Thread(target=self._read, name="spawner-reader", daemon=True).start()

    def request(self, message, fds=(), process=None):
        entry = [threading.Event(), None, process]
        with self.state_lock:
            if not self.alive:
                raise SpawnerLost("the user-process spawner is gone")
            self.next_id += 1
            request_id = self.next_id
            self.pending[request_id] = entry
        try:
            with self.send_lock:
                send_message(self.control, {**message, "id": request_id}, fds)
        except OSError as error:
            with self.state_lock:
                self.pending.pop(request_id, None)
            raise SpawnerLost(f"the user-process spawner is gone: {error}") from None
        entry[0].wait()
        if entry[1] is None:
            raise SpawnerLost("the user-process spawner died while handling a request")
        return entry[1]

    def _read(self):
        try:
            while True:
                message, _ = receive_message(self.control)
                if message.get("event") == "exit":
                    with self.state_lock:
                        process = self.processes.pop(message["pid"], None)
                    if process is not None:
                        process.mark_exited(os.waitstatus_to_exitcode(message["status"]))
                    continue
                with self.state_lock:
                    entry = self.pending.pop(message.get("id"), None)
                    if entry is not None and entry[2] is not None and "pid" in message:
                        entry[2].pid = message["pid"]
                        self.processes[message["pid"]] = entry[2]  # before the exit event can arrive
                if entry is not None:
                    entry[1] = message
                    entry[0].set()
        except (EOFError, OSError, ValueError):
            pass
        self._lost()

    def _lost(self):
        with self.state_lock:
            self.alive = False
            pending, self.pending = list(self.pending.values()), {}
            processes, self.processes = list(self.processes.values()), {}
        if not self.stopping:
            status = self.bwrap.poll()
            self.log(f"the user-process spawner died (bwrap status {status}); every user process went with it")
        for entry in pending:
            entry[0].set()
        for process in processes:  # PID 1 of their namespace died, so the kernel killed them
            process.mark_exited(-signal.SIGKILL, lost=not self.stopping)

    def kill_namespace(self):
        """SIGKILLs the spawner (its namespace's init: the kernel then kills everything in it) and its bwrap."""
        self.stopping = True
        try:
            with open(f"/proc/{self.bwrap.pid}/task/{self.bwrap.pid}/children") as handle:
                inits = [int(pid) for pid in handle.read().split()]
        except OSError:
            inits = []
        for pid in [*inits, self.bwrap.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.bwrap.wait()
        self.control.close()  # the reader thread sees EOF and releases every waiter
        deadline = time.monotonic() + 5
        while self.alive and time.monotonic() < deadline:
            time.sleep(0.001)
        if self.alive:
            self._lost()


class SpawnerLauncher:
    """UserLauncher for the process backend: every user process is a child of the sandbox's one spawner."""

    def __init__(self, command_prefix, log):
        self.command_prefix = list(command_prefix)
        self.log = log
        self.lock = threading.Lock()
        self.connection = None

    def _current(self):
        with self.lock:
            if self.connection is None or not self.connection.alive:
                self.connection = SpawnerConnection(self.command_prefix, self.log)
            return self.connection

    def stop(self):
        """Kills the whole user namespace (reset, shutdown); the next spawn starts a fresh one."""
        with self.lock:
            connection, self.connection = self.connection, None
        if connection is not None:
            connection.kill_namespace()

    def popen(self, argv, cwd=None, env=None, stdin=None, stdout=None, stderr=None, start_new_session=False,
              pass_fds=(), close_fds=True):
        del close_fds  # the spawner passes exactly the fds we send
        opened, parent_ends, fds = [], {}, []
        try:
            for index, (name, spec) in enumerate((("stdin", stdin), ("stdout", stdout), ("stderr", stderr))):
                if spec is None:
                    fds.append(index)  # inherit the agent's own: /dev/null for stdin, the log for the others
                elif spec == subprocess.DEVNULL:
                    opened.append(os.open(os.devnull, os.O_RDWR))
                    fds.append(opened[-1])
                elif spec == subprocess.PIPE:
                    read_fd, write_fd = os.pipe()
                    child_end, parent_end = (read_fd, write_fd) if index == 0 else (write_fd, read_fd)
                    opened.append(child_end)
                    parent_ends[name] = os.fdopen(parent_end, "wb" if index == 0 else "rb", buffering=0)
                    fds.append(child_end)
                else:
                    fds.append(spec)
            process = SpawnedProcess(argv, **parent_ends)
            request = {"op": "spawn", "argv": list(argv), "env": dict(env if env is not None else os.environ),
                       "cwd": os.path.abspath(cwd or "."), "newSession": bool(start_new_session),
                       "fdTargets": [0, 1, 2, *pass_fds]}
            reply = self._current().request(request, [*fds, *pass_fds], process)
        except BaseException:
            for stream in parent_ends.values():
                stream.close()
            raise
        finally:
            for fd in opened:
                os.close(fd)
        if "pid" not in reply:
            for stream in parent_ends.values():
                stream.close()
            number = reply.get("errno") or 0
            raise OSError(number, reply.get("message") or os.strerror(number))  # ENOENT becomes FileNotFoundError
        return process

    def signal_group(self, pgid, sig, group=True):
        connection = self.connection
        if connection is None or not connection.alive:
            return False
        try:
            reply = connection.request({"op": "signal", "pid": pgid, "signal": int(sig), "group": group})
            return bool(reply.get("delivered"))
        except SpawnerLost:
            return False

    def raise_oom_score(self, pid):
        pass  # the spawner's child sets its own before exec
