"""A user process started by the spawner (user_spawner.py), shaped like the parts of subprocess.Popen the agent
uses. Its pid is a pid in the user namespace: only the spawner may signal it, so signals go through the launcher."""
import os
import select
import subprocess
import threading
import time

READ_CHUNK = 1 << 16


class SpawnerLost(Exception):
    """The spawner died (or could not start): an infrastructure fault, never the user command's result."""


class SpawnedProcess:
    def __init__(self, argv, stdin=None, stdout=None, stderr=None):
        self.args = argv
        self.pid = None
        self.returncode = None
        self.lost = False  # True when the process ended because the spawner died, not by itself
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self._exited = threading.Event()
        self._lock = threading.Lock()
        self._notify_fds = []
        self._output = {}

    def mark_exited(self, returncode, lost=False):
        """Called by the spawner connection when the process was reaped (or its namespace died)."""
        with self._lock:
            if self._exited.is_set():
                return
            self.returncode, self.lost = returncode, lost
            self._exited.set()
            fds, self._notify_fds = self._notify_fds, []
        for fd in fds:
            os.close(fd)

    def exit_notifier(self):
        """(fd, close): fd becomes readable (end of file) once the process has exited. Replaces a pidfd."""
        read_fd, write_fd = os.pipe()
        with self._lock:
            if self._exited.is_set():
                os.close(write_fd)
                write_fd = None
            else:
                self._notify_fds.append(write_fd)

        def close():
            os.close(read_fd)
            with self._lock:
                if write_fd in self._notify_fds:
                    self._notify_fds.remove(write_fd)
                    os.close(write_fd)

        return read_fd, close

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        if not self._exited.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def communicate(self, input=None, timeout=None):
        """subprocess.Popen.communicate for PIPE streams; after TimeoutExpired it may be called again to finish."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if self.stdin is not None and "stdin" not in self._output:
            self._output["stdin"] = True
            threading.Thread(target=_write_and_close, args=(self.stdin, input or b""), daemon=True).start()
        pairs = (("stdout", self.stdout), ("stderr", self.stderr))
        streams = {stream.fileno(): name for name, stream in pairs if stream is not None and not stream.closed}
        for name in streams.values():
            self._output.setdefault(name, [])
        while streams:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise subprocess.TimeoutExpired(self.args, timeout)
            readable, _, _ = select.select(list(streams), [], [], remaining)
            for fd in readable:
                data = os.read(fd, READ_CHUNK)
                if data:
                    self._output[streams[fd]].append(data)
                else:
                    getattr(self, streams.pop(fd)).close()
        self.wait(None if deadline is None else max(0, deadline - time.monotonic()))
        joined = {name: b"".join(self._output[name]) if name in self._output else None for name in ("stdout", "stderr")}
        return joined["stdout"], joined["stderr"]


def _write_and_close(stream, data):
    try:
        stream.write(data)
    except OSError:
        pass  # the child closed its stdin early
    finally:
        try:
            stream.close()
        except OSError:
            pass
