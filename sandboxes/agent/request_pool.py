"""A bounded pool for requests: at most `max_workers` threads and `max_queued` waiting requests.

Thread-per-request let a flood of calls start threads until the pids limit (shared with user code) ran out.
Threads start on demand and exit after `idle_s` without work, so an idle agent holds no pids it does not need.
"""
import collections
import threading


class RequestPool:
    def __init__(self, max_workers, max_queued, idle_s=5.0):
        self.max_workers = max_workers
        self.max_queued = max_queued
        self.idle_s = idle_s
        self.lock = threading.Lock()
        self.work_arrived = threading.Condition(self.lock)
        self.tasks = collections.deque()
        self.workers = 0
        self.idle = 0

    def submit(self, task):
        """Queues task (a callable). Returns None when accepted, else why not (queue full, no thread at all)."""
        with self.lock:
            if len(self.tasks) >= self.max_queued:
                return f"the agent is busy: {self.workers} calls running and {len(self.tasks)} queued"
            self.tasks.append(task)
            if self.idle >= len(self.tasks):
                self.work_arrived.notify()
                return None
            if self.workers >= self.max_workers:
                return None  # a busy worker takes it when it finishes
            self.workers += 1
        try:
            threading.Thread(target=self._work, daemon=True).start()
        except RuntimeError as error:  # no thread to spare: the pids limit is exhausted
            with self.lock:
                self.workers -= 1
                if self.workers > 0:
                    return None  # a running worker will get to it
                self.tasks.remove(task)
            return f"cannot start a thread: {error}"
        return None

    def stats(self):
        with self.lock:
            return {"workers": self.workers, "idle": self.idle, "queued": len(self.tasks)}

    def _work(self):
        while True:
            with self.lock:
                while not self.tasks:
                    self.idle += 1
                    woken = self.work_arrived.wait(timeout=self.idle_s)
                    self.idle -= 1
                    if not woken and not self.tasks:
                        self.workers -= 1
                        return
                task = self.tasks.popleft()
            try:
                task()
            except Exception:  # tasks report their own errors; a bug in one must not shrink the pool
                pass
