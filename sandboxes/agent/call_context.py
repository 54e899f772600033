"""Per-request state shared between the op running in its thread and a later `cancel` request."""
import threading
import time


class CallContext:
    def __init__(self, request_id, timeout_ms=None):
        self.request_id = request_id
        self.deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
        self.cancelled = False
        self._lock = threading.Lock()
        self._cancel_action = None

    def on_cancel(self, action):
        """Registers what cancel() should do (kill a process group); None clears it."""
        with self._lock:
            self._cancel_action = action
            run_now = self.cancelled and action is not None
        if run_now:
            action()

    def cancel(self):
        with self._lock:
            self.cancelled = True
            action = self._cancel_action
        if action is not None:
            action()
