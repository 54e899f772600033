"""A persistent Python REPL in its own process, driven by the agent over a control socket.

Each cell's stdout/stderr (fd 1 and 2, so subprocess output is captured too) go to pipes the agent passes in
with the request. The value of a trailing expression comes back as its repr, as Jupyter shows it.
"""
import ast
import builtins
import linecache
import os
import socket
import sys
import traceback

from repl_channel import receive_message, send_message

WORKER_FILE = os.path.abspath(__file__)


def describe_error(error):
    traceback_object = error.__traceback__
    while traceback_object is not None and os.path.abspath(traceback_object.tb_frame.f_code.co_filename) == WORKER_FILE:
        traceback_object = traceback_object.tb_next  # hide the worker's own frames
    text = "".join(traceback.format_exception(type(error), error, traceback_object))
    return {"name": type(error).__name__, "message": str(error), "traceback": text}


def safe_repr(value, max_chars):
    try:
        text = repr(value)
    except BaseException as error:  # a broken __repr__ must not break the REPL
        text = f"<repr failed: {type(error).__name__}: {error}>"
    if len(text) > max_chars:
        text = text[:max_chars] + f"... [{len(text) - max_chars} more characters]"
    return text


def run_cell(code, namespace, filename, max_chars):
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)  # source lines in tracebacks
    try:
        tree = ast.parse(code, filename, "exec")
    except (SyntaxError, ValueError, OverflowError) as error:
        return {"value": None, "error": describe_error(error)}
    trailing = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        trailing = ast.Expression(tree.body.pop().value)
    try:
        if tree.body:
            exec(compile(tree, filename, "exec"), namespace)
        if trailing is None:
            return {"value": None, "error": None}
        value = eval(compile(trailing, filename, "eval"), namespace)
        if value is None:
            return {"value": None, "error": None}
        namespace["_"] = value
        return {"value": safe_repr(value, max_chars), "error": None}
    except BaseException as error:  # SystemExit and KeyboardInterrupt from user code are results too
        return {"value": None, "error": describe_error(error)}


def main():
    control = socket.socket(fileno=int(sys.argv[sys.argv.index("--control-fd") + 1]))
    sys.argv = [""]
    sys.path[0] = ""  # like `python -i`: imports resolve from the working directory, not the agent folder
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")  # under memory pressure the kernel kills user code, not the agent
    except OSError:
        pass
    devnull = os.open(os.devnull, os.O_RDWR)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    send_message(control, {"event": "ready", "pid": os.getpid()})
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    cell = 0
    while True:
        try:
            request, fds = receive_message(control, max_fds=2)
        except (EOFError, OSError):
            os._exit(0)
        if len(fds) == 2:
            os.dup2(fds[0], 1)
            os.dup2(fds[1], 2)
        for fd in fds:
            os.close(fd)
        sys.stdout, sys.stderr, sys.stdin = sys.__stdout__, sys.__stderr__, sys.__stdin__
        cell += 1
        max_chars = int(request.get("maxOutputChars", 30000))
        result = run_cell(request.get("code", ""), namespace, f"<cell-{cell}>", max_chars)
        for stream in (sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except BaseException:
                pass
        os.dup2(devnull, 1)  # background threads printing later must not hold the call's pipes
        os.dup2(devnull, 2)
        send_message(control, result)


if __name__ == "__main__":
    main()
