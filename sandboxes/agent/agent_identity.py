"""The agent's own identity: out of user code's reach, yet doing file work with the user's rights.

User code must not open /proc/<agent>/fd (the protocol pipes: it could forge replies, including the proof of a
verified reset, or flood the host), ptrace the agent or signal it. Two kernel rules give that:
- PR_SET_DUMPABLE 0 makes /proc/<agent>/* root-owned and ptrace/fd access need CAP_SYS_PTRACE (both backends).
- With `--run-as` (Docker) the agent is root holding only CAP_SETUID/CAP_SETGID/CAP_KILL and user code is another
  uid: a different uid cannot ptrace it, open its fds or signal it, and user code has no capability.
The agent then sets only its *filesystem* uid/gid to the user's: every file it creates belongs to the user, a
user's symlink race gains nothing beyond the user's own rights, and it needs no CAP_DAC_OVERRIDE/CAP_CHOWN.
The fsuid is per thread, so this must run on the main thread before any other thread starts: new threads copy
their creator's credentials (checked at start-up by `thread_identity_matches`).
"""
import ctypes
import os
import threading

PR_SET_DUMPABLE = 4
_libc = ctypes.CDLL(None, use_errno=True)


def make_non_dumpable():
    """Returns True when the kernel accepted PR_SET_DUMPABLE 0."""
    return _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0


def filesystem_identity(task="thread-self"):
    """(fsuid, fsgid) of the calling thread, read from /proc (setfsuid reports no errors)."""
    with open(f"/proc/{task}/status") as handle:
        fields = dict(line.split(":", 1) for line in handle if ":" in line)
    return int(fields["Uid"].split()[3]), int(fields["Gid"].split()[3])


def adopt_user_for_files(uid, gid):
    """Drops supplementary groups and sets fsgid/fsuid; raises OSError when the kernel refused."""
    os.setgroups([])
    _libc.setfsgid(gid)  # gid first: once fsuid is no longer 0 the fs capabilities are gone
    _libc.setfsuid(uid)
    if filesystem_identity() != (uid, gid):
        raise OSError(f"setfsuid/setfsgid to {uid}:{gid} did not take (CAP_SETUID/CAP_SETGID missing?)")


def thread_identity_matches(uid, gid):
    """True when a freshly started thread does its file operations as uid:gid, as the main thread does."""
    seen = []
    probe = threading.Thread(target=lambda: seen.append(filesystem_identity()))
    probe.start()
    probe.join()
    return seen == [(uid, gid)]
