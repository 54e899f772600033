"""glob and grep over the workspace. Walks never follow symlinks, so a link to / cannot drag a search outside."""
import os
import re
import time

from wire import INVALID_ARGUMENT, MAX_LINE_BYTES, TIMEOUT, AgentError, require
from workspace_paths import WorkspacePaths

MAX_LINE_CHARS = 1000
BINARY_SNIFF_BYTES = 8192
# Matches stop (truncated) before their reply could come near the protocol's line limit.
MAX_RESULT_BYTES = MAX_LINE_BYTES // 2


def glob_to_regex(pattern):
    """Translates a glob (`*`, `?`, `[...]`, `**`, `{a,b}`) into a regex matched against a relative POSIX path."""
    out, index, depth = [], 0, 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(char))
        index += 1
    out.append(")" * depth)
    try:
        return re.compile("".join(out), re.DOTALL)
    except re.error as error:
        raise AgentError(INVALID_ARGUMENT, f"bad glob {pattern!r}: {error}") from None


def _walk(base, deadline):
    """Yields (relative path from base, absolute path, is_dir) in sorted order, without following symlinks."""
    for directory, dirnames, filenames in os.walk(base, followlinks=False):
        if deadline is not None and time.monotonic() > deadline:
            raise AgentError(TIMEOUT, "search exceeded its timeout")
        dirnames.sort()
        prefix = os.path.relpath(directory, base)
        prefix = "" if prefix == "." else prefix + "/"
        for name in dirnames:
            yield prefix + name, os.path.join(directory, name), True
        for name in sorted(filenames):
            yield prefix + name, os.path.join(directory, name), False


def _limit(request, default):
    value = request.get("maxResults", default)
    require(isinstance(value, int) and value > 0, "maxResults must be a positive integer")
    return value


class FileSearch:
    def __init__(self, paths, grep_runner):
        self.paths = paths
        self.grep_runner = grep_runner

    def glob(self, request, deadline):
        pattern = request.get("pattern")
        require(isinstance(pattern, str) and pattern, "pattern must be a non-empty string")
        regex = glob_to_regex(pattern[2:] if pattern.startswith("./") else pattern)
        limit = _limit(request, 1000)
        base = self.paths.existing(request.get("path") or ".")
        matches = []
        if os.path.isdir(base):
            for relative, absolute, _ in _walk(base, deadline):
                if regex.fullmatch(relative):
                    matches.append(self.paths.relative(absolute))
                    if len(matches) > limit:
                        break
        return {"paths": matches[:limit], "truncated": len(matches) > limit}

    def grep(self, request, call):
        """Validates and confines here, then searches in a child process running as the user, so a catastrophic
        regex (or a huge tree) is killed by the call's timeout or cancel instead of pinning an agent thread."""
        pattern = request.get("pattern")
        require(isinstance(pattern, str) and pattern, "pattern must be a non-empty string")
        try:
            re.compile(pattern, re.IGNORECASE if request.get("ignoreCase") else 0)
        except re.error as error:
            raise AgentError(INVALID_ARGUMENT, f"bad regular expression {pattern!r}: {error}") from None
        file_glob = request.get("glob")
        require(file_glob is None or isinstance(file_glob, str), "glob must be a string")
        if file_glob:
            glob_to_regex(file_glob)  # a bad glob is the caller's error, reported before anything starts
        job = {
            "pattern": pattern, "ignoreCase": bool(request.get("ignoreCase")), "glob": file_glob or None,
            "limit": _limit(request, 200), "base": self.paths.existing(request.get("path") or "."),
            "workspace": self.paths.root,
        }
        return self.grep_runner.run(job, call)


def grep_matches(job):
    """The search itself (run by grep_worker.py): {"matches", "truncated"} for a validated job."""
    regex = re.compile(job["pattern"], re.IGNORECASE if job["ignoreCase"] else 0)
    file_glob = job["glob"]
    name_filter = glob_to_regex(file_glob) if file_glob else None
    limit = job["limit"]
    base = job["base"]
    paths = WorkspacePaths(job["workspace"])
    if os.path.isdir(base):
        candidates = ((relative, absolute) for relative, absolute, is_dir in _walk(base, None) if not is_dir)
    else:
        candidates = iter([(os.path.basename(base), base)])
    matches, budget = [], [MAX_RESULT_BYTES]
    for relative, absolute in candidates:
        if name_filter and not name_filter.fullmatch(relative if "/" in file_glob else os.path.basename(relative)):
            continue
        # One match past the limit tells the caller there was more.
        _grep_file(regex, absolute, paths.relative(absolute), matches, limit + 1, budget)
        if len(matches) > limit or budget[0] <= 0:
            break
    return {"matches": matches[:limit], "truncated": len(matches) > limit or budget[0] <= 0}


def _grep_file(regex, absolute, display, matches, limit, budget):
    if os.path.islink(absolute) or not os.path.isfile(absolute):
        return
    try:
        with open(absolute, "rb") as handle:
            if b"\x00" in handle.read(BINARY_SNIFF_BYTES):
                return
            handle.seek(0)
            for number, raw in enumerate(handle, start=1):
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                if regex.search(line):
                    text = line[:MAX_LINE_CHARS]
                    matches.append({"path": display, "line": number, "text": text})
                    budget[0] -= len(display) + len(text) * 3 + 40  # worst-case JSON bytes of this match
                    if len(matches) >= limit or budget[0] <= 0:
                        return
    except OSError:
        return  # unreadable files are skipped, as grep -s does
