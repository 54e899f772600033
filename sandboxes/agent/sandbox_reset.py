"""reset: return the sandbox to a fresh state and prove it, so the pool may hand it to another episode."""
import os
import shutil
import time

from process_control import kill_processes, reap_orphans, sandbox_processes

KILL_ROUNDS = 50


def _make_removable(directory):
    # A user may have chmod-ed directories to 000; without CAP_DAC_OVERRIDE the owner must restore access first.
    for current, subdirectories, _ in os.walk(directory, onerror=lambda _error: None):
        for name in subdirectories:
            path = os.path.join(current, name)
            if not os.path.islink(path):
                try:
                    os.chmod(path, 0o700)
                except OSError:
                    pass


def wipe_contents(directory, mode):
    """Removes everything inside directory (not the directory itself, which may be a mount point)."""
    try:
        # Restore the mode a user may have changed; a directory we do not own (EPERM) keeps its mode.
        if os.stat(directory).st_mode & 0o7777 != mode:
            try:
                os.chmod(directory, mode)
            except PermissionError:
                pass
        names = os.listdir(directory)
    except FileNotFoundError:
        return
    for name in names:
        path = os.path.join(directory, name)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                _make_removable(path)
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass  # verification below reports whatever is left


def kill_sandbox_processes(scope):
    """SIGKILLs every process in scope, in rounds, until none is left (forks racing the kill are caught next round)."""
    for round_number in range(KILL_ROUNDS):
        survivors = sandbox_processes(scope)
        if not survivors:
            return
        kill_processes(survivors)
        time.sleep(0.005 * min(round_number + 1, 10))  # let the kernel finish the kills before looking again


def reset_sandbox(agent):
    started = time.monotonic()
    with agent.repl.lock:
        agent.repl.stop()
        agent.groups.kill_all()
        agent.launcher.stop()  # spawner backend: its whole user namespace dies; the next spawn makes a new one
        kill_sandbox_processes(agent.process_scope)
        if agent.process_scope == "descendants" or os.getpid() == 1:
            reap_orphans(agent.groups.snapshot())  # orphans re-parented to us: nobody else will reap them
        for directory, mode in agent.directory_modes.items():
            wipe_contents(directory, mode)
        leftovers = [f"process {info.pid} ({info.name})" for info in sandbox_processes(agent.process_scope)]
        for directory in agent.directory_modes:
            try:
                leftovers += [os.path.join(directory, name) for name in sorted(os.listdir(directory))]
            except FileNotFoundError:
                pass
        # No REPL is started here: the first python call starts one (about 30 ms), and a rollout that never calls
        # python (a shell or files task, a rubric that runs tests with python3) no longer pays a worker per reset.
    return {"ok": not leftovers, "leftovers": leftovers, "durationMs": int((time.monotonic() - started) * 1000)}
