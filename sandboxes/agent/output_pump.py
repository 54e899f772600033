"""Drains child output pipes into capped buffers while waiting for other events, without busy loops.

The writer is never blocked: once a stream's cap is reached the rest is still read (or spliced to /dev/null)
and thrown away, so memory stays bounded even for gigabytes of output.
"""
import fcntl
import os
import select
import time

READ_CHUNK = 1 << 20
_POLL_IN = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR | select.POLLNVAL
_devnull_fd = None
_splice_works = hasattr(os, "splice")


class CappedText:
    """Keeps the first max_chars characters of a UTF-8 byte stream (at most 4 bytes each) and notes the rest."""

    def __init__(self, max_chars):
        self.max_chars = max(0, int(max_chars))
        self.byte_limit = self.max_chars * 4
        self.chunks = []
        self.kept = 0
        self.dropped = False

    @property
    def full(self):
        return self.kept >= self.byte_limit

    def add(self, data):
        room = self.byte_limit - self.kept
        if len(data) > room:
            data = data[:room]
            self.dropped = True
        if data:
            self.chunks.append(data)
            self.kept += len(data)

    def result(self):
        text = b"".join(self.chunks).decode("utf-8", "replace")
        truncated = self.dropped or len(text) > self.max_chars
        return text[: self.max_chars], truncated


def _discard(fd):
    """Throws away what is readable on fd; returns False at end of stream."""
    global _devnull_fd, _splice_works
    if _splice_works:
        try:
            if _devnull_fd is None:
                _devnull_fd = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
            return os.splice(fd, _devnull_fd, READ_CHUNK) > 0
        except OSError:
            _splice_works = False  # e.g. a kernel or sandbox runtime without splice to /dev/null
    return len(os.read(fd, READ_CHUNK)) > 0


class OutputPump:
    def __init__(self, streams, max_chars):
        """streams: name -> read fd (the pump owns and closes them)."""
        self.poller = select.poll()
        self.buffers = {}
        self.open_fds = {}
        for name, fd in streams.items():
            self.buffers[name] = CappedText(max_chars)
            self.open_fds[fd] = name
            try:
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, READ_CHUNK)  # fewer wake-ups for chatty children
            except OSError:
                pass
            self.poller.register(fd, _POLL_IN)

    def wait(self, event_fds, deadline):
        """Pumps output until one of event_fds is readable (returns it) or the monotonic deadline passes (None)."""
        for fd in event_fds:
            self.poller.register(fd, _POLL_IN)
        try:
            while True:
                if deadline is None:
                    timeout_ms = -1
                else:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return None
                    timeout_ms = max(1, int(remaining * 1000) + 1)
                if not event_fds and not self.open_fds:
                    return None
                fired = None
                for fd, _ in self.poller.poll(timeout_ms):
                    if fd in self.open_fds:
                        self._read(fd)
                    elif fd in event_fds and fired is None:
                        fired = fd
                if fired is not None:
                    return fired
        finally:
            for fd in event_fds:
                self.poller.unregister(fd)

    def drain(self, deadline):
        """Reads until every stream is at end of file or the deadline passes; True when all ended."""
        self.wait((), deadline)
        return not self.open_fds

    def _read(self, fd):
        buffer = self.buffers[self.open_fds[fd]]
        try:
            if buffer.full:
                more = _discard(fd)
            else:
                data = os.read(fd, READ_CHUNK)
                buffer.add(data)
                more = bool(data)
        except OSError:
            more = False
        if not more:
            self._close_fd(fd)

    def _close_fd(self, fd):
        self.poller.unregister(fd)
        del self.open_fds[fd]
        os.close(fd)

    def close(self):
        for fd in list(self.open_fds):
            self._close_fd(fd)

    def results(self):
        return {name: buffer.result() for name, buffer in self.buffers.items()}
