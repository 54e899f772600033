"""File operations confined to the workspace: read, write, edit, list, stat, remove, mkdir."""
import base64
import binascii
import os
import shutil
import stat as stat_module

from wire import INVALID_ARGUMENT, NOT_FOUND, TOO_LARGE, AgentError, error_from_os, require

# A whole file travels in one JSON line; past this size callers must ask for a prefix with maxBytes.
DEFAULT_READ_LIMIT_BYTES = 32 * 1024 * 1024


def entry_type(mode):
    if stat_module.S_ISLNK(mode):
        return "symlink"
    if stat_module.S_ISDIR(mode):
        return "directory"
    if stat_module.S_ISREG(mode):
        return "file"
    return "other"


def _encode(data, encoding):
    if encoding == "base64":
        return base64.b64encode(data).decode("ascii")
    return data.decode("utf-8", "replace")


def _decode(content, encoding):
    require(isinstance(content, str), "content must be a string")
    if encoding == "base64":
        try:
            return base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError) as error:
            raise AgentError(INVALID_ARGUMENT, f"content is not valid base64: {error}") from None
    return content.encode("utf-8", "surrogatepass")


def _encoding(request):
    encoding = request.get("encoding") or "utf8"
    require(encoding in ("utf8", "base64"), "encoding must be 'utf8' or 'base64'")
    return encoding


class FileOps:
    def __init__(self, paths):
        self.paths = paths

    def read(self, request):
        path = request.get("path")
        real = self.paths.existing(path)
        encoding = _encoding(request)
        max_bytes = request.get("maxBytes")
        valid = max_bytes is None or (isinstance(max_bytes, int) and max_bytes >= 0)
        require(valid, "maxBytes must be a non-negative integer")
        if not os.path.isfile(real):
            kind = "a directory" if os.path.isdir(real) else "not a regular file"
            raise AgentError(INVALID_ARGUMENT, f"{path}: is {kind}")
        with self._open(real, path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if max_bytes is None and size > DEFAULT_READ_LIMIT_BYTES:
                limit = DEFAULT_READ_LIMIT_BYTES
                raise AgentError(TOO_LARGE, f"{path}: {size} bytes is over the {limit}-byte read limit; pass maxBytes")
            limit = DEFAULT_READ_LIMIT_BYTES if max_bytes is None else max_bytes
            data = handle.read(limit)
            truncated = len(data) == limit and handle.read(1) != b""
        content = _encode(data, encoding)
        return {"content": content, "encoding": encoding, "sizeBytes": max(size, len(data)), "truncated": truncated}

    def write(self, request):
        path = request.get("path")
        data = _decode(request.get("content"), _encoding(request))
        target = self.paths.for_write(path, request.get("createParents", True) is not False)
        if os.path.lexists(target) and not os.path.isfile(target):
            raise AgentError(INVALID_ARGUMENT, f"{path}: exists and is not a regular file")
        with self._open(target, path, "wb") as handle:
            try:
                handle.write(data)
                handle.flush()
            except OSError as error:
                raise error_from_os(error, path) from None
        return {"sizeBytes": len(data)}

    def edit(self, request):
        path = request.get("path")
        old_text, new_text = request.get("oldText"), request.get("newText")
        require(isinstance(old_text, str) and old_text != "", "oldText must be a non-empty string")
        require(isinstance(new_text, str), "newText must be a string")
        real = self.paths.existing(path)
        require(os.path.isfile(real), f"{path}: not a regular file")
        with self._open(real, path, "rb") as handle:
            raw = handle.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise AgentError(INVALID_ARGUMENT, f"{path}: not UTF-8 text; edit works on text files only") from None
        count = text.count(old_text)
        if count == 0:
            raise AgentError(INVALID_ARGUMENT, f"{path}: oldText was not found")
        if count > 1 and not request.get("replaceAll"):
            message = f"{path}: oldText occurs {count} times; make it unique or set replaceAll"
            raise AgentError(INVALID_ARGUMENT, message)
        updated = text.replace(old_text, new_text) if request.get("replaceAll") else text.replace(old_text, new_text, 1)
        with self._open(real, path, "wb") as handle:
            handle.write(updated.encode("utf-8"))
        return {"replacements": count if request.get("replaceAll") else 1}

    def list(self, request):
        path = request.get("path") or "."
        real = self.paths.existing(path)
        if not os.path.isdir(real):
            raise AgentError(INVALID_ARGUMENT, f"{path}: not a directory")
        entries = []
        try:
            with os.scandir(real) as iterator:
                for item in iterator:
                    try:
                        info = item.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    entries.append({"name": item.name, "type": entry_type(info.st_mode), "sizeBytes": info.st_size})
        except OSError as error:
            raise error_from_os(error, path) from None
        entries.sort(key=lambda entry: entry["name"])
        return {"entries": entries}

    def stat(self, request):
        path = request.get("path")
        target = self.paths.entry(path)
        info = os.lstat(target)
        return {
            "path": self.paths.relative(target),
            "type": entry_type(info.st_mode),
            "sizeBytes": info.st_size,
            "modifiedMs": int(info.st_mtime * 1000),
            "mode": stat_module.S_IMODE(info.st_mode),
        }

    def remove(self, request):
        path = request.get("path")
        full = self.paths.lexical(path)
        require(full != self.paths.root, "cannot remove the workspace directory itself")
        try:
            target = self.paths.entry(path)
        except AgentError as error:
            if error.code == NOT_FOUND:
                return {"removed": False}
            raise
        try:
            if os.path.isdir(target) and not os.path.islink(target):
                if request.get("recursive"):
                    shutil.rmtree(target)
                else:
                    os.rmdir(target)
            else:
                os.unlink(target)
        except OSError as error:
            raise error_from_os(error, path) from None
        return {"removed": True}

    def mkdir(self, request):
        path = request.get("path")
        full = self.paths.lexical(path)
        real = os.path.realpath(full)
        self.paths.check_real(real, path)
        if os.path.lexists(real) and not os.path.isdir(real):
            raise AgentError(INVALID_ARGUMENT, f"{path}: exists and is not a directory")
        try:
            os.makedirs(real, exist_ok=True)
        except OSError as error:
            raise error_from_os(error, path) from None
        return {}

    def _open(self, real, path, mode):
        try:
            return open(real, mode)
        except OSError as error:
            raise error_from_os(error, path) from None
