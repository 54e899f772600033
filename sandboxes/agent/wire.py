"""Wire-level pieces every op shares: the error type, errno mapping and the serialised JSON-lines writer."""
import errno
import json
import os
import threading

NOT_FOUND = "NOT_FOUND"
PERMISSION = "PERMISSION"
INVALID_ARGUMENT = "INVALID_ARGUMENT"
TIMEOUT = "TIMEOUT"
TOO_LARGE = "TOO_LARGE"
UNSUPPORTED = "UNSUPPORTED"
INTERNAL = "INTERNAL"

# No line the agent writes exceeds this, so the host may treat anything longer as a hostile or broken stream and
# buffer no more. It fits the largest legitimate reply: a whole 32 MiB file as base64 (~43 MiB) plus the envelope.
# Keep in step with AGENT_MAX_LINE_BYTES in src/sandbox/agent-client/wire-protocol.ts.
MAX_LINE_BYTES = 48 * 1024 * 1024


class AgentError(Exception):
    """An error reported to the host as {"ok": false, "error": {"code", "message"}}."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


_ERRNO_CODES = {
    errno.ENOENT: NOT_FOUND,
    errno.ENOTDIR: NOT_FOUND,
    errno.EACCES: PERMISSION,
    errno.EPERM: PERMISSION,
    errno.EROFS: PERMISSION,
    errno.ELOOP: PERMISSION,
    errno.ENOSPC: TOO_LARGE,
    errno.EDQUOT: TOO_LARGE,
    errno.EFBIG: TOO_LARGE,
    errno.EISDIR: INVALID_ARGUMENT,
    errno.ENOTEMPTY: INVALID_ARGUMENT,
    errno.EEXIST: INVALID_ARGUMENT,
    errno.EINVAL: INVALID_ARGUMENT,
    errno.ENAMETOOLONG: INVALID_ARGUMENT,
}


def error_from_os(exc, display_path=None):
    code = _ERRNO_CODES.get(exc.errno, INTERNAL)
    reason = exc.strerror or str(exc)
    return AgentError(code, f"{display_path}: {reason}" if display_path else reason)


def require(condition, message):
    if not condition:
        raise AgentError(INVALID_ARGUMENT, message)


class LineWriter:
    """Writes one JSON object per line to the protocol fd. A lock keeps lines from concurrent threads whole."""

    def __init__(self, fd):
        self.fd = fd
        self.lock = threading.Lock()
        self.broken = False

    def write(self, message):
        data = _encode_line(message)
        if len(data) > MAX_LINE_BYTES:  # e.g. a binary file read as utf8, or a huge maxOutputChars
            data = _encode_line({"id": message.get("id"), "ok": False, "error": {"code": TOO_LARGE, "message": (
                f"the reply would be a {len(data)}-byte line, over the protocol's {MAX_LINE_BYTES}-byte limit; "
                "ask for less (maxBytes, maxOutputChars, base64)"
            )}})
        view = memoryview(data)
        with self.lock:
            if self.broken:
                return False
            try:
                while view:
                    written = os.write(self.fd, view)
                    view = view[written:]
            except OSError:
                self.broken = True
                return False
        return True


def _encode_line(message):
    # backslashreplace turns lone surrogates (undecodable file names) into valid JSON \\u escapes.
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace") + b"\n"
