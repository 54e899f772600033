"""Process helpers: exit notification without polling, group signalling, and a /proc view of the sandbox."""
import os
import signal
import threading
import time
from collections import namedtuple

ProcessInfo = namedtuple("ProcessInfo", "pid ppid pgid sid state name")


def exit_notifier(process):
    """Returns (fd, close) where fd becomes readable once `process` exits. Uses a pidfd, else a waiter thread;
    a spawner child (spawned_process.py) has a pid in another namespace and brings its own notifier."""
    if hasattr(process, "exit_notifier"):
        return process.exit_notifier()
    if hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(process.pid)
            return fd, lambda: os.close(fd)
        except OSError:
            pass
    read_fd, write_fd = os.pipe()

    def wait_then_signal():
        try:
            process.wait()
        finally:
            os.close(write_fd)

    threading.Thread(target=wait_then_signal, daemon=True).start()
    return read_fd, lambda: os.close(read_fd)


def signal_group(pgid, sig):
    """Sends sig to a whole process group; a group that is already gone is not an error."""
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def raise_oom_score(pid):
    # Makes the kernel's OOM killer pick user processes before the agent. Raising needs no privilege.
    try:
        with open(f"/proc/{pid}/oom_score_adj", "w") as handle:
            handle.write("1000")
    except OSError:
        pass


def describe_exit(returncode):
    """Popen returncode -> (exitCode, signal name)."""
    if returncode is None:
        return None, None
    if returncode < 0:
        try:
            return None, signal.Signals(-returncode).name
        except ValueError:
            return None, f"SIG{-returncode}"
    return returncode, None


def read_process_table():
    table = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                raw = handle.read().decode("utf-8", "replace")
        except OSError:
            continue  # exited while we looked
        close = raw.rfind(")")
        fields = raw[close + 2 :].split()
        name = raw[raw.find("(") + 1 : close]
        table.append(ProcessInfo(int(entry), int(fields[1]), int(fields[2]), int(fields[3]), fields[0], name))
    return table


def ancestors_of(pid, table):
    parents = {info.pid: info.ppid for info in table}
    found = set()
    while pid in parents and pid not in found:
        found.add(pid)
        pid = parents[pid]
    return found


def descendants_of(pid, table):
    children = {}
    for info in table:
        children.setdefault(info.ppid, []).append(info.pid)
    found, stack = set(), [pid]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def sandbox_processes(scope):
    """Live processes the agent is responsible for, excluding PID 1, itself and its ancestors.

    scope 'namespace': the agent owns its PID namespace (bwrap, a container), so everything else is fair game.
    scope 'descendants': unsandboxed runs share the host's PID space, so only the agent's own descendants.
    """
    table = read_process_table()
    me = os.getpid()
    if scope == "descendants":
        chosen = descendants_of(me, table)
    else:
        chosen = {info.pid for info in table} - ancestors_of(me, table) - {1, me}
    return [info for info in table if info.pid in chosen and info.state not in ("Z", "X")]


def kill_processes(infos):
    for info in infos:
        try:
            os.kill(info.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class LiveGroups:
    """Process groups the agent started and has not yet finished with, so shutdown can kill them all."""

    def __init__(self, signaller=None):
        self.lock = threading.Lock()
        self.groups = set()
        self.signaller = signaller or signal_group  # the launcher's: spawner pids live in another namespace

    def add(self, pgid):
        with self.lock:
            self.groups.add(pgid)

    def discard(self, pgid):
        with self.lock:
            self.groups.discard(pgid)

    def snapshot(self):
        with self.lock:
            return set(self.groups)

    def kill_all(self):
        with self.lock:
            groups = list(self.groups)
        for pgid in groups:
            self.signaller(pgid, signal.SIGKILL)


def kill_group_until_gone(pgid, timeout_s=1.0, signaller=None):
    """SIGKILLs a group repeatedly until no member is left (forks racing the first kill are caught by later ones)."""
    deadline = time.monotonic() + timeout_s
    delay = 0.001
    while (signaller or signal_group)(pgid, signal.SIGKILL) and time.monotonic() < deadline:
        time.sleep(delay)  # orphans are reaped by PID 1 asynchronously; the group vanishes once they are
        delay = min(delay * 2, 0.02)


def become_subreaper():
    """Makes orphaned descendants re-parent to the agent instead of the host's init, so an unsandboxed agent can
    still find (and kill) a `(daemon &)` its commands left behind. Linux only; False when unavailable."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except Exception:
        return False


def reap_orphans(tracked_pids):
    """Reaps zombie children the agent inherited as a subreaper; children owned by a Popen object are left alone."""
    me = os.getpid()
    for info in read_process_table():
        if info.ppid == me and info.state == "Z" and info.pid not in tracked_pids:
            try:
                os.waitpid(info.pid, os.WNOHANG)
            except ChildProcessError:
                pass
