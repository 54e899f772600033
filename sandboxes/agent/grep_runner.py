"""grep in a child process: started through the user launcher (as the user, or by the spawner), killed
with its whole group when the call times out or is cancelled. A regex like (a+)+$ on a long line would otherwise
run in an agent thread until the sandbox died (Python's re cannot be interrupted)."""
import json
import os
import signal
import subprocess
import sys
import time

from process_control import kill_group_until_gone
from wire import INTERNAL, TIMEOUT, AgentError

WORKER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grep_worker.py")
DEFAULT_TIMEOUT_S = 60.0


class GrepRunner:
    def __init__(self, launcher, cwd, env, groups):
        self.launcher = launcher
        self.cwd = cwd
        self.env = env
        self.groups = groups

    def run(self, job, call):
        timeout_s = DEFAULT_TIMEOUT_S if call.deadline is None else max(0.001, call.deadline - time.monotonic())
        process = self.launcher.popen(
            [sys.executable, "-B", "-E", "-s", WORKER_PATH], cwd=self.cwd, env=self.env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
        self.groups.add(process.pid)
        self.launcher.raise_oom_score(process.pid)
        call.on_cancel(lambda: self.launcher.signal_group(process.pid, signal.SIGKILL))
        try:
            output, errors = process.communicate(json.dumps(job).encode("utf-8", "surrogatepass"), timeout=timeout_s)
        except subprocess.TimeoutExpired:
            kill_group_until_gone(process.pid, signaller=self.launcher.signal_group)
            process.communicate()
            raise AgentError(TIMEOUT, "grep exceeded its timeout; the search was killed") from None
        finally:
            call.on_cancel(None)
            self.groups.discard(process.pid)
        if call.cancelled:
            raise AgentError(TIMEOUT, "grep was cancelled; the search was killed")
        if process.returncode != 0:
            tail = errors.decode("utf-8", "replace")[-500:]
            raise AgentError(INTERNAL, f"the grep worker exited with {process.returncode}: {tail}")
        return json.loads(output)
