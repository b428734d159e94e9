"""`tooldef gateway`'s telemetry end to end: Prometheus metrics, OTLP spans, W3C trace context.

usage: python gateway_telemetry_test.py --tooldef BIN --upstream BIN --mcp-server BIN [-k TEXT]...

One gateway, between the official OpenAI Python SDK and the scripted upstream, with the mcp_server
example and meta_echo_mcp_server.py (whose `echo_meta` tool answers with its request's `_meta`) as
its MCP servers, exports its spans over OTLP/HTTP to a receiver this file runs. Each conversation
sends a client `traceparent` of its own. Then:
- `/metrics` (read without the gateway's key) counts exactly the requests, rounds and tool calls
  made, by API, status, server, tool and outcome (a tool that panics, one that times out, an
  upstream that answers 500);
- the upstream received a `traceparent` in the client's trace, its parent a span of the gateway's,
  and each MCP call's `_meta` a `traceparent` of the tool call's own span;
- the gateway is stopped (SIGTERM) with its span batches held back (a 10-minute delay), so every
  span it sent came with the flush on shutdown: a request span whose parent is the client's span,
  a span per round that the upstream's `traceparent` names, a span per tool call with its server,
  tool and outcome, and a streamed request's span lasting to its stream's end.

Helpers come from gateway_test.py. The last line is `python gateway telemetry: N passed, M
failed`; the exit status is 1 when any test failed.
"""

import argparse
import json
import os
import secrets
import signal
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from prometheus_client.parser import text_string_to_metric_families

import gateway_test as gt
from gateway_test import CHAT, RESPONSES, MODEL, Gateway, Proc, check, create, eq, mcp, short

KEY_ENV = "TOOLDEF_TELEMETRY_TEST_KEY"
KEY = "gw-key-" + uuid.uuid4().hex
HERE = os.path.dirname(os.path.abspath(__file__))
SERVER_KIND = 2  # OTLP's SPAN_KIND_SERVER
CLIENT_KIND = 3  # SPAN_KIND_CLIENT
UNSET, ERROR = 0, 2  # OTLP's STATUS_CODE_UNSET and STATUS_CODE_ERROR


# ---------------------------------------------------------------------------------------------
# the OTLP/HTTP receiver


class Receiver:
    """POST /v1/traces, protobuf (the gateway's exporter's encoding), kept as plain dicts."""

    def __init__(self):
        self.spans = []
        self.services = set()
        self.problems = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                if self.path != "/v1/traces" or self.headers.get("content-type") != "application/x-protobuf":
                    receiver.problem(f"POST {self.path} as {self.headers.get('content-type')}")
                    self.send_response(404)
                    self.end_headers()
                    return
                receiver.take(trace_service_pb2.ExportTraceServiceRequest.FromString(body))
                answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def problem(self, text):
        with self.lock:
            self.problems.append(text)

    def take(self, request):
        with self.lock:
            for resource_spans in request.resource_spans:
                for kv in resource_spans.resource.attributes:
                    if kv.key == "service.name":
                        self.services.add(kv.value.string_value)
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        self.spans.append({
                            "trace_id": span.trace_id.hex(),
                            "span_id": span.span_id.hex(),
                            "parent": span.parent_span_id.hex(),
                            "name": span.name,
                            "kind": span.kind,
                            "start": span.start_time_unix_nano,
                            "end": span.end_time_unix_nano,
                            "status": span.status.code,
                            "attributes": {kv.key: any_value(kv.value) for kv in span.attributes},
                        })

    def in_trace(self, trace_id):
        with self.lock:
            return [span for span in self.spans if span["trace_id"] == trace_id]


def any_value(value):
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


# ---------------------------------------------------------------------------------------------
# the conversations


@dataclass
class Conversation:
    """One client request and what it should leave behind."""

    name: str
    api: object
    stream: bool
    turns: list
    rounds: int
    status: int = 200
    calls: list = field(default_factory=list)  # (server, tool, outcome), in the order made
    marker: str = ""
    trace_id: str = ""
    client_span: str = ""
    upstream_parents: list = field(default_factory=list)  # the span ids the upstream was given
    meta_parents: list = field(default_factory=list)  # the span ids echo_meta was given

    def traceparent(self):
        self.trace_id, self.client_span = secrets.token_hex(16), secrets.token_hex(8)
        return f"00-{self.trace_id}-{self.client_span}-01"


def call(name, arguments, call_id):
    return {"name": name, "arguments": arguments, "id": call_id}


WEATHER = {"city": "Lisbon", "days": None, "units": None, "include_hourly": None}
CONVERSATIONS = [
    Conversation("chat", CHAT, False, [
        {"calls": [call("example__get_weather", WEATHER, "call_w"), call("example__crash", {"message": "boom"}, "call_c"),
                   call("meta__echo_meta", {}, "call_m")]},
        {"content": "results: {tool_results}"},
    ], rounds=2, calls=[("example", "get_weather", "ok"), ("example", "crash", "error"), ("meta", "echo_meta", "ok")]),
    Conversation("chat-stream", CHAT, True, [
        {"calls": [call("meta__echo_meta", {}, "call_m")]},
        {"content": "results: {tool_results}", "stream_delay_ms": 20},
    ], rounds=2, calls=[("meta", "echo_meta", "ok")]),
    Conversation("responses", RESPONSES, False, [
        {"calls": [call("example__get_server_time", {}, "call_t"), call("meta__echo_meta", {}, "call_m")]},
        {"content": "results: {tool_results}"},
    ], rounds=2, calls=[("example", "get_server_time", "ok"), ("meta", "echo_meta", "ok")]),
    Conversation("responses-stream", RESPONSES, True, [
        {"calls": [call("meta__wait", {"seconds": 20}, "call_x")]},
        {"content": "results: {tool_results}"},
    ], rounds=2, calls=[("meta", "wait", "timeout")]),
    Conversation("chat-upstream-500", CHAT, False, [{"error": {"status": 500}}], rounds=1, status=500),
]
GATEWAY = None
RECEIVER = None


def parent_of(traceparent, conversation, what):
    """The parent id of a `traceparent`, checked to be in the conversation's trace."""
    check(isinstance(traceparent, str), f"{what}: no traceparent")
    parts = traceparent.split("-")
    eq(len(parts), 4, f"{what}: the fields of {traceparent!r}")
    eq(parts[1], conversation.trace_id, f"{what}: the trace id of {traceparent!r} (the client's)")
    check(parts[2] != conversation.client_span, f"{what}: the parent is the client's own span, not one of the gateway's")
    return parts[2]


def converse(conversation):
    client = GATEWAY.client(default_headers={"x-tooldef-key": KEY})
    conversation.marker = f"mk{uuid.uuid4().hex[:10]}"
    messages = conversation.api.start(conversation.marker, conversation.turns)
    headers = {"traceparent": conversation.traceparent(), "tracestate": "client=1"}
    if conversation.status == 200:
        reply = create(conversation.api, client, messages, conversation.stream, extra_headers=headers)
        eq(reply.calls, [], "tool calls the client got")
        check("results: " in reply.text, f"the answer has no results: {short(reply.text)}")
    else:
        try:
            create(conversation.api, client, messages, conversation.stream, extra_headers=headers)
            raise AssertionError(f"the request succeeded; expected {conversation.status}")
        except openai.APIStatusError as error:
            eq(error.status_code, conversation.status, "the status the client got")
    entries = gt.upstream_log(conversation.marker, conversation.api.path)
    eq(len(entries), conversation.rounds, "requests the upstream received")
    for n, entry in enumerate(entries, 1):
        conversation.upstream_parents.append(parent_of(entry["headers"].get("traceparent"), conversation, f"round {n}"))
        eq(entry["headers"].get("tracestate"), "client=1", f"round {n}: the tracestate the upstream got")
    eq(len(set(conversation.upstream_parents)), conversation.rounds, "distinct parents of the rounds")
    if conversation.rounds > 1:
        results = gt.results_by_id(conversation.api, entries[-1]["body"])
        echoed = results.get("call_m")
        if any(tool == "echo_meta" for _, tool, _ in conversation.calls):
            check(echoed is not None, f"no echo_meta result in {short(results)}")
            meta = json.loads(echoed)
            parent = parent_of(meta.get("traceparent"), conversation, "the MCP call's _meta")
            check(parent not in conversation.upstream_parents, "the MCP call's parent is a round's span")
            eq(meta.get("tracestate"), "client=1", "the MCP call's _meta tracestate")
            conversation.meta_parents.append(parent)


# ---------------------------------------------------------------------------------------------
# metrics


def samples():
    """/metrics, read without the gateway's key, as {(name, labels): value}."""
    response = GATEWAY.get("/metrics")
    eq(response.status_code, 200, "GET /metrics status (without the gateway's key)")
    check(response.headers.get("content-type", "").startswith("text/plain"), "the content type of /metrics")
    found = {}
    for family in text_string_to_metric_families(response.text):
        check(family.name.startswith("tooldef_gateway_"), f"a metric without the gateway's prefix: {family.name}")
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def picked(found, name, *keys):
    """The samples of `name`, by the values of their labels `keys`."""
    return {
        tuple(dict(labels).get(key) for key in keys): value
        for (sample, labels), value in found.items()
        if sample == name
    }


def count(pairs):
    totals = {}
    for pair in pairs:
        totals[pair] = totals.get(pair, 0) + 1
    return totals


def test_metrics():
    unkeyed = GATEWAY.get("/v1/tools")
    eq(unkeyed.status_code, 401, "GET /v1/tools without the key (the key is checked)")
    deadline = time.monotonic() + 15
    while True:  # a stream's last event may reach the client before its body ends here
        found = samples()
        live = picked(found, "tooldef_gateway_live_conversations", "api")
        if all(value == 0 for value in live.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    eq(live, {("chat",): 0, ("responses",): 0}, "live conversations once every answer ended")
    requests = count((c.api.name, str(c.status)) for c in CONVERSATIONS)
    eq(picked(found, "tooldef_gateway_requests_total", "api", "status"), requests, "requests by API and status")
    rounds = {}
    for c in CONVERSATIONS:
        rounds[(c.api.name,)] = rounds.get((c.api.name,), 0) + c.rounds
    eq(picked(found, "tooldef_gateway_rounds_total", "api"), rounds, "rounds by API")
    eq(picked(found, "tooldef_gateway_upstream_duration_seconds_count", "api"), rounds, "upstream durations by API")
    eq(picked(found, "tooldef_gateway_upstream_errors_total", "api", "class"), {("chat", "5xx"): 1}, "upstream errors")
    calls = count(made for c in CONVERSATIONS for made in c.calls)
    eq(picked(found, "tooldef_gateway_tool_calls_total", "server", "tool", "outcome"), calls,
       "tool calls by server, tool and outcome")
    by_server = count((server,) for c in CONVERSATIONS for server, _, _ in c.calls)
    eq(picked(found, "tooldef_gateway_tool_call_duration_seconds_count", "server"), by_server, "tool call durations")
    by_api = count((c.api.name,) for c in CONVERSATIONS)
    eq(picked(found, "tooldef_gateway_request_duration_seconds_count", "api"), by_api, "request durations")
    # The timeout is at the 2 s limit: in the buckets above 1 s, not below.
    buckets = {
        float(le): value
        for (server, le), value in picked(found, "tooldef_gateway_tool_call_duration_seconds_bucket", "server", "le").items()
        if server == "meta"
    }
    eq((buckets.get(1.0), buckets.get(2.5)), (3, 4), "meta's calls within 1 s and 2.5 s (echo_meta x3, the 2 s timeout)")


# ---------------------------------------------------------------------------------------------
# spans, after the gateway stopped


def test_shutdown_flushes_the_spans():
    popen = GATEWAY.proc.popen
    popen.send_signal(signal.SIGTERM)
    try:
        status = popen.wait(40)
    except Exception:  # noqa: BLE001 - said below
        raise AssertionError(f"the gateway did not stop within 40 s of SIGTERM:\n{GATEWAY.proc.tail()}") from None
    eq(status, 0, f"the gateway's exit status; its output ends with:\n{GATEWAY.proc.tail()}")
    eq(RECEIVER.problems, [], "requests the receiver could not take")
    eq(RECEIVER.services, {"tooldef-gateway"}, "the spans' service.name")
    for conversation in CONVERSATIONS:
        check(RECEIVER.in_trace(conversation.trace_id), f"no span of {conversation.name}'s trace arrived")


def spans_of(conversation):
    spans = RECEIVER.in_trace(conversation.trace_id)
    requests = [s for s in spans if s["name"] == f"POST {conversation.api.path}"]
    eq(len(requests), 1, f"{conversation.name}: request spans")
    request = requests[0]
    rounds = sorted((s for s in spans if " round " in s["name"]), key=lambda s: s["attributes"].get("tooldef.round"))
    tools = [s for s in spans if s["name"].startswith("execute_tool ")]
    return request, rounds, tools


def test_request_spans():
    for c in CONVERSATIONS:
        request, _, _ = spans_of(c)
        eq(request["parent"], c.client_span, f"{c.name}: the request span's parent (the client's span)")
        eq(request["kind"], SERVER_KIND, f"{c.name}: the request span's kind")
        attributes = request["attributes"]
        eq(attributes.get("tooldef.api"), c.api.name, f"{c.name}: tooldef.api")
        eq(attributes.get("gen_ai.request.model"), MODEL, f"{c.name}: gen_ai.request.model")
        eq(attributes.get("tooldef.stream"), c.stream, f"{c.name}: tooldef.stream")
        eq(attributes.get("http.response.status_code"), c.status, f"{c.name}: http.response.status_code")
        eq(attributes.get("tooldef.rounds"), c.rounds, f"{c.name}: tooldef.rounds")
        eq(attributes.get("tooldef.tool_calls"), len(c.calls), f"{c.name}: tooldef.tool_calls")
        eq(request["status"], ERROR if c.status >= 500 else UNSET, f"{c.name}: the request span's status")


def test_round_spans():
    for c in CONVERSATIONS:
        request, rounds, _ = spans_of(c)
        eq([s["attributes"].get("tooldef.round") for s in rounds], list(range(1, c.rounds + 1)), f"{c.name}: rounds")
        for span in rounds:
            eq(span["name"], f"{c.api.name} round {span['attributes']['tooldef.round']}", f"{c.name}: a round's name")
            eq(span["parent"], request["span_id"], f"{c.name}: a round's parent (the request span)")
            eq(span["kind"], CLIENT_KIND, f"{c.name}: a round's kind")
        eq([s["span_id"] for s in rounds], c.upstream_parents, f"{c.name}: the rounds' spans (vs the upstream's traceparents)")
        statuses = [s["attributes"].get("http.response.status_code") for s in rounds]
        eq(statuses, [200] * (c.rounds - 1) + [c.status], f"{c.name}: the rounds' statuses")
        eq(rounds[-1]["status"], ERROR if c.status >= 400 else UNSET, f"{c.name}: the last round's span status")


def test_tool_call_spans():
    for c in CONVERSATIONS:
        request, _, tools = spans_of(c)
        made = sorted((s["attributes"].get("tooldef.server"), s["attributes"].get("tooldef.tool"),
                       s["attributes"].get("tooldef.outcome")) for s in tools)
        eq(made, sorted(c.calls), f"{c.name}: the tool call spans' server, tool and outcome")
        for span in tools:
            eq(span["parent"], request["span_id"], f"{c.name}: a tool call's parent (the request span)")
            check("gen_ai.tool.call.arguments" not in span["attributes"] and "gen_ai.tool.call.result" not in span["attributes"],
                  f"{c.name}: a tool call span has its content without --trace-content: {span['attributes']}")
            failed = span["attributes"].get("tooldef.outcome") != "ok"
            eq(span["status"], ERROR if failed else UNSET, f"{c.name}: the status of {span['name']}")
        echo = [s["span_id"] for s in tools if s["attributes"].get("tooldef.tool") == "echo_meta"]
        eq(echo, c.meta_parents, f"{c.name}: the echo_meta spans (vs the traceparent in the MCP call's _meta)")


def test_streamed_request_spans_last_to_the_stream_end():
    for c in CONVERSATIONS:
        if not c.stream:
            continue
        request, rounds, tools = spans_of(c)
        last = max(s["end"] for s in rounds + tools)
        check(request["end"] >= last,
              f"{c.name}: the request span ends {(last - request['end']) / 1e6:.1f} ms before its last round or tool call")


# ---------------------------------------------------------------------------------------------


def start(options):
    global GATEWAY, RECEIVER
    RECEIVER = Receiver()
    upstream = Proc("scripted-upstream", [gt.BIN["upstream"], "--listen", "127.0.0.1:0"])
    gt.UPSTREAM = upstream.wait_for(r"listening on (http://\S+)", 60, "stdout").group(1).rstrip("/")
    meta = mcp("meta", sys.executable, os.path.join(HERE, "meta_echo_mcp_server.py"))
    example = mcp("example", gt.BIN["mcp_server"], "--test-tools")
    env = {
        KEY_ENV: KEY,
        # Every span waits for the flush on shutdown, which the last tests check.
        "OTEL_BSP_SCHEDULE_DELAY": "600000",
    }
    args = [*example, *meta, "--otlp-endpoint", RECEIVER.url, "--key-env", KEY_ENV, "--tool-timeout", "2"]
    GATEWAY = Gateway("telemetry", args, env).wait_ready(60)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tooldef", help="target/debug/tooldef")
    parser.add_argument("--upstream", help="target/debug/scripted-upstream")
    parser.add_argument("--mcp-server", help="target/debug/examples/mcp_server")
    parser.add_argument("-k", action="append", default=[], help="run only the tests whose name contains this")
    options = parser.parse_args()
    for key, path in (("tooldef", options.tooldef), ("upstream", options.upstream), ("mcp_server", options.mcp_server)):
        if not path or not os.access(path, os.X_OK):
            parser.error(f"--{key.replace('_', '-')}: not an executable: {path}")
        gt.BIN[key] = os.path.abspath(path)
    tests = [(f"conversation[{c.name}]", lambda c=c: converse(c), 60) for c in CONVERSATIONS]
    tests += [
        ("metrics_count_exactly_what_was_done", test_metrics, 30),
        ("shutdown_flushes_the_spans", test_shutdown_flushes_the_spans, 60),
        ("request_spans_continue_the_clients_trace", test_request_spans, 10),
        ("round_spans_are_the_upstreams_parents", test_round_spans, 10),
        ("tool_call_spans_are_the_mcp_servers_parents", test_tool_call_spans, 10),
        ("streamed_request_spans_last_to_the_stream_end", test_streamed_request_spans_last_to_the_stream_end, 10),
    ]
    selected = [(name, lambda ctx, fn=fn: fn(), timeout) for name, fn, timeout in tests
                if not options.k or any(k in name for k in options.k)]
    return gt.run_tests(selected, "python gateway telemetry", lambda: start(options))


if __name__ == "__main__":
    sys.exit(main())
