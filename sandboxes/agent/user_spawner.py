"""The trusted parent of every user process on the process backend: PID 1 of the sandbox's one user PID namespace.

The agent starts it once (and after each reset) behind an inner bwrap with a clean environment:
    bwrap ... --unshare-pid --as-pid-1 -- python3 -B -E -s user_spawner.py --control-fd N
and drives it over a private Unix socket (repl_channel framing, fds as SCM_RIGHTS). Requests, each answered
with {"id", ...}:
    {"op": "spawn", "argv", "env", "cwd", "newSession", "fdTargets": [0, 1, 2, ...]} + one fd per target
        -> {"pid"} (in this namespace) or {"errno", "message"} when fork or exec failed
    {"op": "signal", "pid", "signal", "group"} -> {"delivered": bool} (False: no such process or group)
and unprompted {"event": "exit", "pid", "status"} (raw wait status) once a spawned process is reaped.
Why PID 1: the kernel ignores signals sent by processes inside the namespace to its init unless init handles
them (so user code cannot kill it), orphans re-parent to it and are reaped here, and when it dies the kernel
kills everything in the namespace. User environment (LD_PRELOAD ...) is applied only in the child, at exec.
"""
import argparse
import fcntl
import os
import select
import signal
import socket
import sys

from agent_identity import make_non_dumpable
from repl_channel import receive_message, send_message

MAX_FDS = 16
# Dispositions a child must not inherit: Python ignores SIGPIPE/SIGXFSZ, we ignore SIGINT/SIGTERM/SIGHUP.
RESET_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _exec_child(request, fds, error_write):
    """Runs in the forked child: places the fds, joins a new session, applies the user's env, execs."""
    try:
        targets = request["fdTargets"]
        floor = max([2, *targets]) + 1
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, floor) for fd in fds]  # out of the targets' way first
        for fd, target in zip(moved, targets):
            os.dup2(fd, target, inheritable=True)
        for number in RESET_SIGNALS:
            signal.signal(number, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        if request.get("newSession"):
            os.setsid()
        try:
            with open("/proc/self/oom_score_adj", "w") as handle:
                handle.write("1000")  # the OOM killer picks user code before the spawner and the agent
        except OSError:
            pass
        os.chdir(request["cwd"])
        argv = request["argv"]
        os.execvpe(argv[0], argv, request["env"])
    except OSError as error:
        os.write(error_write, f"{error.errno or 0} {error.strerror or error}".encode("utf-8", "replace"))
    except BaseException as error:  # noqa: B036 - nothing may escape a forked child
        os.write(error_write, f"0 {type(error).__name__}: {error}".encode("utf-8", "replace"))
    os._exit(127)


class Spawner:
    def __init__(self, control):
        self.control = control
        self.children = set()

    def spawn(self, request, fds):
        error_read, error_write = os.pipe()  # both close-on-exec: EOF without data means exec worked
        try:
            pid = os.fork()
        except OSError as error:
            os.close(error_read)
            os.close(error_write)
            return {"errno": error.errno, "message": f"fork: {error.strerror}"}
        if pid == 0:
            _exec_child(request, fds, error_write)
        os.close(error_write)
        try:
            report = b""
            while True:
                chunk = os.read(error_read, 4096)
                if not chunk:
                    break
                report += chunk
        finally:
            os.close(error_read)
        if report:
            os.waitpid(pid, 0)
            number, _, message = report.decode("utf-8", "replace").partition(" ")
            return {"errno": int(number) if number.isdigit() else 0, "message": message}
        self.children.add(pid)
        return {"pid": pid}

    @staticmethod
    def signal(request):
        try:
            (os.killpg if request.get("group") else os.kill)(int(request["pid"]), int(request["signal"]))
            return {"delivered": True}
        except (ProcessLookupError, PermissionError):
            return {"delivered": False}

    def reap(self):
        """Reaps every exited child (orphans included: we are PID 1) and reports the ones we spawned."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid in self.children:
                self.children.discard(pid)
                send_message(self.control, {"event": "exit", "pid": pid, "status": status})

    def handle(self):
        request, fds = receive_message(self.control, MAX_FDS)
        for fd in fds:
            os.set_inheritable(fd, False)  # SCM_RIGHTS copies arrive inheritable: only the placed copies may reach exec
        try:
            if request.get("op") == "spawn" and len(fds) == len(request.get("fdTargets", ())):
                reply = self.spawn(request, fds)
            elif request.get("op") == "signal":
                reply = self.signal(request)
            else:
                reply = {"errno": 0, "message": f"bad spawner request {request.get('op')!r}"}
        finally:
            for fd in fds:
                os.close(fd)
        send_message(self.control, {"id": request.get("id"), **reply})


def main():
    parser = argparse.ArgumentParser(description="corral user process spawner (PID 1 of the user namespace)")
    parser.add_argument("--control-fd", type=int, required=True)
    options = parser.parse_args(sys.argv[1:])
    make_non_dumpable()  # user code runs as our uid: it must not open our control socket through /proc
    os.set_inheritable(options.control_fd, False)
    control = socket.socket(fileno=options.control_fd)
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda _number, _frame: None)
    spawner = Spawner(control)
    send_message(control, {"event": "ready", "pid": os.getpid()})
    while True:
        readable, _, _ = select.select([control, wake_read], [], [])
        if wake_read in readable:
            while True:
                try:
                    if not os.read(wake_read, 512):
                        break
                except BlockingIOError:
                    break
            spawner.reap()
        if control in readable:
            try:
                spawner.handle()
            except (EOFError, ConnectionError):
                return  # the agent is gone: exiting kills the namespace
            spawner.reap()


if __name__ == "__main__":
    main()
