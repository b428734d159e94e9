"""The part of an MCP server over stdio that every script here shares: newline-delimited
JSON-RPC on stdin and stdout, `initialize` answered, notifications ignored, one tool `echo`
callable. Each script passes what it does with `tools/list` (and, if it likes, a hook run at
start). Standard library only."""

import json
import sys

ECHO = {
    "name": "echo",
    "description": "Say the text back.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(tools_list, name="hostile"):
    """Serves until stdin ends. `tools_list(params)` returns the `result` of `tools/list`."""
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # a notification, or an answer to nothing this server asked
        method, params, id_ = message["method"], message.get("params") or {}, message["id"]
        if method == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": "0.1.0"},
            }
        elif method == "tools/list":
            result = tools_list(params)
        elif method == "tools/call" and params.get("name") == "echo":
            text = (params.get("arguments") or {}).get("text", "")
            result = {"content": [{"type": "text", "text": text}]}
        elif method == "ping":
            result = {}
        else:
            send({"jsonrpc": "2.0", "id": id_,
                  "error": {"code": -32601, "message": f"no method {method}"}})
            continue
        send({"jsonrpc": "2.0", "id": id_, "result": result})
