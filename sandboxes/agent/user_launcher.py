"""Starts every process that runs user code: behind the backend's command prefix and, when the agent runs as a
different uid, as the sandbox user with no supplementary groups and therefore no capabilities.

Why: user code must not reach the agent's protocol descriptors (/proc/<agent>/fd), ptrace it or signal it.
The process backend hides the agent in another PID namespace (the prefix is a `bwrap ... --` launcher); the Docker
backend runs the agent as root with only CAP_SETUID/CAP_SETGID/CAP_KILL and user code as uid 1000.
"""
import errno
import json
import os
import shutil
import subprocess


def parse_command_prefix(text):
    """`--user-command-prefix` value: a JSON array of argv strings (may be empty)."""
    try:
        prefix = json.loads(text)
    except ValueError as error:
        raise ValueError(f"--user-command-prefix must be a JSON array of strings: {error}") from None
    if not isinstance(prefix, list) or not all(isinstance(part, str) and part for part in prefix):
        raise ValueError("--user-command-prefix must be a JSON array of non-empty strings")
    return prefix


def parse_run_as(text):
    """`--run-as UID:GID` value -> (uid, gid)."""
    uid_text, separator, gid_text = text.partition(":")
    if not separator or not uid_text.isdigit() or not gid_text.isdigit():
        raise ValueError("--run-as must be UID:GID (numbers)")
    return int(uid_text), int(gid_text)


class UserLauncher:
    def __init__(self, command_prefix=None, run_as=None):
        self.command_prefix = list(command_prefix or [])
        self.run_as = run_as

    def popen(self, argv, **options):
        """subprocess.Popen with the prefix prepended and the user's identity; cwd/env/stdio/session untouched."""
        if self.command_prefix and not _program_exists(argv[0], options.get("env"), options.get("cwd")):
            # Behind a launcher a missing program would be the launcher's failure (bwrap exits 1); keep exec's 127.
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
        if self.run_as is not None:
            uid, gid = self.run_as
            # Popen switches gid, groups, then uid in the child before exec: the uid change clears every capability.
            options.update(user=uid, group=gid, extra_groups=[])
        return subprocess.Popen([*self.command_prefix, *argv], **options)


def _program_exists(program, env, cwd):
    if "/" in program:
        return os.path.exists(os.path.join(cwd or ".", program))
    return shutil.which(program, path=(env or os.environ).get("PATH", os.defpath)) is not None
