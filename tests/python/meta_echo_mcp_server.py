"""A stdio MCP server for the gateway's telemetry test: its tools say what a `tools/call`
request carried beside its arguments.

usage: python meta_echo_mcp_server.py

Tools:
  echo_meta  answers with the request's `_meta` as JSON text (`{}` when it had none), so that a
             test reads the trace context the gateway put there in the tool's result.
  wait       sleeps `seconds` before answering: longer than the gateway's time limit, it ends
             as a timeout.

Newline-delimited JSON-RPC on stdin and stdout, the legacy `initialize` handshake, no other
capability. Each call runs in a thread of its own, so that a waiting call holds up no other.
"""

import json
import sys
import threading
import time

TOOLS = [
    {
        "name": "echo_meta",
        "description": "Say the _meta of the request that called this tool.",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "wait",
        "description": "Sleep for a number of seconds, then answer.",
        "inputSchema": {
            "type": "object",
            "properties": {"seconds": {"type": "number"}},
            "required": ["seconds"],
        },
    },
]

WRITING = threading.Lock()


def send(message):
    with WRITING:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def text(value):
    return {"content": [{"type": "text", "text": value}], "isError": False}


def call(request_id, params):
    name = params.get("name")
    if name == "echo_meta":
        result = text(json.dumps(params.get("_meta") or {}, sort_keys=True))
    elif name == "wait":
        seconds = float((params.get("arguments") or {}).get("seconds", 0))
        time.sleep(min(seconds, 60))
        result = text(f"waited {seconds} s")
    else:
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": f"no tool {name}"}})
        return
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if request_id is None:
            continue  # a notification: nothing to answer
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "meta-echo", "version": "1"},
            }})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            threading.Thread(target=call, args=(request_id, params), daemon=True).start()
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()
