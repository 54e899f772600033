"""The agent's side of the Python REPL: starts the worker in its own process group, serialises calls, drains the
cell's output, and on timeout or death kills and restarts the worker, reporting that the state was lost."""
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from exec_op import output_cap, positive_number
from output_pump import OutputPump
from process_control import describe_exit, exit_notifier
from repl_channel import receive_message, send_message
from wire import INTERNAL, TIMEOUT, AgentError, require

WORKER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repl_worker.py")
PIPE_LINGER_S = 0.1
RESPONSE_READ_TIMEOUT_S = 10.0


class ReplHost:
    def __init__(self, cwd, env, groups, launcher):
        self.cwd = cwd
        self.env = env
        self.groups = groups
        self.launcher = launcher
        self.lock = threading.Lock()  # one cell at a time, as in a notebook
        self.process = None
        self.control = None
        self.ready = False

    def start(self):
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.process = self.launcher.popen(
                [sys.executable, "-u", "-B", WORKER_PATH, "--control-fd", str(child.fileno())],
                pass_fds=[child.fileno()], cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, start_new_session=True,
            )
        except OSError:
            parent.close()
            raise
        finally:
            child.close()
        self.control, self.ready = parent, False
        self.groups.add(self.process.pid)

    def stop(self):
        """Kills the worker's whole group (user subprocesses included); safe to call when nothing runs."""
        process, control = self.process, self.control
        self.process = self.control = None
        if process is not None:
            self.launcher.signal_group(process.pid, signal.SIGKILL)
            process.wait()
            self.groups.discard(process.pid)
        if control is not None:
            control.close()

    def _ensure_ready(self, deadline):
        """Starts or restarts the worker as needed; returns True when a previous worker had died (state lost)."""
        died = self.process is not None and self.process.poll() is not None
        if died:
            self.stop()
        if self.process is None:
            self.start()
        if not self.ready:
            self.control.settimeout(max(0.001, deadline - time.monotonic()))
            try:
                receive_message(self.control)
            except (EOFError, OSError) as error:
                self.stop()
                raise AgentError(INTERNAL, f"the Python worker did not start: {error}") from None
            finally:
                if self.control is not None:
                    self.control.settimeout(None)
            self.ready = True
        return died

    def reset(self, request):
        timeout_s = positive_number(request, "timeoutMs", 30000) / 1000
        if not self.lock.acquire(timeout=timeout_s):
            raise AgentError(TIMEOUT, "the REPL stayed busy with an earlier call")
        try:
            self.stop()
            self.start()
        finally:
            self.lock.release()
        return {}

    def run(self, request, call):
        code = request.get("code")
        require(isinstance(code, str), "code must be a string")
        max_chars = output_cap(request)
        started = time.monotonic()
        deadline = started + positive_number(request, "timeoutMs", 60000) / 1000
        if not self.lock.acquire(timeout=max(0, deadline - started)):
            busy = _error("TimeoutError", "the REPL stayed busy with earlier calls for the whole timeout")
            return _result(("", False), ("", False), None, busy, True, False, started)
        try:
            return self._run_locked(code, max_chars, deadline, started, call)
        finally:
            self.lock.release()

    def _run_locked(self, code, max_chars, deadline, started, call):
        state_lost = self._ensure_ready(deadline)
        process, control = self.process, self.control
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        try:
            send_message(control, {"code": code, "maxOutputChars": max_chars}, [out_write, err_write])
        except OSError:
            pass  # the worker is gone; noticed below through its exit
        finally:
            os.close(out_write)
            os.close(err_write)
        pump = OutputPump({"stdout": out_read, "stderr": err_read}, max_chars)
        exit_fd, close_notifier = exit_notifier(process)
        call.on_cancel(lambda: self.launcher.signal_group(process.pid, signal.SIGKILL))
        response, timed_out = None, False
        try:
            fired = pump.wait([control.fileno(), exit_fd], deadline)
            if fired is None:
                timed_out = True
            elif fired == control.fileno():
                control.settimeout(RESPONSE_READ_TIMEOUT_S)
                try:
                    response, _ = receive_message(control)
                except (EOFError, OSError, ValueError):
                    response = None
                control.settimeout(None)
            if response is None:
                self.stop()  # kills the group, so every writer of the pipes is gone
            pump.drain(time.monotonic() + PIPE_LINGER_S)
        finally:
            call.on_cancel(None)
            pump.close()
            close_notifier()
        outputs = pump.results()
        if response is not None:
            value, error = response.get("value"), response.get("error")
            return _result(outputs["stdout"], outputs["stderr"], value, error, False, state_lost, started)
        self.start()  # a fresh worker warms up while the caller reads this result
        if timed_out:
            error = _error("TimeoutError", "the cell ran past its timeout; the REPL was restarted, its state is lost")
        else:
            exit_code, signal_name = describe_exit(process.returncode)
            how = f"was killed by {signal_name}" if signal_name else f"exited with status {exit_code}"
            hint = " (out of memory?)" if signal_name == "SIGKILL" else ""
            error = _error("ReplDied", f"the Python process {how}{hint}; the REPL was restarted and its state is lost")
        return _result(outputs["stdout"], outputs["stderr"], None, error, timed_out, True, started)


def _error(name, message):
    return {"name": name, "message": message, "traceback": ""}


def _result(stdout, stderr, value, error, timed_out, state_lost, started):
    return {
        "stdout": stdout[0],
        "stderr": stderr[0],
        "stdoutTruncated": stdout[1],
        "stderrTruncated": stderr[1],
        "value": value,
        "error": error,
        "timedOut": timed_out,
        "stateLost": state_lost,
        "durationMs": int((time.monotonic() - started) * 1000),
    }
