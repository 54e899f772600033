#!/usr/bin/env python3
"""The same walk-through as client.ts with the Python standard library only (no MCP SDK): create a sandbox
handle on a running `corral serve`, speak MCP (JSON-RPC over Streamable HTTP) to it, call python and bash, and
delete the handle.

    CORRAL_URL=http://127.0.0.1:7777 CORRAL_TOKEN=secret python3 examples/mcp-client/client.py

Exits non-zero when anything is not as documented.
"""
import json
import os
import sys
import urllib.request

BASE_URL = os.environ.get("CORRAL_URL", "http://127.0.0.1:7777")
TOKEN = os.environ.get("CORRAL_TOKEN")
PROTOCOL_VERSION = "2025-11-25"


def http(method, url, body=None, headers=None):
    """Returns (status, response headers, body text); HTTP errors are returned, not raised."""
    all_headers = {"authorization": f"Bearer {TOKEN}"} if TOKEN else {}
    all_headers.update(headers or {})
    data = None if body is None else json.dumps(body).encode()
    if data is not None:
        all_headers["content-type"] = "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


class McpClient:
    """Just enough of an MCP client: requests carry an id and get one JSON-RPC response, as a JSON body or as
    a Server-Sent Events stream whose `data:` lines hold JSON-RPC messages."""

    def __init__(self, url):
        self.url = url
        self.next_id = 1
        self.session_id = None

    def _post(self, message):
        headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": PROTOCOL_VERSION}
        if self.session_id:
            headers["mcp-session-id"] = self.session_id
        status, response_headers, text = http("POST", self.url, message, headers)
        self.session_id = response_headers.get("mcp-session-id") or self.session_id
        if status >= 400:
            raise RuntimeError(f"MCP endpoint answered HTTP {status}: {text[:300]}")
        if "text/event-stream" in (response_headers.get("content-type") or ""):
            return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return [json.loads(text)] if text.strip() else []

    def request(self, method, params=None):
        message_id = self.next_id
        self.next_id += 1
        for reply in self._post({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params or {}}):
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: JSON-RPC error {reply['error']}")
                return reply["result"]
        raise RuntimeError(f"{method}: no response")

    def initialize(self):
        client_info = {"name": "corral-example-python", "version": "1.0.0"}
        result = self.request("initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": client_info})
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result

    def call_tool(self, name, arguments):
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        text = "\n".join(block.get("text", "") for block in result["content"] if block["type"] == "text")
        print(f"{name} {json.dumps(arguments)} -> {json.dumps(text)}")
        return result, text


def expect(condition, message):
    if not condition:
        raise RuntimeError(message)


def main():
    status, _, text = http("POST", f"{BASE_URL}/v1/sandboxes", {"env": "python"})
    expect(status == 201, f"POST /v1/sandboxes answered {status}: {text}")
    sandbox = json.loads(text)
    print(f"sandbox {sandbox['id']} at {sandbox['mcpUrl']}")
    try:
        client = McpClient(sandbox["mcpUrl"])
        info = client.initialize()
        print(f"server {info['serverInfo']['name']} {info['serverInfo']['version']}, protocol {info['protocolVersion']}")
        tools = [tool["name"] for tool in client.request("tools/list")["tools"]]
        print("tools: " + ", ".join(tools))
        expect("python" in tools and "bash" in tools, f"python and bash should be listed, got {tools}")

        _, text = client.call_tool("python", {"code": "answer = 6 * 7\nanswer"})
        expect(text == "42", f"expected 42, got {text!r}")
        client.call_tool("python", {"code": "open('answer.txt', 'w').write(str(answer + 1))"})
        result, text = client.call_tool("bash", {"command": "cat answer.txt"})
        expect(text.strip() == "43" and result["structuredContent"]["exit_code"] == 0, f"expected 43, got {text!r}")
        result, text = client.call_tool("python", {"code": "1 / 0"})
        expect(result.get("isError") is True and "ZeroDivisionError" in text, f"expected an isError result, got {result}")
    finally:
        status, _, _ = http("DELETE", f"{BASE_URL}/v1/sandboxes/{sandbox['id']}")
        print(f"DELETE /v1/sandboxes/{sandbox['id']} -> {status}")
        expect(status == 204, f"DELETE answered {status}")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # one readable line for CI logs instead of a traceback
        print(f"client.py failed: {error}", file=sys.stderr)
        sys.exit(1)
