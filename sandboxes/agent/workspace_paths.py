"""Confines file operations to the workspace, lexically (`..`) and through symlinks (realpath).

This keeps the model-facing file tools honest; it is not the security boundary (code run by exec can reach
whatever the sandbox itself allows). Races with concurrent user processes are therefore acceptable.
"""
import os

from wire import NOT_FOUND, PERMISSION, AgentError, require


class WorkspacePaths:
    def __init__(self, workspace):
        self.root = os.path.abspath(workspace)
        self.real_root = os.path.realpath(self.root)

    def _inside(self, path, root):
        return path == root or path.startswith(root.rstrip("/") + "/")

    def lexical(self, path):
        """Absolute, normalised path; PERMISSION when it leaves the workspace on paper."""
        require(isinstance(path, str), "path must be a string")
        require("\x00" not in path, "path must not contain NUL")
        joined = os.path.normpath(os.path.join(self.root, path or "."))
        if not self._inside(joined, self.root):
            raise AgentError(PERMISSION, f"{path}: outside the workspace {self.root}")
        return joined

    def check_real(self, real, path):
        if not self._inside(real, self.real_root):
            raise AgentError(PERMISSION, f"{path}: resolves outside the workspace (symlink escape)")
        return real

    def existing(self, path):
        """Realpath of an existing path inside the workspace (symlinks followed and checked)."""
        real = self.check_real(os.path.realpath(self.lexical(path)), path)
        if not os.path.lexists(real):
            raise AgentError(NOT_FOUND, f"{path}: no such file or directory")
        return real

    def entry(self, path):
        """Path whose last component is not followed (for stat/remove of a symlink itself); parent checked."""
        full = self.lexical(path)
        if full == self.root:
            return self.real_root
        parent = self.check_real(os.path.realpath(os.path.dirname(full)), path)
        target = os.path.join(parent, os.path.basename(full))
        if not os.path.lexists(target):
            raise AgentError(NOT_FOUND, f"{path}: no such file or directory")
        return target

    def for_write(self, path, create_parents):
        """Target for creating/overwriting a file. Parents are made only inside the workspace; a final symlink
        is followed only when it stays inside."""
        full = self.lexical(path)
        require(full != self.root, "cannot write to the workspace directory itself")
        parent = os.path.dirname(full)
        real_parent = self.check_real(os.path.realpath(parent), path)
        if not os.path.isdir(real_parent):
            if not create_parents or os.path.lexists(real_parent):
                raise AgentError(NOT_FOUND, f"{path}: parent directory does not exist")
            os.makedirs(real_parent, exist_ok=True)
            # The deepest existing ancestor was checked by realpath; re-check now that the parents exist.
            real_parent = self.check_real(os.path.realpath(parent), path)
        target = os.path.join(real_parent, os.path.basename(full))
        if os.path.islink(target):
            target = self.check_real(os.path.realpath(target), path)
        return target

    def relative(self, real):
        """Workspace-relative POSIX path for results ("." for the root)."""
        rel = os.path.relpath(real, self.real_root)
        return rel
