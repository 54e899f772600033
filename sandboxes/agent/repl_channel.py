"""Framing between the agent and its REPL worker: a 4-byte big-endian length, then JSON, over a Unix stream
socket. The per-call output pipes travel with a request as SCM_RIGHTS, so the agent (not the worker) drains them
and keeps partial output even when the worker has to be killed."""
import json
import socket
import struct

HEADER = struct.Struct(">I")


def send_message(sock, message, fds=()):
    payload = json.dumps(message).encode("ascii")  # ensure_ascii keeps lone surrogates safe
    data = HEADER.pack(len(payload)) + payload
    if fds:
        sent = socket.send_fds(sock, [data], list(fds))
        data = data[sent:]
    if data:
        sock.sendall(data)


def _receive_exact(sock, size, first=b""):
    chunks, received = [first], len(first)
    while received < size:
        chunk = sock.recv(min(size - received, 1 << 20))
        if not chunk:
            raise EOFError("channel closed")
        chunks.append(chunk)
        received += len(chunk)
    return b"".join(chunks)


def receive_message(sock, max_fds=0):
    """Returns (message, fds). Raises EOFError when the other side is gone."""
    fds = []
    if max_fds:
        first, fds, _flags, _address = socket.recv_fds(sock, HEADER.size, max_fds)
        if not first:
            raise EOFError("channel closed")
    else:
        first = b""
    (size,) = HEADER.unpack(_receive_exact(sock, HEADER.size, first))
    return json.loads(_receive_exact(sock, size).decode("ascii")), fds
