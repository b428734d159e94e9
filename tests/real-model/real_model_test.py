"""`tooldef gateway` against a real model: SmolLM2-135M-Instruct served by llama.cpp.

usage: python real_model_test.py --tooldef BIN --mcp-server BIN [--direct] [-k TEXT]... [--only NAME]...
                                 [--repeat N] [--list]

The model runs in llama.cpp's own server (the xllamacpp wheel, one thread, greedy sampling; see
llama_server.py), with a Hermes-style chat template that renders tools (hermes.jinja). Two
gateways run with the mcp_server example as their MCP server `weather` (its `get_weather` tool
only, so the model sees one tool, `weather__get_weather`), in execute mode:

- `native`: upstream = llama.cpp, which serves Chat Completions, Responses and Messages itself;
- `chat-only`: upstream = llama.cpp behind a proxy that answers 404 to `/v1/responses` and
  `/v1/messages*`, an upstream that speaks only Chat Completions: the gateway must translate.

Each upstream is reached through a recording proxy (upstream_proxy.py), so that a test sees what
the gateway sent, round by round; the gateways' `/metrics` say how often the tool ran. A 135M
model calls a tool reliably only when shown how: every conversation has a system message
("Always call weather__get_weather") and two worked examples (Paris, Rome: question, the call
with every parameter given, nulls for the defaults, the tool's result, an answer in words)
before the real question. The clients are the official SDKs: openai, anthropic, and the OpenAI
Agents SDK.

With --direct, no gateway runs: each scenario's requests go straight to llama.cpp, the test
playing the gateway's part (it sends the tools the gateway would inject and the tool's result),
to show that the model side works alone.

Each test has a hard time limit; a failure is reported without stopping the others. The last
line is `real model: N passed, M failed` (`real model (direct): …` with --direct); the exit status
is 1 when any test failed. Every process started is stopped at the end.
"""

import argparse
import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import anthropic
import openai
from openai import AsyncOpenAI, OpenAI

try:  # the openai SDK's own HTTP library (httpx2 since openai 3), with httpx's interface
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx

from upstream_proxy import UpstreamProxy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gateway_test as gt  # noqa: E402 - the gateway suite's runner, shared

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = "smollm2"  # llama.cpp serves one model whatever the request names
KEY = "sk-real-model-test"  # llama.cpp checks no key; the SDKs want one
SERVER = "weather"
WEATHER = f"{SERVER}__get_weather"  # the name the model sees through the gateway
CLIENT_TIMEOUT = 90

BIN = {}
DIRECT = False
PROCESSES = []
LLAMA = None  # http://127.0.0.1:PORT of llama.cpp
PROXIES = {}  # "native" | "chat-only" -> UpstreamProxy
GATEWAYS = {}  # "native" | "chat-only" -> Gateway


# ---------------------------------------------------------------------------------------------
# checks


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def eq(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: expected {want!r}, got {got!r}")


def short(value, limit=700):
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def check_words(text, city, what):
    """An answer in words about `city`: not empty, no tool-call markup or JSON leaking through."""
    check(isinstance(text, str) and text.strip(), f"{what}: expected an answer in words, got {text!r}")
    check("<tool_call>" not in text and '"arguments"' not in text,
          f"{what}: expected words, got the model's tool-call markup: {text!r}")
    check(city in text, f"{what}: expected an answer about {city}, got {text!r}")


# ---------------------------------------------------------------------------------------------
# processes


class Proc:
    """A child process whose stdout and stderr lines are read by threads and kept."""

    def __init__(self, name, argv, env=None):
        self.name = name
        self.lines = []
        self.cond = threading.Condition()
        self.closed = 0
        self.popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, env=env, text=True, errors="replace")
        PROCESSES.append(self)
        for stream in (self.popen.stdout, self.popen.stderr):
            threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream):
        for line in stream:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.closed += 1
            self.cond.notify_all()

    def wait_for(self, pattern, timeout):
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        seen = 0
        with self.cond:
            while True:
                for line in self.lines[seen:]:
                    match = regex.search(line)
                    if match:
                        return match
                seen = len(self.lines)
                if self.closed == 2:
                    raise AssertionError(f"{self.name} exited (status {self.popen.poll()}) before printing "
                                         f"/{pattern}/; its output ends with:\n{self.tail()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.name} did not print /{pattern}/ in {timeout} s; output:\n{self.tail()}")
                self.cond.wait(min(left, 0.5))

    def tail(self, n=20):
        with self.cond:
            return "\n".join("  " + line for line in self.lines[-n:])

    def stop(self):
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(5)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)


class Gateway:
    def __init__(self, name, upstream, config_dir):
        self.name = name
        self.proxy = PROXIES[name]
        config = os.path.join(config_dir, f"gateway-{name}.toml")
        with open(config, "w") as f:
            # Only get_weather: one tool keeps the prompt short (1 thread reads ~130 tokens/s).
            f.write(f'upstream = {json.dumps(upstream)}\nlisten = "127.0.0.1:0"\nmode = "execute"\n\n'
                    f"[servers.{SERVER}]\ncommand = {json.dumps(BIN['mcp_server'])}\n"
                    f'allow = ["get_weather"]\n')
        self.proc = Proc(f"gateway {name}", [BIN["tooldef"], "gateway", "--config", config])
        self.url = None

    def wait_ready(self):
        if self.url is None:
            match = self.proc.wait_for(r"tooldef gateway: listening on (http://\S+)", 60)
            self.url = match.group(1).rstrip("/")
        return self

    def openai(self):
        return OpenAI(base_url=self.url + "/v1", api_key=KEY, max_retries=0, timeout=CLIENT_TIMEOUT)

    def anthropic(self):
        return anthropic.Anthropic(base_url=self.url, api_key=KEY, max_retries=0, timeout=CLIENT_TIMEOUT)

    def tool_calls(self):
        """{outcome: count} of get_weather's calls so far, from /metrics."""
        text = httpx.get(self.url + "/metrics", timeout=10).text
        counts = {}
        for match in re.finditer(r'^tooldef_gateway_tool_calls_total\{([^}]*)\} (\S+)$', text, re.M):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', match.group(1)))
            if labels.get("server") == SERVER and labels.get("tool") == "get_weather":
                counts[labels.get("outcome")] = counts.get(labels.get("outcome"), 0) + int(float(match.group(2)))
        return counts


def start_everything(config_dir):
    global LLAMA
    llama = Proc("llama.cpp", [sys.executable, os.path.join(HERE, "llama_server.py"), "--port", "0"])
    gateways = []
    if not DIRECT:
        # The gateways start (and list their server's tools) while the model loads.
        for name, refuse in (("native", ()), ("chat-only", ("/v1/responses", "/v1/messages"))):
            PROXIES[name] = UpstreamProxy(refuse=refuse)  # its target once llama.cpp listens
            GATEWAYS[name] = Gateway(name, PROXIES[name].url + "/v1", config_dir)
            gateways.append(GATEWAYS[name])
    LLAMA = llama.wait_for(r"llama.cpp: listening on (http://\S+)", 120).group(1)
    for proxy in PROXIES.values():
        proxy.retarget(LLAMA)
    for gw in gateways:
        gw.wait_ready()
        tools = httpx.get(gw.url + "/v1/tools", params={"target": "chat"}, timeout=10).json()
        names = [tool["function"]["name"] for tool in tools.get("data", [])]
        eq(names, [WEATHER], f"gateway {gw.name}'s injected tools")


def stop_everything():
    for proc in reversed(PROCESSES):
        proc.stop()
    for proxy in PROXIES.values():
        proxy.close()


# ---------------------------------------------------------------------------------------------
# the conversations, in each API's shape

SYSTEM = f"You are a weather assistant. Always call {WEATHER}."


def forecast(city, highs, lows, rain):
    """The mcp_server's get_weather result for `city`, as the gateway passes it on (compact JSON)."""
    days = [{"high": h, "low": l, "rain_chance": r} for h, l, r in zip(highs, lows, rain)]
    return json.dumps({"city": city, "units": "metric", "days": days}, separators=(",", ":"))


def weather_args(city):
    # Every parameter, nulls for the defaults: the strict schema the gateway injects for Chat and
    # Responses makes them all required, and the model copies the examples' shape. (Under the
    # Anthropic schema, where only `city` is required and `null` is no integer, the model then
    # leaves the nulls out: one call either way.)
    return {"city": city, "days": None, "units": None, "include_hourly": None}


WEATHER_EXAMPLES = [
    # (question, call arguments, tool result, answer)
    ("What is the weather in Paris?", weather_args("Paris"),
     forecast("Paris", [18.0, 17.0, 19.0], [9.0, 10.0, 11.0], [0.75, 0.5, 0.25]),
     "It will be rainy in Paris, 18 degrees."),
    ("What is the weather in Rome?", weather_args("Rome"),
     forecast("Rome", [25.0, 26.0, 27.0], [16.0, 17.0, 16.0], [0.0, 0.0, 0.25]),
     "It will be sunny in Rome, 25 degrees."),
]
QUESTION, CITY = "What is the weather in Lisbon?", "Lisbon"
# What the mcp_server answers for Lisbon (3 days by default): what --direct sends as the result.
LISBON_RESULT = forecast("Lisbon", [20.0, 21.0, 22.0], [12.0, 13.0, 14.0], [0.0, 0.25, 0.5])

ORDER_SYSTEM = "You are a shop assistant. Always call lookup_order."
ORDER_EXAMPLES = [
    ("Where is my order A100?", {"order_id": "A100"},
     '{"order_id":"A100","status":"shipped","arrives":"2026-12-01"}',
     "Your order A100 has shipped and arrives on 2026-12-01."),
    ("Where is my order B200?", {"order_id": "B200"},
     '{"order_id":"B200","status":"delivered","arrives":"2026-11-20"}',
     "Your order B200 was delivered on 2026-11-20."),
]
ORDER_QUESTION, ORDER_ID = "Where is my order C300?", "C300"
ORDER_RESULT = '{"order_id":"C300","status":"packed","arrives":"2026-12-03"}'
LOOKUP_ORDER_CHAT = {
    "type": "function",
    "function": {
        "name": "lookup_order",
        "description": "Look up an order of the shop by its id.",
        "parameters": {"type": "object", "additionalProperties": False,
                       "properties": {"order_id": {"type": "string", "description": "The order's id, e.g. A100."}},
                       "required": ["order_id"]},
        "strict": True,
    },
}

# What the gateway injects for get_weather (GET /v1/tools?target=chat), for --direct.
WEATHER_PARAMETERS_STRICT = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "city": {"type": "string", "description": "The city, e.g. \"Lisbon\" or \"Paris, FR\"."},
        "days": {"type": ["integer", "null"], "minimum": 1, "description": "How many days to forecast. Default: 3.", "maximum": 14},
        "units": {"type": ["string", "null"], "enum": ["metric", "imperial", None],
                  "description": "The units of the figures. Temperature units. One of: `metric`: Degrees Celsius, kilometres per hour; "
                                 "`imperial`: Degrees Fahrenheit, miles per hour. Default: \"metric\"."},
        "include_hourly": {"type": ["boolean", "null"], "description": "Whether to add hourly detail. Default: false."},
    },
    "required": ["city", "days", "units", "include_hourly"],
}
WEATHER_DESCRIPTION = "Get the weather forecast for a city.\n\nReturns one entry per day, starting today."
WEATHER_CHAT = {"type": "function", "function": {"name": WEATHER, "description": WEATHER_DESCRIPTION,
                                                 "parameters": WEATHER_PARAMETERS_STRICT, "strict": True}}
WEATHER_RESPONSES = {"type": "function", "name": WEATHER, "description": WEATHER_DESCRIPTION,
                     "parameters": WEATHER_PARAMETERS_STRICT, "strict": True}
# `tooldef list --to anthropic` for get_weather: only `city` required, no nulls.
WEATHER_ANTHROPIC = {
    "name": WEATHER, "description": WEATHER_DESCRIPTION,
    "input_schema": {
        "type": "object", "additionalProperties": False,
        "properties": {
            "city": {"type": "string", "description": "The city, e.g. \"Lisbon\" or \"Paris, FR\"."},
            "days": {"type": "integer", "minimum": 1, "description": "How many days to forecast. Default: 3.", "maximum": 14},
            "units": {"type": "string", "enum": ["metric", "imperial"],
                      "description": "The units of the figures. Temperature units. One of: `metric`: Degrees Celsius, kilometres per hour; "
                                     "`imperial`: Degrees Fahrenheit, miles per hour. Default: \"metric\"."},
            "include_hourly": {"type": "boolean", "description": "Whether to add hourly detail. Default: false."},
        },
        "required": ["city"],
    },
}


def chat_messages(system=SYSTEM, examples=WEATHER_EXAMPLES, question=QUESTION, tool=WEATHER):
    messages = [{"role": "system", "content": system}]
    for i, (ask, args, result, answer) in enumerate(examples, 1):
        call_id = f"call_example_{i}"
        messages += [
            {"role": "user", "content": ask},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}]},
            {"role": "tool", "tool_call_id": call_id, "content": result},
            {"role": "assistant", "content": answer},
        ]
    messages.append({"role": "user", "content": question})
    return messages


def responses_items(with_system=True, **kw):
    """The same conversation as Responses input items (`type: "message"` on every message item:
    llama.cpp requires it)."""
    items = []
    for message in chat_messages(**kw):
        if message["role"] == "system" and not with_system:
            continue
        if message.get("tool_calls"):
            for call in message["tool_calls"]:
                items.append({"type": "function_call", "call_id": call["id"], "name": call["function"]["name"],
                              "arguments": call["function"]["arguments"]})
        elif message["role"] == "tool":
            items.append({"type": "function_call_output", "call_id": message["tool_call_id"], "output": message["content"]})
        else:
            items.append({"type": "message", "role": message["role"], "content": message["content"]})
    return items


def anthropic_messages(**kw):
    """The same conversation for the Messages API: (system, messages)."""
    system, messages = None, []
    for message in chat_messages(**kw):
        if message["role"] == "system":
            system = message["content"]
        elif message.get("tool_calls"):
            messages.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": call["id"].replace("call_", "toolu_"), "name": call["function"]["name"],
                 "input": json.loads(call["function"]["arguments"])} for call in message["tool_calls"]]})
        elif message["role"] == "tool":
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": message["tool_call_id"].replace("call_", "toolu_"),
                 "content": message["content"]}]})
        else:
            messages.append({"role": message["role"], "content": message["content"]})
    return system, messages


# ---------------------------------------------------------------------------------------------
# what the upstream saw


def is_probe(entry):
    """The gateway asking whether the upstream has an API's path (an empty request, once per API
    per gateway): not a round of a conversation."""
    return entry["body"] == {}


def requests_to(entries, path):
    return [e for e in entries if e["method"] == "POST" and e["path"].split("?")[0] == path and not is_probe(e)]


def describe(entries):
    if not entries:
        return "the upstream received no request"
    return "the upstream received: " + ", ".join(f"{e['method']} {e['path']} → {e['status']}" for e in entries)


def tool_names(entry):
    names = []
    for tool in (entry["body"] or {}).get("tools") or []:
        names.append(tool.get("name") or (tool.get("function") or {}).get("name"))
    return names


def tool_results(entry):
    """The tool results a request carries, as text, whatever its API."""
    body = entry["body"] or {}
    found = []

    def text_of(content):
        if isinstance(content, str):
            return content
        return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))

    for message in body.get("messages") or []:
        if message.get("role") == "tool":
            found.append(text_of(message.get("content")))
        elif message.get("role") == "user" and isinstance(message.get("content"), list):
            found += [text_of(b.get("content")) for b in message["content"] if b.get("type") == "tool_result"]
    for item in body.get("input") or [] if isinstance(body.get("input"), list) else []:
        if item.get("type") == "function_call_output":
            found.append(text_of(item.get("output")))
    return found


def check_upstream_rounds(t, entries, path, rounds=2, city=CITY):
    """`rounds` upstream requests to `path` (any others refused with a 404, the gateway finding
    out which API the upstream speaks), the first with the injected tool, the last with the
    tool's result for `city` as the mcp_server gives it."""
    served = [e for e in entries if e["status"] != 404 and not is_probe(e)]
    wrong = [e for e in served if e["path"].split("?")[0] != path]
    check(not wrong, f"expected every upstream request to go to {path}; {describe(entries)}")
    sent = requests_to(entries, path)
    check(sent, f"expected the gateway to send the conversation to the upstream's {path}; {describe(entries)}")
    check(WEATHER in tool_names(sent[0]),
          f"the first upstream request's tools: expected {WEATHER} injected, got {tool_names(sent[0])}")
    eq(len(sent), rounds, f"upstream requests to {path} ({describe(entries)})")
    if rounds > 1:
        results = [json.loads(r) for r in tool_results(sent[-1]) if r.startswith("{")]
        ran = [r for r in results if r.get("city") == city and isinstance(r.get("days"), list)]
        check(ran, f"the last upstream request carries no get_weather result for {city} (expected the mcp_server's "
                   f"forecast, as the gateway runs the call); its tool results: {short(tool_results(sent[-1]))}")
    t.note(f"upstream: {', '.join(e['path'] + ' ' + str(e['status']) for e in entries)}")
    return sent


def check_tool_ran(gw, before, times=1):
    """get_weather ran `times` times since `before`, each time with success."""
    after = gw.tool_calls()
    delta = {outcome: n - before.get(outcome, 0) for outcome, n in after.items() if n != before.get(outcome, 0)}
    eq(delta, {"ok": times} if times else {}, "the get_weather calls the gateway ran, by outcome "
                                                "(tooldef_gateway_tool_calls_total)")


def untranslated(entries):
    """Why a request failed, when the upstream's 404 for a path it does not serve reached the client."""
    refused = [e["path"] for e in entries if e["status"] == 404]
    if refused and not requests_to(entries, "/v1/chat/completions"):
        return (f" — the gateway passed the upstream's 404 for {refused[0]} on to the client instead of "
                f"translating the request to /v1/chat/completions")
    return ""


class Call:
    """Turns an SDK's error (an HTTP status, an error event in a stream, no answer) into a failure
    that says what the gateway answered and what the upstream received. `first`: a check of the
    upstream's requests whose failure, if any, says more than the gateway's error and comes first."""

    def __init__(self, proxy, mark, what, first=None):
        self.proxy, self.mark, self.what, self.first = proxy, mark, what, first

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if not isinstance(error, (openai.APIError, anthropic.APIError)):
            return False
        entries = self.proxy.since(self.mark)
        status = getattr(error, "status_code", None)
        if status is not None:
            body = getattr(error, "body", None) or getattr(getattr(error, "response", None), "text", "")
            answer = f"the gateway answered {status}: {short(body)}"
        elif isinstance(error, (openai.APIConnectionError, anthropic.APIConnectionError)):
            answer = f"no answer from the gateway ({type(error).__name__}: {error})"
        else:
            answer = f"the stream ended with an error event: {short(str(error))}"
        if self.first is not None:
            try:
                self.first(entries)
            except AssertionError as failure:
                raise AssertionError(f"{failure}; and {self.what}: {answer}") from None
        raise AssertionError(f"{self.what}: {answer}; {describe(entries)}{untranslated(entries)}") from None


def begin(name):
    """The gateway `name`, its proxy's mark and its tool calls so far."""
    gw = GATEWAYS[name]
    return gw, gw.proxy, gw.proxy.mark(), gw.tool_calls()


# ---------------------------------------------------------------------------------------------
# stream checks


def check_chat_stream(chunks, want_finish):
    """One id, one role delta, no tool-call delta, one finish_reason on the last choice chunk;
    returns the text."""
    check(chunks, "the stream had no chunk")
    ids = {c.id for c in chunks}
    eq(len(ids), 1, f"distinct chunk ids (one stream): {sorted(ids)}")
    roles = [c for c in chunks for ch in c.choices if ch.delta.role]
    eq(len(roles), 1, "chunks with a role delta")
    calls = [ch.delta.tool_calls for c in chunks for ch in c.choices if ch.delta.tool_calls]
    check(not calls, f"the client saw tool-call deltas (an injected call leaked?): {short([str(x) for x in calls])}")
    finishes = [(i, ch.finish_reason) for i, c in enumerate(chunks) for ch in c.choices if ch.finish_reason]
    eq([f for _, f in finishes], [want_finish], "the stream's finish_reasons")
    last_choice = max(i for i, c in enumerate(chunks) if c.choices)
    eq(finishes[0][0], last_choice, "the index of the chunk with finish_reason (the last chunk with a choice)")
    return "".join(ch.delta.content or "" for c in chunks for ch in c.choices)


ITEM_EVENTS = ("response.output_item.", "response.content_part.", "response.output_text.",
               "response.function_call_arguments.", "response.mcp_", "response.reasoning")


def check_responses_stream(events, final_status="completed"):
    """A valid Responses stream as the openai SDK delivers it (each event as sent: `to_dict()`):
    response.created first, `sequence_number` 0, 1, 2… on every event, `output_index` on every
    item event (items added at 0, 1, 2… in order), no injected function call, and
    response.<final_status> last. Every problem found is reported at once. Returns the final
    response (a dict)."""
    raw = [e.to_dict() for e in events]
    check(raw, "the stream had no event")
    types = [e.get("type") for e in raw]
    problems = []
    leaked = [e["item"] for e in raw if isinstance(e.get("item"), dict) and e["item"].get("type") == "function_call"
              and str(e["item"].get("name", "")).startswith(SERVER + "__")]
    if leaked:
        problems.append(f"the client saw the injected call's item events (it must never see them): {short(leaked[-1], 300)}")
    if types[0] != "response.created" or types.count("response.created") != 1:
        problems.append(f"expected one response.created, first; got {types.count('response.created')}, the first event being {types[0]}")
    if types[-1] != f"response.{final_status}":
        problems.append(f"expected response.{final_status} last, got {types[-1]} (all: {short(types, 300)})")
    numbers = [e.get("sequence_number") for e in raw]
    missing = [t for t, n in zip(types, numbers) if not isinstance(n, int)]
    if missing:
        problems.append(f"{len(missing)} of {len(raw)} events have no sequence_number, e.g. {sorted(set(missing))[:4]}")
    elif numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        problems.append(f"the sequence_numbers are not consecutive: {short(numbers, 200)}")
    without = [t for t, e in zip(types, raw) if t.startswith(ITEM_EVENTS) and not isinstance(e.get("output_index"), int)]
    if without:
        problems.append(f"{len(without)} item events have no output_index, e.g. {sorted(set(without))[:4]}")
    added = [e.get("output_index") for e in raw if e.get("type") == "response.output_item.added"]
    if not without and added != list(range(len(added))):
        problems.append(f"the items were added at output_index {added}, expected {list(range(len(added)))}")
    check(not problems, "not a valid Responses stream: " + "; ".join(problems))
    return raw[-1]["response"]


def responses_text(output):
    return "".join(part.get("text", "") for item in output if item.get("type") == "message"
                   for part in item.get("content") or [] if part.get("type") == "output_text")


def check_responses_output(response, city=CITY):
    """A completed response whose output is the answer in words, no injected function call."""
    eq(response.get("status"), "completed", f"the response's status (incomplete_details: {response.get('incomplete_details')})")
    output = response.get("output") or []
    calls = [item for item in output if item.get("type") == "function_call"]
    check(not calls, f"the response's output has function calls (expected the gateway to run them): {short(calls)}")
    check_words(responses_text(output), city, "the response's text")


ANTHROPIC_RAW = ("message_start", "message_delta", "message_stop", "content_block_start", "content_block_delta",
                 "content_block_stop")


def check_messages_stream(events):
    """One message_start first, message_stop last, one message_delta (stop_reason end_turn),
    content blocks started and stopped at 0, 1, 2… in order, no tool_use block."""
    raw = [e.to_dict() for e in events if e.type in ANTHROPIC_RAW]
    types = [e["type"] for e in raw]
    check(raw, "the stream had no event")
    eq(types[0], "message_start", "the first event")
    eq(types[-1], "message_stop", f"the last event (all: {short(types, 400)})")
    eq(types.count("message_start"), 1, "message_start events")
    starts = [e for e in raw if e["type"] == "content_block_start"]
    uses = [s["content_block"] for s in starts if s["content_block"].get("type") == "tool_use"]
    check(not uses, f"the client saw a tool_use block (an injected call leaked?): {short(uses)}")
    deltas = [e for e in raw if e["type"] == "message_delta"]
    eq([d["delta"].get("stop_reason") for d in deltas], ["end_turn"], "the message_delta events' stop_reason")
    eq([s["index"] for s in starts], list(range(len(starts))), "the content blocks' indexes")
    stops = [e["index"] for e in raw if e["type"] == "content_block_stop"]
    eq(stops, list(range(len(starts))), "the content_block_stop indexes")


def check_message(message, stop_reason="end_turn", city=CITY):
    data = message.to_dict() if hasattr(message, "to_dict") else message
    eq(data.get("stop_reason"), stop_reason, "the message's stop_reason")
    uses = [b for b in data.get("content") or [] if b.get("type") == "tool_use"]
    check(not uses, f"the message has tool_use blocks (expected the gateway to run them): {short(uses)}")
    text = "".join(b.get("text", "") for b in data.get("content") or [] if b.get("type") == "text")
    check_words(text, city, "the message's text")


# ---------------------------------------------------------------------------------------------
# the test registry

TESTS = {False: [], True: []}  # direct? -> [(name, fn, timeout)]


class Ctx:
    def __init__(self, name):
        self.name = name
        self.notes = []

    def note(self, text):
        self.notes.append(text)


def test(name, timeout=60, direct=False):
    def register(fn):
        TESTS[direct].append((name, fn, timeout))
        return fn

    return register


def rounds_header(raw, want):
    eq(raw.headers.get("x-tooldef-rounds"), str(want), "the answer's x-tooldef-rounds header")


# ---------------------------------------------------------------------------------------------
# 1, 2. Chat Completions through the gateway to llama.cpp


@test("chat")
def _(t):
    gw, proxy, mark, before = begin("native")
    with Call(proxy, mark, "chat.completions.create"):
        raw = gw.openai().chat.completions.with_raw_response.create(
            model=MODEL, messages=chat_messages(), temperature=0, max_tokens=120)
    reply = raw.parse()
    check_upstream_rounds(t, proxy.since(mark), "/v1/chat/completions")
    check_tool_ran(gw, before)
    rounds_header(raw, 2)
    choice = reply.choices[0]
    eq(choice.finish_reason, "stop", "finish_reason")
    check(not choice.message.tool_calls, f"the client got tool calls: {choice.message.tool_calls}")
    check_words(choice.message.content, CITY, "the answer")
    t.note(f"answer: {choice.message.content!r}")


@test("chat-stream")
def _(t):
    gw, proxy, mark, before = begin("native")
    with Call(proxy, mark, "chat.completions.create(stream=True)"):
        chunks = list(gw.openai().chat.completions.create(
            model=MODEL, messages=chat_messages(), temperature=0, max_tokens=120, stream=True))
    sent = check_upstream_rounds(t, proxy.since(mark), "/v1/chat/completions")
    eq([e["body"].get("stream") for e in sent], [True, True], "the upstream requests' stream")
    check_tool_ran(gw, before)
    text = check_chat_stream(chunks, "stop")
    check_words(text, CITY, "the streamed answer")
    t.note(f"answer: {text!r}")


# ---------------------------------------------------------------------------------------------
# 3, 4. Responses: natively (llama.cpp's /v1/responses) and over the Chat-only upstream


def responses_whole(t, name, upstream_path):
    gw, proxy, mark, before = begin(name)
    with Call(proxy, mark, "responses.create"):
        raw = gw.openai().responses.with_raw_response.create(
            model=MODEL, input=responses_items(), temperature=0, max_output_tokens=120)
    response = raw.parse()
    check_upstream_rounds(t, proxy.since(mark), upstream_path)
    check_tool_ran(gw, before)
    rounds_header(raw, 2)
    check_responses_output(response.to_dict())
    t.note(f"answer: {response.output_text!r}")
    return response


def responses_stream(t, name, upstream_path):
    gw, proxy, mark, before = begin(name)
    with Call(proxy, mark, "responses.create(stream=True)"):
        events = list(gw.openai().responses.create(
            model=MODEL, input=responses_items(), temperature=0, max_output_tokens=120, stream=True))
    check_upstream_rounds(t, proxy.since(mark), upstream_path)
    check_tool_ran(gw, before)
    response = check_responses_stream(events)
    check_responses_output(response)
    t.note(f"answer: {responses_text(response['output'])!r}")


@test("responses")
def _(t):
    responses_whole(t, "native", "/v1/responses")


@test("responses-stream")
def _(t):
    responses_stream(t, "native", "/v1/responses")


@test("responses-over-chat")
def _(t):
    responses_whole(t, "chat-only", "/v1/chat/completions")


@test("responses-over-chat-stream")
def _(t):
    responses_stream(t, "chat-only", "/v1/chat/completions")


FOLLOW_UP, FOLLOW_UP_CITY = "What is the weather in Oslo?", "Oslo"


@test("responses-over-chat-follow-up", timeout=90)
def _(t):
    first = responses_whole(t, "chat-only", "/v1/chat/completions")
    gw, proxy, mark, before = begin("chat-only")
    with Call(proxy, mark, "responses.create(previous_response_id=…)"):
        raw = gw.openai().responses.with_raw_response.create(
            model=MODEL, previous_response_id=first.id, temperature=0, max_output_tokens=120,
            input=[{"type": "message", "role": "user", "content": FOLLOW_UP}])
    response = raw.parse()
    sent = check_upstream_rounds(t, proxy.since(mark), "/v1/chat/completions", city=FOLLOW_UP_CITY)
    # The gateway kept the conversation: the first turn, its call and result included.
    messages = sent[0]["body"].get("messages") or []
    roles = [(m.get("role"), m.get("content") if isinstance(m.get("content"), str) else None) for m in messages]
    asked = [i for i, (role, content) in enumerate(roles) if role == "user" and content == QUESTION]
    check(asked, f"the follow-up's first upstream request lacks the first turn's question: {short(messages)}")
    after = messages[asked[-1] + 1:]
    called = [m for m in after if m.get("role") == "assistant" and m.get("tool_calls")
              and m["tool_calls"][0]["function"]["name"] == WEATHER]
    results = [m for m in after if m.get("role") == "tool" and f'"city":"{CITY}"' in str(m.get("content"))]
    check(called and results, f"the follow-up's first upstream request lacks the first turn's call and result "
                              f"(expected the gateway to keep them): {short(after)}")
    eq(messages[-1].get("content"), FOLLOW_UP, "the last message of the follow-up's first upstream request")
    check_tool_ran(gw, before)
    check_responses_output(response.to_dict(), FOLLOW_UP_CITY)
    t.note(f"follow-up answer: {response.output_text!r}")


# ---------------------------------------------------------------------------------------------
# 5, 6. Messages: over the Chat-only upstream and natively (llama.cpp's /v1/messages)


def messages_whole(t, name, upstream_path):
    gw, proxy, mark, before = begin(name)
    system, messages = anthropic_messages()
    with Call(proxy, mark, "messages.create"):
        raw = gw.anthropic().messages.with_raw_response.create(
            model=MODEL, system=system, messages=messages, max_tokens=120, extra_body={"temperature": 0})
    message = raw.parse()
    check_upstream_rounds(t, proxy.since(mark), upstream_path)
    check_tool_ran(gw, before)
    check_message(message)
    t.note(f"answer: {message.content[0].text if message.content else ''!r}")


def messages_stream(t, name, upstream_path):
    gw, proxy, mark, before = begin(name)
    system, messages = anthropic_messages()
    with Call(proxy, mark, "messages.stream"):
        with gw.anthropic().messages.stream(model=MODEL, system=system, messages=messages, max_tokens=120,
                                            extra_body={"temperature": 0}) as stream:
            events = list(stream)
            final = stream.get_final_message()
    check_upstream_rounds(t, proxy.since(mark), upstream_path)
    check_tool_ran(gw, before)
    check_messages_stream(events)
    check_message(final)
    t.note(f"answer: {final.content[0].text if final.content else ''!r}")


@test("messages-over-chat")
def _(t):
    messages_whole(t, "chat-only", "/v1/chat/completions")


@test("messages-over-chat-stream")
def _(t):
    messages_stream(t, "chat-only", "/v1/chat/completions")


@test("messages")
def _(t):
    messages_whole(t, "native", "/v1/messages")


@test("messages-stream")
def _(t):
    messages_stream(t, "native", "/v1/messages")


# ---------------------------------------------------------------------------------------------
# 7. A client tool beside the injected one: the call goes back to the client


@test("client-tool", timeout=90)
def _(t):
    gw, proxy, mark, before = begin("native")
    client = gw.openai()
    messages = chat_messages(ORDER_SYSTEM, ORDER_EXAMPLES, ORDER_QUESTION, "lookup_order")
    with Call(proxy, mark, "chat.completions.create"):
        raw = client.chat.completions.with_raw_response.create(
            model=MODEL, messages=messages, tools=[LOOKUP_ORDER_CHAT], temperature=0, max_tokens=120)
    reply = raw.parse()
    rounds_header(raw, 1)
    choice = reply.choices[0]
    eq(choice.finish_reason, "tool_calls", f"finish_reason (content {choice.message.content!r})")
    calls = choice.message.tool_calls or []
    eq([c.function.name for c in calls], ["lookup_order"], "the tool calls handed back to the client")
    eq(json.loads(calls[0].function.arguments).get("order_id"), ORDER_ID, "lookup_order's order_id")
    sent = requests_to(proxy.since(mark), "/v1/chat/completions")
    eq(len(sent), 1, f"upstream requests ({describe(proxy.since(mark))})")
    eq(sorted(tool_names(sent[0])), sorted(["lookup_order", WEATHER]), "the upstream request's tools")

    mark = proxy.mark()
    messages += [choice.message.to_dict(), {"role": "tool", "tool_call_id": calls[0].id, "content": ORDER_RESULT}]
    with Call(proxy, mark, "chat.completions.create (with the tool's result)"):
        raw = client.chat.completions.with_raw_response.create(
            model=MODEL, messages=messages, tools=[LOOKUP_ORDER_CHAT], temperature=0, max_tokens=120)
    reply = raw.parse()
    rounds_header(raw, 1)
    eq(reply.choices[0].finish_reason, "stop", "finish_reason after the tool's result")
    check_words(reply.choices[0].message.content, ORDER_ID, "the answer")
    check_tool_ran(gw, before, times=0)
    t.note(f"answer: {reply.choices[0].message.content!r}")


# ---------------------------------------------------------------------------------------------
# 8. A call cut by the token limit: never run, never sent back upstream

CUT_TOKENS = 24  # the model's call is then `{"city": "L`: its name is out, its arguments are not


def cut_checker(gw, before, path):
    """The check of a cut call's request, given the upstream's requests: one upstream request
    (after any 404 the gateway learns the upstream's API from) with the injected tool, and no
    tool call run: the model's call, cut, is neither run nor sent back. Every problem is reported."""

    def check_cut(entries):
        served = [e for e in entries if e["status"] != 404 and not is_probe(e)]
        problems = []
        paths = [e["path"].split("?")[0] for e in served]
        if paths != [path]:
            if len(paths) > 1 and set(paths) == {path}:
                problems.append(f"the gateway sent {len(paths) - 1} more upstream request(s) after the cut call "
                                f"(expected one round: a call cut by the token limit is neither run nor sent back)")
            else:
                problems.append(f"expected one upstream request to {path}")
        elif WEATHER not in tool_names(served[0]):
            problems.append(f"the upstream request's tools: expected {WEATHER} injected, got {tool_names(served[0])}")
        after = gw.tool_calls()
        ran = {o: n - before.get(o, 0) for o, n in after.items() if n != before.get(o, 0)}
        if ran:
            problems.append(f"the gateway tried to run the cut call (get_weather calls by outcome: {ran})")
        check(not problems, "; ".join(problems) + f"; {describe(entries)}{untranslated(entries)}")

    return check_cut


@test("cut-chat")
def _(t):
    gw, proxy, mark, before = begin("native")
    check_cut = cut_checker(gw, before, "/v1/chat/completions")
    with Call(proxy, mark, "chat.completions.create", first=check_cut):
        raw = gw.openai().chat.completions.with_raw_response.create(
            model=MODEL, messages=chat_messages(), temperature=0, max_tokens=CUT_TOKENS)
    choice = raw.parse().choices[0]
    check_cut(proxy.since(mark))
    eq(choice.finish_reason, "length", f"finish_reason (message {short(choice.message.to_dict())})")
    rounds_header(raw, 1)


@test("cut-chat-stream")
def _(t):
    gw, proxy, mark, before = begin("native")
    check_cut = cut_checker(gw, before, "/v1/chat/completions")
    with Call(proxy, mark, "chat.completions.create(stream=True)", first=check_cut):
        chunks = list(gw.openai().chat.completions.create(
            model=MODEL, messages=chat_messages(), temperature=0, max_tokens=CUT_TOKENS, stream=True))
    check_cut(proxy.since(mark))
    finishes = [ch.finish_reason for c in chunks for ch in c.choices if ch.finish_reason]
    eq(finishes, ["length"], "the stream's finish_reasons")


def cut_responses(t, name, path):
    gw, proxy, mark, before = begin(name)
    check_cut = cut_checker(gw, before, path)
    with Call(proxy, mark, "responses.create", first=check_cut):
        response = gw.openai().responses.create(
            model=MODEL, input=responses_items(), temperature=0, max_output_tokens=CUT_TOKENS).to_dict()
    check_cut(proxy.since(mark))
    eq(response.get("status"), "incomplete", f"the response's status (output {short(response.get('output'))})")
    eq((response.get("incomplete_details") or {}).get("reason"), "max_output_tokens", "incomplete_details.reason")


@test("cut-responses")
def _(t):
    # llama.cpp says `completed` for a call cut by max_output_tokens (its usage.output_tokens is
    # the limit, and the arguments are not JSON): the gateway must not run it either.
    cut_responses(t, "native", "/v1/responses")


@test("cut-responses-over-chat")
def _(t):
    cut_responses(t, "chat-only", "/v1/chat/completions")


def cut_messages(t, name, path):
    gw, proxy, mark, before = begin(name)
    system, messages = anthropic_messages()
    check_cut = cut_checker(gw, before, path)
    with Call(proxy, mark, "messages.create", first=check_cut):
        message = gw.anthropic().messages.create(
            model=MODEL, system=system, messages=messages, max_tokens=CUT_TOKENS, extra_body={"temperature": 0})
    check_cut(proxy.since(mark))
    eq(message.stop_reason, "max_tokens", f"the message's stop_reason (content {short(message.to_dict().get('content'))})")


@test("cut-messages")
def _(t):
    cut_messages(t, "native", "/v1/messages")


@test("cut-messages-over-chat")
def _(t):
    cut_messages(t, "chat-only", "/v1/chat/completions")


# ---------------------------------------------------------------------------------------------
# 9. The OpenAI Agents SDK, its HostedMCPTool served by the gateway


def agents_run(base_url, tools, items, headers=None):
    from agents import Agent, ModelSettings, OpenAIResponsesModel, Runner, set_tracing_disabled

    set_tracing_disabled(True)  # no trace export to OpenAI
    logging.getLogger("openai.agents").setLevel(logging.CRITICAL)  # a failure is reported by the test
    client = AsyncOpenAI(base_url=base_url, api_key=KEY, max_retries=0, timeout=CLIENT_TIMEOUT, default_headers=headers)
    agent = Agent(name="weather", instructions=SYSTEM, tools=tools,
                  model=OpenAIResponsesModel(model=MODEL, openai_client=client),
                  model_settings=ModelSettings(temperature=0, max_tokens=120))
    return asyncio.run(Runner.run(agent, input=items, max_turns=3))


def agents_hosted(t, name, path):
    from agents import HostedMCPTool

    gw, proxy, mark, before = begin(name)
    tool = HostedMCPTool(tool_config={"type": "mcp", "server_label": SERVER, "require_approval": "never"})
    with Call(proxy, mark, "Runner.run"):
        result = agents_run(gw.url + "/v1", [tool], responses_items(with_system=False))
    check_upstream_rounds(t, proxy.since(mark), path)
    check_tool_ran(gw, before)
    kinds = [(item.type, getattr(item.raw_item, "type", None)) for item in result.new_items]
    mcp_calls = [item.raw_item for item in result.new_items if getattr(item.raw_item, "type", None) == "mcp_call"]
    check(mcp_calls, f"the run's items: expected an mcp_call (the gateway's hosted MCP), got {kinds}")
    call = mcp_calls[0]
    eq((call.server_label, call.name), (SERVER, "get_weather"), "the mcp_call's server_label and name")
    check(call.error is None and call.output and f'"city":"{CITY}"' in call.output,
          f"the mcp_call's output: expected the forecast for {CITY}, got output {call.output!r}, error {call.error!r}")
    check_words(result.final_output, CITY, "the run's final_output")
    t.note(f"items: {kinds}; final_output: {result.final_output!r}")


@test("agents-sdk", timeout=90)
def _(t):
    agents_hosted(t, "native", "/v1/responses")


@test("agents-sdk-over-chat", timeout=90)
def _(t):
    agents_hosted(t, "chat-only", "/v1/chat/completions")


# ---------------------------------------------------------------------------------------------
# --direct: the same requests straight to llama.cpp, the test playing the gateway


# llama.cpp's HTTP server sometimes closes a kept-alive connection just as a client sends its next
# request on it ("Server disconnected without sending a response", about 1 request in 30 after a
# stream): the direct clients close each connection after its response instead. (Through a
# gateway, the proxy reaches llama.cpp on a new connection per request.)
DIRECT_HEADERS = {"Connection": "close"}


def llama_openai():
    return OpenAI(base_url=LLAMA + "/v1", api_key=KEY, max_retries=0, timeout=CLIENT_TIMEOUT,
                  default_headers=DIRECT_HEADERS)


def llama_anthropic():
    return anthropic.Anthropic(base_url=LLAMA, api_key=KEY, max_retries=0, timeout=CLIENT_TIMEOUT,
                               default_headers=DIRECT_HEADERS)


def direct_chat_call(messages, tools, name, arg, value, stream=False):
    """Round 1 on Chat: the model calls `name` with `arg` = `value`. Returns the assistant message."""
    client = llama_openai()
    if stream:
        chunks = list(client.chat.completions.create(model=MODEL, messages=messages, tools=tools, temperature=0,
                                                     max_tokens=120, stream=True))
        finishes = [ch.finish_reason for c in chunks for ch in c.choices if ch.finish_reason]
        eq(finishes, ["tool_calls"], "round 1's finish_reasons")
        parts = {}
        for c in chunks:
            for ch in c.choices:
                for d in ch.delta.tool_calls or []:
                    part = parts.setdefault(d.index, {"id": "", "name": "", "arguments": ""})
                    part["id"] += d.id or ""
                    part["name"] += (d.function.name or "") if d.function else ""
                    part["arguments"] += (d.function.arguments or "") if d.function else ""
        calls = [{"id": p["id"], "type": "function", "function": {"name": p["name"], "arguments": p["arguments"]}}
                 for _, p in sorted(parts.items())]
        message = {"role": "assistant", "content": None, "tool_calls": calls}
    else:
        choice = client.chat.completions.create(model=MODEL, messages=messages, tools=tools, temperature=0,
                                                max_tokens=120).choices[0]
        eq(choice.finish_reason, "tool_calls", f"round 1's finish_reason (content {choice.message.content!r})")
        message = choice.message.to_dict()
        calls = message["tool_calls"]
    eq([c["function"]["name"] for c in calls], [name], "round 1's tool calls")
    eq(json.loads(calls[0]["function"]["arguments"]).get(arg), value, f"the call's {arg}")
    return message


def direct_chat_answer(messages, tools, city, stream=False):
    client = llama_openai()
    if stream:
        chunks = list(client.chat.completions.create(model=MODEL, messages=messages, tools=tools, temperature=0,
                                                     max_tokens=120, stream=True))
        finishes = [ch.finish_reason for c in chunks for ch in c.choices if ch.finish_reason]
        eq(finishes, ["stop"], "round 2's finish_reasons")
        text = "".join(ch.delta.content or "" for c in chunks for ch in c.choices)
    else:
        choice = client.chat.completions.create(model=MODEL, messages=messages, tools=tools, temperature=0,
                                                max_tokens=120).choices[0]
        eq(choice.finish_reason, "stop", "round 2's finish_reason")
        text = choice.message.content
    check_words(text, city, "round 2's answer")
    return text


def direct_chat(t, stream):
    messages = chat_messages()
    call = direct_chat_call(messages, [WEATHER_CHAT], WEATHER, "city", CITY, stream)
    messages += [call, {"role": "tool", "tool_call_id": call["tool_calls"][0]["id"], "content": LISBON_RESULT}]
    text = direct_chat_answer(messages, [WEATHER_CHAT], CITY, stream)
    t.note(f"call: {call['tool_calls'][0]['function']['arguments']}; answer: {text!r}")


@test("chat", direct=True)
def _(t):
    direct_chat(t, False)


@test("chat-stream", direct=True)
def _(t):
    direct_chat(t, True)


@test("chat-follow-up", direct=True)
def _(t):
    # What the gateway sends for responses-over-chat-follow-up's second turn.
    messages = chat_messages() + [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_lisbon", "type": "function", "function": {"name": WEATHER, "arguments": json.dumps(weather_args(CITY))}}]},
        {"role": "tool", "tool_call_id": "call_lisbon", "content": LISBON_RESULT},
        {"role": "assistant", "content": "It will be sunny in Lisbon, 20 degrees."},
        {"role": "user", "content": FOLLOW_UP},
    ]
    call = direct_chat_call(messages, [WEATHER_CHAT], WEATHER, "city", FOLLOW_UP_CITY)
    messages += [call, {"role": "tool", "tool_call_id": call["tool_calls"][0]["id"],
                        "content": forecast(FOLLOW_UP_CITY, [8.0, 9.0, 10.0], [2.0, 3.0, 4.0], [0.0, 0.25, 0.5])}]
    text = direct_chat_answer(messages, [WEATHER_CHAT], FOLLOW_UP_CITY)
    t.note(f"answer: {text!r}")


def direct_responses(t, stream):
    client = llama_openai()
    items = responses_items()
    kw = dict(model=MODEL, tools=[WEATHER_RESPONSES], temperature=0, max_output_tokens=120)
    if stream:
        events = [e.to_dict() for e in client.responses.create(input=items, stream=True, **kw)]
        eq(events[-1]["type"], "response.completed", "round 1's last event")
        output = events[-1]["response"]["output"]
    else:
        output = client.responses.create(input=items, **kw).to_dict()["output"]
    calls = [item for item in output if item["type"] == "function_call"]
    eq([c["name"] for c in calls], [WEATHER], f"round 1's function calls (output {short(output)})")
    eq(json.loads(calls[0]["arguments"]).get("city"), CITY, "the call's city")
    items += [{"type": "function_call", "call_id": calls[0]["call_id"], "name": WEATHER, "arguments": calls[0]["arguments"]},
              {"type": "function_call_output", "call_id": calls[0]["call_id"], "output": LISBON_RESULT}]
    if stream:
        events = [e.to_dict() for e in client.responses.create(input=items, stream=True, **kw)]
        response = events[-1]["response"]
    else:
        response = client.responses.create(input=items, **kw).to_dict()
    check_responses_output(response)
    t.note(f"answer: {responses_text(response['output'])!r}")


@test("responses", direct=True)
def _(t):
    direct_responses(t, False)


@test("responses-stream", direct=True)
def _(t):
    direct_responses(t, True)


def direct_messages(t, stream):
    client = llama_anthropic()
    system, messages = anthropic_messages()
    kw = dict(model=MODEL, system=system, tools=[WEATHER_ANTHROPIC], max_tokens=120, extra_body={"temperature": 0})

    def send():
        if stream:
            with client.messages.stream(messages=messages, **kw) as s:
                events = list(s)
                message = s.get_final_message()
            check(events and events[-1].type == "message_stop", "the stream's last event is not message_stop")
            return message
        return client.messages.create(messages=messages, **kw)

    first = send()
    uses = [b for b in first.content if b.type == "tool_use"]
    eq(first.stop_reason, "tool_use", f"round 1's stop_reason (content {short(first.to_dict()['content'])})")
    eq([u.name for u in uses], [WEATHER], "round 1's tool_use blocks")
    eq(uses[0].input.get("city"), CITY, "the call's city")
    messages += [{"role": "assistant", "content": [u.to_dict() for u in uses]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uses[0].id, "content": LISBON_RESULT}]}]
    second = send()
    check_message(second)
    t.note(f"call: {json.dumps(uses[0].input)}; answer: {second.content[0].text!r}")


@test("messages", direct=True)
def _(t):
    direct_messages(t, False)


@test("messages-stream", direct=True)
def _(t):
    direct_messages(t, True)


@test("client-tool", direct=True)
def _(t):
    # The gateway's request: the client's tool and the injected one.
    tools = [LOOKUP_ORDER_CHAT, WEATHER_CHAT]
    messages = chat_messages(ORDER_SYSTEM, ORDER_EXAMPLES, ORDER_QUESTION, "lookup_order")
    call = direct_chat_call(messages, tools, "lookup_order", "order_id", ORDER_ID)
    messages += [call, {"role": "tool", "tool_call_id": call["tool_calls"][0]["id"], "content": ORDER_RESULT}]
    text = direct_chat_answer(messages, tools, ORDER_ID)
    t.note(f"answer: {text!r}")


def not_json(text):
    try:
        json.loads(text)
        return False
    except ValueError:
        return True


@test("cut-chat", direct=True)
def _(t):
    choice = llama_openai().chat.completions.create(model=MODEL, messages=chat_messages(), tools=[WEATHER_CHAT],
                                                    temperature=0, max_tokens=CUT_TOKENS).choices[0]
    eq(choice.finish_reason, "length", "finish_reason")
    calls = choice.message.tool_calls or []
    eq([c.function.name for c in calls], [WEATHER], f"the cut message's calls ({short(choice.message.to_dict())})")
    check(not_json(calls[0].function.arguments), f"expected arguments cut short, got {calls[0].function.arguments!r}")
    t.note(f"arguments: {calls[0].function.arguments!r}")


@test("cut-responses", direct=True)
def _(t):
    response = llama_openai().responses.create(model=MODEL, input=responses_items(), tools=[WEATHER_RESPONSES],
                                               temperature=0, max_output_tokens=CUT_TOKENS).to_dict()
    calls = [item for item in response["output"] if item["type"] == "function_call"]
    eq([c["name"] for c in calls], [WEATHER], f"the cut response's calls ({short(response['output'])})")
    check(not_json(calls[0]["arguments"]), f"expected arguments cut short, got {calls[0]['arguments']!r}")
    eq(response["usage"]["output_tokens"], CUT_TOKENS, "usage.output_tokens (the limit)")
    # llama.cpp's quirk, which the gateway must see through: the cut response says `completed`.
    t.note(f"status {response['status']!r}, arguments {calls[0]['arguments']!r}")


@test("cut-messages", direct=True)
def _(t):
    system, messages = anthropic_messages()
    message = llama_anthropic().messages.create(model=MODEL, system=system, messages=messages, tools=[WEATHER_ANTHROPIC],
                                                max_tokens=CUT_TOKENS, extra_body={"temperature": 0})
    eq(message.stop_reason, "max_tokens", f"stop_reason (content {short(message.to_dict()['content'])})")
    t.note(f"content: {short(message.to_dict()['content'], 200)}")


@test("agents-sdk", direct=True, timeout=90)
def _(t):
    # The Agents SDK against llama.cpp's /v1/responses, get_weather a function tool run here.
    from agents import FunctionTool

    calls = []

    async def invoke(context, arguments):
        calls.append(json.loads(arguments))
        return LISBON_RESULT

    tool = FunctionTool(name=WEATHER, description=WEATHER_DESCRIPTION, params_json_schema=WEATHER_PARAMETERS_STRICT,
                        on_invoke_tool=invoke, strict_json_schema=True)
    result = agents_run(LLAMA + "/v1", [tool], responses_items(with_system=False), DIRECT_HEADERS)
    eq([c.get("city") for c in calls], [CITY], "the cities get_weather was called with")
    check_words(result.final_output, CITY, "the run's final_output")
    t.note(f"final_output: {result.final_output!r}")


# ---------------------------------------------------------------------------------------------


def main():
    global DIRECT
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tooldef", help="target/debug/tooldef")
    parser.add_argument("--mcp-server", help="target/debug/examples/mcp_server")
    parser.add_argument("--direct", action="store_true", help="straight to llama.cpp, no gateway")
    parser.add_argument("-k", action="append", default=[], help="run only the tests whose name contains this")
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="run only the test of this exact name")
    parser.add_argument("--repeat", type=int, default=1, help="run the selected tests N times (flakiness)")
    parser.add_argument("--list", action="store_true", help="list the tests and stop")
    options = parser.parse_args()
    DIRECT = options.direct
    selected = [entry for entry in TESTS[DIRECT] if (not options.k and not options.only)
                or any(k in entry[0] for k in options.k) or entry[0] in options.only]
    unknown = sorted(set(options.only) - {name for name, _, _ in TESTS[DIRECT]})
    if unknown:
        parser.error(f"--only: no test named {', '.join(unknown)}")
    if options.list:
        print("\n".join(name for name, _, _ in selected))
        return 0
    if not DIRECT:
        for key, path in (("tooldef", options.tooldef), ("mcp_server", options.mcp_server)):
            if not path or not os.access(path, os.X_OK):
                parser.error(f"--{key.replace('_', '-')}: not an executable: {path}")
            BIN[key] = os.path.abspath(path)
    if options.repeat > 1:
        selected = [(f"{name}#{i}", fn, timeout) for i in range(1, options.repeat + 1) for name, fn, timeout in selected]
    label = "real model (direct)" if DIRECT else "real model"
    with tempfile.TemporaryDirectory(prefix="tooldef-real-model-") as config_dir:
        def setup():
            started = time.monotonic()
            start_everything(config_dir)
            print(f"setup ({time.monotonic() - started:.1f} s): llama.cpp at {LLAMA}"
                  + "".join(f", gateway {gw.name} at {gw.url}" for gw in GATEWAYS.values()), flush=True)

        # The runner the gateway's other suites share: time limits, reports, everything stopped.
        return gt.run_tests(selected, label, setup, context=Ctx, stop=stop_everything)


if __name__ == "__main__":
    sys.exit(main())
