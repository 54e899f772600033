"""exec: a command in its own session and process group, with capped output and a timeout that kills the group."""
import fcntl
import os
import signal
import subprocess
import threading
import time

from output_pump import OutputPump
from process_control import describe_exit, exit_notifier, kill_group_until_gone
from wire import INTERNAL, INVALID_ARGUMENT, AgentError, require

TERM_GRACE_S = 0.3
# After the main process exits, leftovers (e.g. `sleep 100 &`) may hold the pipes this long before being killed.
PIPE_LINGER_S = 0.25
KILL_WAIT_S = 5.0
STDIN_PIPE_BYTES = 1 << 20
SPAWNER_LOST_MESSAGE = (
    "the sandbox's user-process spawner died during this call, and every user process with it; "
    "the agent starts a fresh one for the next call (an infrastructure fault, not the command's result)"
)


def command_argv(command):
    if isinstance(command, str):
        return ["bash", "-c", command]
    require(
        isinstance(command, list) and command and all(isinstance(part, str) for part in command),
        "command must be a string or a non-empty list of strings",
    )
    return command


def merged_env(base_env, extra):
    require(extra is None or isinstance(extra, dict), "env must be an object of strings")
    env = dict(base_env)
    for key, value in (extra or {}).items():
        require(isinstance(value, str) and key and "=" not in key, f"env {key!r} must be a string")
        env[key] = value
    return env


def positive_number(request, key, default):
    value = request.get(key, default)
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    require(is_number and value > 0, f"{key} must be a positive number")
    return value


def output_cap(request):
    value = request.get("maxOutputChars", 30000)
    is_integer = isinstance(value, int) and not isinstance(value, bool)
    require(is_integer and value >= 0, "maxOutputChars must be a non-negative integer")
    return value


def _feed_stdin(fd, data):
    """Writes stdin; small inputs go straight into the pipe, large ones from a thread so the child is never blocked."""

    def write_all():
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            pass  # the child closed stdin early: not our problem
        finally:
            os.close(fd)

    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, STDIN_PIPE_BYTES)
        room = STDIN_PIPE_BYTES
    except OSError:
        room = 65536
    if len(data) <= room:
        write_all()
    else:
        threading.Thread(target=write_all, daemon=True).start()


class ExecRunner:
    def __init__(self, paths, base_env, groups, launcher):
        self.paths = paths
        self.base_env = base_env
        self.groups = groups
        self.launcher = launcher

    def run(self, request, call):
        argv = command_argv(request.get("command"))
        cwd = self.paths.existing(request.get("cwd") or ".")
        if not os.path.isdir(cwd):
            raise AgentError(INVALID_ARGUMENT, f"cwd {request.get('cwd')}: not a directory")
        env = merged_env(self.base_env, request.get("env"))
        timeout_s = positive_number(request, "timeoutMs", 60000) / 1000
        max_chars = output_cap(request)
        stdin = request.get("stdin")
        require(stdin is None or isinstance(stdin, str), "stdin must be a string")

        started = time.monotonic()
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        in_read, in_write = os.pipe() if stdin is not None else (None, None)
        try:
            process = self.launcher.popen(
                argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL if in_read is None else in_read,
                stdout=out_write, stderr=err_write, start_new_session=True, close_fds=True,
            )
        except BaseException as error:
            for fd in (out_read, err_read, in_write):
                if fd is not None:
                    os.close(fd)
            if not isinstance(error, OSError):
                raise  # e.g. SpawnerLost: an infrastructure fault, not the command's result
            code = 127 if isinstance(error, FileNotFoundError) else 126
            return self._result(code, None, ("", False), (f"{argv[0]}: {error.strerror}\n", False), False, started)
        finally:
            for fd in (out_write, err_write, in_read):
                if fd is not None:
                    os.close(fd)

        pgid = process.pid  # start_new_session makes the child its own group and session leader
        self.groups.add(pgid)
        self.launcher.raise_oom_score(process.pid)
        if in_write is not None:
            _feed_stdin(in_write, stdin.encode("utf-8", "surrogatepass"))
        pump = OutputPump({"stdout": out_read, "stderr": err_read}, max_chars)
        try:
            exit_fd, close_notifier = exit_notifier(process)
        except BaseException:  # e.g. no thread for the fallback waiter: do not leave the command running
            self._signal(pgid, signal.SIGKILL)
            process.wait()
            pump.close()
            self.groups.discard(pgid)
            raise
        call.on_cancel(lambda: self._signal(pgid, signal.SIGKILL))
        try:
            timed_out = pump.wait([exit_fd], started + timeout_s) is None
            if timed_out:
                self._signal(pgid, signal.SIGTERM)
                pump.wait([exit_fd], time.monotonic() + TERM_GRACE_S)
                self._signal(pgid, signal.SIGKILL)  # unconditional: group members may ignore SIGTERM
                pump.wait([exit_fd], time.monotonic() + KILL_WAIT_S)
            try:
                returncode = process.wait(timeout=KILL_WAIT_S)
            except subprocess.TimeoutExpired:
                returncode = None
            if timed_out:
                # The leader is reaped now, so only stragglers keep the group alive.
                kill_group_until_gone(pgid, signaller=self._signal)
            if not pump.drain(time.monotonic() + PIPE_LINGER_S):
                kill_group_until_gone(pgid, signaller=self._signal)
                pump.drain(time.monotonic() + 1.0)
        finally:
            call.on_cancel(None)
            pump.close()
            close_notifier()
            self.groups.discard(pgid)
        if getattr(process, "lost", False):
            raise AgentError(INTERNAL, SPAWNER_LOST_MESSAGE)
        exit_code, signal_name = describe_exit(returncode)
        outputs = pump.results()
        return self._result(exit_code, signal_name, outputs["stdout"], outputs["stderr"], timed_out, started)

    def _signal(self, pgid, sig):
        return self.launcher.signal_group(pgid, sig)

    @staticmethod
    def _result(exit_code, signal_name, stdout, stderr, timed_out, started):
        return {
            "exitCode": exit_code,
            "signal": signal_name,
            "stdout": stdout[0],
            "stderr": stderr[0],
            "stdoutTruncated": stdout[1],
            "stderrTruncated": stderr[1],
            "timedOut": timed_out,
            "durationMs": int((time.monotonic() - started) * 1000),
        }
