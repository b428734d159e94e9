"""A recording HTTP proxy in front of the llama.cpp server, which can refuse some paths.

The suite puts one in front of llama.cpp for every gateway: it keeps each request it forwards
(method, path, JSON body, status) so that a test can see what the gateway sent upstream, round
by round. With `refuse`, it answers those paths (and everything below them) with a 404 in
OpenAI's error shape, as an upstream that speaks only Chat Completions does: the issue's "llama.cpp
server with its `/v1/responses` refused". Bodies are streamed through as they come (SSE works):
an upstream body without a Content-Length is sent on chunk by chunk, each flushed at once.

Standard library only. By hand:
    python upstream_proxy.py --target http://127.0.0.1:8080 --listen-port 8081 \
        --refuse /v1/responses --refuse /v1/messages
"""

import argparse
import http.client
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REFUSED_BODY = json.dumps({"error": {"message": "Not Found", "type": "not_found_error"}}).encode()
HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
    "transfer-encoding", "upgrade", "host", "content-length",
}


def read_body(handler):
    """The request's body, whether it came with a Content-Length or chunked (as the gateway sends
    the bodies it passes through unchanged)."""
    if "chunked" in (handler.headers.get("Transfer-Encoding") or "").lower():
        body = b""
        while True:
            size = int(handler.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                    pass
                return body
            body += handler.rfile.read(size)
            handler.rfile.readline()  # the CRLF after each chunk
    length = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(length) if length else b""


class UpstreamProxy:
    """Listens on 127.0.0.1 (a free port unless told), forwards to `target` (http://HOST:PORT),
    records every request in `log`. `refuse`: path prefixes answered 404 instead."""

    def __init__(self, target=None, refuse=(), port=0):
        self.target_host = self.target_port = None
        if target:
            self.retarget(target)
        self.refuse = tuple(refuse)
        self.log = []  # {"method", "path", "body", "status"}, in arrival order
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet: the log is the record
                pass

            def do_GET(self):
                proxy._handle(self)

            do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def retarget(self, target):
        """Forwards to `target` from now on (the suite starts its gateways, and so its proxies,
        before llama.cpp has said which port it listens on)."""
        parsed = urllib.parse.urlsplit(target)
        self.target_host, self.target_port = parsed.hostname, parsed.port or 80

    def mark(self):
        """Where the log is now: `since(mark)` gives the requests that came after."""
        with self.lock:
            return len(self.log)

    def since(self, mark):
        with self.lock:
            return list(self.log[mark:])

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def refused(self, path):
        path = path.split("?", 1)[0]
        return any(path == prefix or path.startswith(prefix + "/") or path.startswith(prefix + "?")
                   for prefix in self.refuse)

    def _handle(self, handler):
        raw = read_body(handler)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        entry = {"method": handler.command, "path": handler.path, "body": body, "status": None}
        with self.lock:
            self.log.append(entry)
        if self.refused(handler.path):
            entry["status"] = 404
            handler.send_response(404)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(REFUSED_BODY)))
            handler.end_headers()
            handler.wfile.write(REFUSED_BODY)
            return
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in HOP_BY_HOP}
        connection = http.client.HTTPConnection(self.target_host, self.target_port, timeout=300)
        try:
            connection.request(handler.command, handler.path, body=raw or None, headers=headers)
            response = connection.getresponse()
        except OSError as error:
            entry["status"] = 502
            message = json.dumps({"error": {"message": f"proxy: upstream unreachable: {error}", "type": "proxy_error"}}).encode()
            handler.send_response(502)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(message)))
            handler.end_headers()
            handler.wfile.write(message)
            connection.close()
            return
        entry["status"] = response.status
        handler.send_response(response.status, response.reason)
        for key, value in response.getheaders():
            if key.lower() not in HOP_BY_HOP:
                handler.send_header(key, value)
        declared = response.getheader("Content-Length")
        try:
            if declared is not None:
                handler.send_header("Content-Length", declared)
                handler.end_headers()
                handler.wfile.write(response.read())
            else:
                handler.send_header("Transfer-Encoding", "chunked")
                handler.end_headers()
                while True:
                    chunk = response.read1(65536)
                    if not chunk:
                        break
                    handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    handler.wfile.flush()
                handler.wfile.write(b"0\r\n\r\n")
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            handler.close_connection = True
        finally:
            connection.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", required=True, help="the upstream, http://HOST:PORT")
    parser.add_argument("--listen-port", type=int, default=0)
    parser.add_argument("--refuse", action="append", default=[], help="a path prefix to answer 404 (repeatable)")
    options = parser.parse_args()
    proxy = UpstreamProxy(options.target, options.refuse, options.listen_port)
    print(f"upstream proxy: listening on {proxy.url}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
