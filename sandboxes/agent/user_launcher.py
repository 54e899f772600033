"""Starts every process that runs user code, and signals it. Two kinds, chosen at start-up (make_launcher):

- UserLauncher (Docker, unsandboxed): plain subprocess.Popen; when the agent runs as another uid (--run-as), user
  code runs as the sandbox user with no supplementary groups and therefore no capabilities.
- SpawnerLauncher (the process backend, --user-spawner-prefix): every user process is a child of one trusted
  spawner behind an inner bwrap, in a PID namespace where the agent is invisible (spawner_launcher.py).

Why: user code must not reach the agent's protocol descriptors (/proc/<agent>/fd), ptrace it or signal it.
"""
import json
import subprocess

from process_control import raise_oom_score, signal_group
from spawner_launcher import SpawnerLauncher


def parse_command_prefix(text):
    """`--user-spawner-prefix` value: a JSON array of argv strings (may be empty)."""
    try:
        prefix = json.loads(text)
    except ValueError as error:
        raise ValueError(f"--user-spawner-prefix must be a JSON array of strings: {error}") from None
    if not isinstance(prefix, list) or not all(isinstance(part, str) and part for part in prefix):
        raise ValueError("--user-spawner-prefix must be a JSON array of non-empty strings")
    return prefix


def parse_run_as(text):
    """`--run-as UID:GID` value -> (uid, gid)."""
    uid_text, separator, gid_text = text.partition(":")
    if not separator or not uid_text.isdigit() or not gid_text.isdigit():
        raise ValueError("--run-as must be UID:GID (numbers)")
    return int(uid_text), int(gid_text)


def make_launcher(spawner_prefix, run_as, log):
    if spawner_prefix:
        return SpawnerLauncher(spawner_prefix, log)
    return UserLauncher(run_as)


class UserLauncher:
    def __init__(self, run_as=None):
        self.run_as = run_as

    def popen(self, argv, **options):
        """subprocess.Popen with the user's identity; cwd/env/stdio/session untouched."""
        if self.run_as is not None:
            uid, gid = self.run_as
            # Popen switches gid, groups, then uid in the child before exec: the uid change clears every capability.
            options.update(user=uid, group=gid, extra_groups=[])
        return subprocess.Popen(argv, **options)

    @staticmethod
    def signal_group(pgid, sig):
        return signal_group(pgid, sig)

    @staticmethod
    def raise_oom_score(pid):
        raise_oom_score(pid)

    def stop(self):
        """Nothing to stop: plain children are killed through their groups (and the reset sweep)."""
