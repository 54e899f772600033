"""A minimal WebSocket client (RFC 6455), standard library only, for corral's /ws/episodes.

The standard library has no WebSocket client, and corral's client takes no dependencies, so this is just what a
request/answer protocol of JSON text frames needs: the opening handshake (with the bearer token, its accept key
checked), masked text frames out, text frames in (fragmented or not), pings answered, and the closing handshake.
No extensions (no compression), no subprotocols; ws:// and wss://.
"""

import base64
import hashlib
import os
import socket
import ssl
import struct
import urllib.parse

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_TEXT, _CONTINUATION, _CLOSE, _PING, _PONG = 0x1, 0x0, 0x8, 0x9, 0xA


class WebSocketClosed(Exception):
    """The server closed the connection (`code` and `reason` from its close frame, or 1006 when it just went away)."""

    def __init__(self, code=1006, reason=""):
        super().__init__(f"WebSocket closed ({code}) {reason}".strip())
        self.code = code
        self.reason = reason


class HandshakeRefused(Exception):
    """The server answered the upgrade with an HTTP error: `status` and the response `body`."""

    def __init__(self, status, body):
        super().__init__(f"WebSocket upgrade refused with HTTP {status}")
        self.status = status
        self.body = body


class WebSocket:
    """One client connection. `url` is http(s):// or ws(s)://; `headers` are sent with the upgrade request."""

    def __init__(self, url, headers=None, timeout=120.0):
        parts = urllib.parse.urlsplit(url)
        secure = parts.scheme in ("https", "wss")
        host = parts.hostname or "127.0.0.1"
        port = parts.port or (443 if secure else 80)
        raw = socket.create_connection((host, port), timeout=timeout)
        self._socket = ssl.create_default_context().wrap_socket(raw, server_hostname=host) if secure else raw
        self._buffer = b""
        self.closed = False
        self._handshake(parts, host, port, headers or {})

    def _handshake(self, parts, host, port, headers):
        key = base64.b64encode(os.urandom(16)).decode()
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self._socket.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        while b"\r\n\r\n" not in self._buffer:
            self._fill()
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ")[1])
        answer = {name.strip().lower(): value.strip() for name, value in (line.split(":", 1) for line in header_lines)}
        if status != 101:
            length = int(answer.get("content-length", "0"))
            while len(self._buffer) < length:
                if not self._fill(allow_eof=True):
                    break
            self._socket.close()
            raise HandshakeRefused(status, self._buffer[:length].decode("utf-8", "replace"))
        expected = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
        if answer.get("sec-websocket-accept") != expected:
            self._socket.close()
            raise HandshakeRefused(status, "the server's Sec-WebSocket-Accept does not match the key")

    def _fill(self, allow_eof=False):
        chunk = self._socket.recv(65536)
        if not chunk:
            if allow_eof:
                return False
            self.closed = True
            raise WebSocketClosed()
        self._buffer += chunk
        return True

    def _read(self, count):
        while len(self._buffer) < count:
            self._fill()
        data, self._buffer = self._buffer[:count], self._buffer[count:]
        return data

    def _send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        length = len(payload)
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", length)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", length)
        mask = os.urandom(4)
        # Client frames are masked (RFC 6455 5.3): XOR with the key repeated, done as one big-integer XOR.
        repeated = (mask * (length // 4 + 1))[:length]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(length, "big")
        self._socket.sendall(header + mask + masked)

    def send_text(self, text):
        if self.closed:
            raise WebSocketClosed()
        self._send_frame(_TEXT, text.encode("utf-8"))

    def receive_text(self):
        """The next text message (fragments joined); answers pings on the way; raises WebSocketClosed at a close."""
        fragments = []
        while True:
            first, second = self._read(2)
            opcode, final = first & 0x0F, first & 0x80
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._read(8))[0]
            mask = self._read(4) if second & 0x80 else None
            payload = self._read(length)
            if mask:
                payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
            if opcode == _PING:
                self._send_frame(_PONG, payload)
            elif opcode == _CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                if not self.closed:
                    self._send_frame(_CLOSE, payload[:2])
                self.closed = True
                self._socket.close()
                raise WebSocketClosed(code, payload[2:].decode("utf-8", "replace"))
            elif opcode in (_TEXT, _CONTINUATION):
                fragments.append(payload)
                if final:
                    return b"".join(fragments).decode("utf-8")

    def close(self, code=1000):
        """The closing handshake: our close frame, then the server's (or its end of stream)."""
        if self.closed:
            return
        try:
            self._send_frame(_CLOSE, struct.pack("!H", code))
            self.closed = True
            while True:
                self.receive_text()
        except (WebSocketClosed, OSError):
            pass
        finally:
            self.closed = True
            self._socket.close()
