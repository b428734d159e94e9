#!/usr/bin/env python3
"""Drives an MCP server over stdio: initialize, notifications/initialized, then N tools/call, one
at a time (each answer read before the next request is written, as a model's client does), then
closes stdin and waits for the server to exit.

The calls go to search_0, search_1, … search_{T-1}, search_0, … in turn, all with the same
arguments (every field given, as a strict OpenAI model sends them). Each answer is checked: its
id, no error, and the text the tool returns. Exits non-zero on any surprise.

usage: mcp_driver.py N [--tools T] -- COMMAND [ARGS...]
(COMMAND is typically `valgrind --tool=callgrind --callgrind-out-file=F BINARY`.)
"""
import argparse
import json
import subprocess
import sys

PROTOCOL = "2025-11-25"
ARGUMENTS = {"query": "release notes", "limit": 25, "order": "newest", "include_archived": True}


class Server:
    """An MCP server on the other end of a pipe (also used by benches/protocol-calls)."""

    def __init__(self, command, name):
        self.name = name
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, bufsize=0)

    def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())

    def receive(self, expected_id):
        """The result of request `expected_id`; notifications on the way are skipped."""
        while True:
            line = self.process.stdout.readline()
            if not line:
                sys.exit(f"{self.name}: the server closed stdout waiting for answer {expected_id}")
            message = json.loads(line)
            if "id" not in message:  # a notification (log, list changed): not ours
                continue
            if message["id"] != expected_id:
                sys.exit(f"{self.name}: answer {message['id']} where {expected_id} was expected")
            if "error" in message:
                sys.exit(f"{self.name}: request {expected_id} failed: {message['error']}")
            return message["result"]

    def initialize(self, protocol):
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": protocol, "capabilities": {},
            "clientInfo": {"name": self.name, "version": "0"}}})
        self.receive(0)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self):
        """Closes stdin and waits for the server to exit, which it must do cleanly."""
        self.process.stdin.close()
        status = self.process.wait(timeout=120)
        if status != 0:
            sys.exit(f"{self.name}: the server exited with status {status}")


def options_and_command(parser, usage):
    """`OPTIONS -- COMMAND [ARGS...]`: the parsed options and the server's command line."""
    if "--" not in sys.argv:
        sys.exit(usage)
    split = sys.argv.index("--")
    return parser.parse_args(sys.argv[1:split]), sys.argv[split + 1:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("calls", type=int)
    ap.add_argument("--tools", type=int, default=100)
    a, command = options_and_command(ap, __doc__)
    server = Server(command, "mcp_driver")
    server.initialize(PROTOCOL)
    for k in range(a.calls):
        tool = k % a.tools
        server.send({"jsonrpc": "2.0", "id": k + 1, "method": "tools/call",
                     "params": {"name": f"search_{tool}", "arguments": ARGUMENTS}})
        result = server.receive(k + 1)
        text = result["content"][0]["text"]
        if result.get("isError") or f"records of collection {tool} " not in text:
            sys.exit(f"mcp_driver: unexpected answer to call {k + 1}: {json.dumps(result)[:300]}")
    server.close()


if __name__ == "__main__":
    main()
