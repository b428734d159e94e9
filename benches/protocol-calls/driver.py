#!/usr/bin/env python3
"""Drives the `mcp_server` example over stdio with N tools/call of `convert_currency`, one at a
time (each answer read before the next request), in one protocol generation:

- `2025-11-25`: `initialize`, `notifications/initialized`, then the calls on the session;
- `2026-07-28`: no handshake; each call carries the protocol version, client info and
  capabilities in its `_meta` (the stateless form), and goes through the server's machinery for
  `input_required` results (tooldef's `mcp/round_trip.rs`) although the tool asks nothing.

Each answer is checked (its id, no error, structured content). Exits non-zero on any surprise.

usage: driver.py N --protocol 2025-11-25|2026-07-28 -- COMMAND [ARGS...]
(COMMAND is typically `valgrind --tool=callgrind --callgrind-out-file=F BINARY`.)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rmcp-compare"))
from mcp_driver import Server, options_and_command  # noqa: E402 -- the pipe, the handshake, the checks

ARGUMENTS = {"amount": 10, "from": "EUR", "to": "USD", "round_to": 2}
META_2026 = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "protocol-calls", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("calls", type=int)
    ap.add_argument("--protocol", choices=["2025-11-25", "2026-07-28"], required=True)
    a, command = options_and_command(ap, __doc__)
    server = Server(command, "protocol-calls")
    if a.protocol == "2025-11-25":
        server.initialize(a.protocol)
    for k in range(a.calls):
        params = {"name": "convert_currency", "arguments": ARGUMENTS}
        if a.protocol == "2026-07-28":
            params["_meta"] = META_2026
        server.send({"jsonrpc": "2.0", "id": k + 1, "method": "tools/call", "params": params})
        result = server.receive(k + 1)
        if result.get("isError") or "structuredContent" not in result:
            sys.exit(f"protocol-calls: call {k + 1}: {result}")
    server.close()


if __name__ == "__main__":
    main()
