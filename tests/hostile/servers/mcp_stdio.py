"""The part of an MCP server over stdio that every script here shares: newline-delimited
JSON-RPC on stdin and stdout, `initialize` answered, notifications ignored, one tool `echo`
callable. Each script passes what it does with `tools/list` (and, if it likes, a hook run at
start). Standard library only.

Run with `--http`, a script serves the same over MCP's Streamable HTTP transport instead,
statelessly (no sessions, every answer plain JSON) on 127.0.0.1 at a free port, and says where
on stderr: `listening on http://127.0.0.1:PORT/mcp`."""

import http.server
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


def answer(message, tools_list, name):
    """The answer to one message, or None for a notification (or an answer to nothing)."""
    if "id" not in message or "method" not in message:
        return None  # a notification, or an answer to nothing this server asked
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
        return {"jsonrpc": "2.0", "id": id_,
                "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def serve(tools_list, name="hostile"):
    """Serves until stdin ends (or, with `--http`, until killed). `tools_list(params)` returns
    the `result` of `tools/list`."""
    if "--http" in sys.argv[1:]:
        serve_http(tools_list, name)
        return
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line), tools_list, name)
        if reply is not None:
            send(reply)


def serve_http(tools_list, name):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            if self.path != "/mcp":
                self.reply(404, b"no MCP endpoint here: use /mcp", "text/plain")
                return
            length = int(self.headers.get("content-length") or 0)
            reply = answer(json.loads(self.rfile.read(length)), tools_list, name)
            if reply is None:
                self.reply(202, b"", None)
            else:
                self.reply(200, json.dumps(reply).encode(), "application/json")

        def do_GET(self):
            self.reply(405, b"no event stream: this server is stateless", "text/plain")

        do_DELETE = do_GET

        def reply(self, status, body, content_type):
            self.send_response(status)
            if content_type:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass  # stderr carries the address only

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    sys.stderr.write(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp\n")
    sys.stderr.flush()
    server.serve_forever()
