"""The dead-man switch: calls on_expire once the lease deadline (epoch ms) passes; extend() moves it."""
import threading
import time


class DeadManSwitch:
    def __init__(self, deadline_ms, on_expire):
        self.deadline_ms = deadline_ms
        self.on_expire = on_expire
        self.condition = threading.Condition()

    def start(self):
        if self.deadline_ms is not None:
            threading.Thread(target=self._watch, name="dead-man", daemon=True).start()

    def extend(self, deadline_ms):
        with self.condition:
            self.deadline_ms = deadline_ms
            self.condition.notify()

    def _watch(self):
        with self.condition:
            while True:
                remaining_s = (self.deadline_ms - time.time() * 1000) / 1000
                if remaining_s <= 0:
                    break
                self.condition.wait(remaining_s)  # woken early only by extend()
        self.on_expire()
