"""`tooldef gateway` end to end, driven by the official OpenAI and Anthropic Python SDKs.

usage: python gateway_test.py --tooldef BIN --upstream BIN --mcp-server BIN --everything BIN [-k TEXT]... [--list]

Every process is real: the scripted upstream (a server of OpenAI's Chat Completions and Responses
APIs and Anthropic's Messages API, replaying the script in the last user message and recording
what it receives), a second one that speaks Chat Completions only, the mcp_server example and
server-everything (over stdio, and over Streamable HTTP), and several gateways in front of them:
among them two that serve Responses and Messages clients by translating to Chat Completions (one
finds out by asking that its upstream speaks nothing else, one is told with `--upstream-api`).
Each test puts a unique marker in its user message and checks both what the client got and what
the upstream received (`GET /_log?marker=...`). Tests are isolated: each has its own marker and a
hard time limit, and a failure is reported without stopping the others. The last line is
`python gateway client: N passed, M failed`; the exit status is 1 when any test failed.
"""

import argparse
import asyncio
import functools
import inspect
import json
import os
import random
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field

import anthropic
import openai
from openai import AsyncOpenAI, OpenAI

try:  # the SDK's own HTTP library (httpx2 since openai 3), with httpx's interface
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx

CLIENT_KEY = "sk-test-client"
MODEL = "scripted-1"
SERVER_TIME = "2026-11-22T09:30:00Z"
EXAMPLE_TOOLS = {
    "get_server_time", "get_weather", "convert_currency", "search_flights", "book_hotel",
    "plan_itinerary", "set_reminder", "send_agent_message", "cancel_booking", "crash", "sleep",
}
LOOKUP_ORDER_PARAMETERS = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}, "verbose": {"type": "boolean"}},
    "required": ["order_id"],
}
KEY_ENV = "TOOLDEF_GATEWAY_TEST_KEY"
KEY = "gw-key-" + uuid.uuid4().hex

BIN = {}  # filled from the command line
PROCESSES = []  # every Proc started, stopped at the end
UPSTREAM = None  # http://127.0.0.1:PORT of the scripted upstream
UPSTREAM_CHAT = None  # the same, serving Chat Completions only (`--apis chat`)
GATEWAYS = {}  # name -> Gateway


# ---------------------------------------------------------------------------------------------
# checks


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def eq(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: expected {want!r}, got {got!r}")


def short(value, limit=600):
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


# ---------------------------------------------------------------------------------------------
# processes


def descendants(pid):
    """The pids of every process below `pid` (Linux /proc; empty elsewhere)."""
    children = {}
    try:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    except OSError:
        return []
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class Proc:
    """A child process whose stdout and stderr lines are read by threads and kept."""

    def __init__(self, name, argv, env=None):
        self.name = name
        self.argv = argv
        self.lines = []  # (stream, line)
        self.cond = threading.Condition()
        self.closed = 0
        self.popen = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            errors="replace",
            bufsize=1,
        )
        PROCESSES.append(self)
        for stream_name, stream in (("stdout", self.popen.stdout), ("stderr", self.popen.stderr)):
            threading.Thread(target=self._pump, args=(stream_name, stream), daemon=True).start()

    def _pump(self, stream_name, stream):
        for line in stream:
            with self.cond:
                self.lines.append((stream_name, line.rstrip("\n")))
                self.cond.notify_all()
        with self.cond:
            self.closed += 1
            self.cond.notify_all()

    def wait_for(self, pattern, timeout, stream=None):
        """The first match of `pattern` in a line of `stream` (either when None)."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        seen = 0
        with self.cond:
            while True:
                for stream_name, line in self.lines[seen:]:
                    if stream is None or stream_name == stream:
                        match = regex.search(line)
                        if match:
                            return match
                seen = len(self.lines)
                if self.closed == 2:
                    raise AssertionError(
                        f"{self.name} exited (status {self.popen.poll()}) before printing /{pattern}/; "
                        f"its output ends with:\n{self.tail()}"
                    )
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.name} did not print /{pattern}/ in {timeout} s; output:\n{self.tail()}")
                self.cond.wait(min(left, 0.5))

    def text(self, stream=None):
        with self.cond:
            return "\n".join(line for name, line in self.lines if stream is None or name == stream)

    def tail(self, n=30):
        with self.cond:
            return "\n".join(f"  {name}: {line}" for name, line in self.lines[-n:])

    def stop(self):
        below = descendants(self.popen.pid)
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(5)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)
        time.sleep(0.1)
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Gateway:
    def __init__(self, name, args, env_extra=None, upstream=None):
        self.name = name
        self.url = None
        self.error = None
        self.upstream = upstream or UPSTREAM  # the scripted upstream it is in front of
        self.wire = None  # "chat": it speaks Chat Completions to its upstream, whatever the client's API
        env = dict(os.environ)
        env.update(env_extra or {})
        argv = [BIN["tooldef"], "gateway", "--listen", "127.0.0.1:0", "--upstream", self.upstream + "/v1", *args]
        self.proc = Proc(f"gateway {name}", argv, env)

    def wait_ready(self, timeout):
        if self.url is None and self.error is None:
            try:
                match = self.proc.wait_for(r"tooldef gateway: listening on (http://\S+)", timeout, "stderr")
                self.url = match.group(1).rstrip("/")
            except AssertionError as error:
                self.error = str(error)
        if self.error is not None:
            raise AssertionError(f"gateway {self.name} did not start: {self.error}")
        return self

    def client(self, **kw):
        return OpenAI(base_url=self.url + "/v1", api_key=CLIENT_KEY, max_retries=0, timeout=60, **kw)

    def aclient(self, **kw):
        return AsyncOpenAI(base_url=self.url + "/v1", api_key=CLIENT_KEY, max_retries=0, timeout=90, **kw)

    def anthropic(self, **kw):
        """The Anthropic SDK's client: it appends `/v1/messages` itself, and sends the key in
        `x-api-key`."""
        return anthropic.Anthropic(base_url=self.url, api_key=CLIENT_KEY, max_retries=0, timeout=60, **kw)

    def tool_calls(self):
        """`tooldef_gateway_tool_calls_total` summed over its labels: the calls it ran so far."""
        response = self.get("/metrics")
        eq(response.status_code, 200, "GET /metrics status")
        total = 0.0
        for line in response.text.splitlines():
            if line.startswith("tooldef_gateway_tool_calls_total"):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def get(self, path, **kw):
        return httpx.get(self.url + path, timeout=30, **kw)

    def healthz(self):
        response = self.get("/healthz")
        eq(response.status_code, 200, "GET /healthz status")
        return response.json()

    def server(self, name):
        servers = {server.get("name"): server for server in self.healthz().get("servers", [])}
        check(name in servers, f"/healthz lists no server {name!r}: {short(servers)}")
        return servers[name]

    def tools(self, target):
        response = self.get("/v1/tools", params={"target": target})
        eq(response.status_code, 200, f"GET /v1/tools?target={target} status")
        return response.json()


def gateway(name):
    check(name in GATEWAYS, f"no gateway {name!r}")
    return GATEWAYS[name].wait_ready(60)


def mcp(name, *argv):
    return ["--mcp", f"{name}=" + " ".join(argv)]


# While this file exists, the `kill` gateway's example server takes 3 s to start again: a window in
# which the server is down for certain.
SLOW_RESTART = os.path.join(tempfile.mkdtemp(prefix="tooldef-kill-"), "slow")


def slow_restart_wrapper():
    path = os.path.join(os.path.dirname(SLOW_RESTART), "example.sh")
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\nif [ -e {shlex.quote(SLOW_RESTART)} ]; then sleep 3; fi\n"
                f"exec {shlex.quote(BIN['mcp_server'])} --test-tools\n")
    os.chmod(path, 0o755)
    return path


def start_everything():
    """Starts the upstream, server-everything over Streamable HTTP and every gateway."""
    global UPSTREAM, UPSTREAM_CHAT
    upstream = Proc("scripted-upstream", [BIN["upstream"], "--listen", "127.0.0.1:0"])
    chat_only = Proc("scripted-upstream --apis chat", [BIN["upstream"], "--listen", "127.0.0.1:0", "--apis", "chat"])
    web_port = free_port()
    web = Proc(
        "server-everything (streamableHttp)",
        [BIN["everything"], "streamableHttp"],
        dict(os.environ, PORT=str(web_port)),
    )
    UPSTREAM = upstream.wait_for(r"listening on (http://\S+)", 60, "stdout").group(1).rstrip("/")
    UPSTREAM_CHAT = chat_only.wait_for(r"listening on (http://\S+)", 60, "stdout").group(1).rstrip("/")
    example = mcp("example", BIN["mcp_server"], "--test-tools")
    everything = mcp("everything", BIN["everything"])
    # The most talkative log level, for the check that no secret is ever logged.
    GATEWAYS["main"] = Gateway("main", [*example, *everything], {"TOOLDEF_LOG": "debug"})
    GATEWAYS["limits"] = Gateway("limits", [*example, *everything, "--max-rounds", "3", "--tool-timeout", "1"])
    GATEWAYS["kill"] = Gateway("kill", [*mcp("example", slow_restart_wrapper()), *everything])
    GATEWAYS["inject"] = Gateway("inject", [*example, "--mode", "inject"])
    GATEWAYS["key"] = Gateway("key", [*example, "--key-env", KEY_ENV], {KEY_ENV: KEY, "TOOLDEF_LOG": "debug"})
    # 5 x github-mcp-server's 117 tools, the example server's 11 (pinned) and server-everything's.
    corpus = [arg for k in range(1, 6) for arg in mcp(f"gh{k}", BIN["corpus_server"], BIN["corpus"])]
    GATEWAYS["many"] = Gateway("many", [*corpus, *example, *everything, "--pin", "example"])
    # The same tools given as OpenAI's own mechanism gives them: a namespace per server, deferred
    # beside a client-executed tool_search the gateway answers (Responses), prefixes and the
    # gateway's search elsewhere.
    GATEWAYS["many-ns"] = Gateway("many-ns", [*corpus, *example, *everything, "--pin", "example",
                                              "--tool-grouping", "namespace", "--discovery", "provider"])
    # The same behind a Messages upstream for Chat and Responses clients: Anthropic's client-side
    # tool search, the search's answer translated from their APIs.
    GATEWAYS["many-anth"] = Gateway("many-anth", [*corpus, *example, *everything, "--pin", "example",
                                                  "--discovery", "provider", "--upstream-api", "messages"])
    GATEWAYS["grow"] = Gateway("grow", mcp("corpus", BIN["corpus_server"], BIN["corpus"], "--limit", "3", "--grow"))
    # The same, but its listings say they are fresh for 300 ms and it announces nothing.
    GATEWAYS["stale"] = Gateway("stale", mcp("corpus", BIN["corpus_server"], BIN["corpus"], "--limit", "3", "--grow",
                                             "--ttl-ms", "300"))
    # Responses and Messages clients translated to Chat Completions: in front of the Chat-only
    # upstream, which the gateway asks (its 404s say it has no /v1/responses nor /v1/messages),
    # and in front of the full upstream, told so with --upstream-api.
    GATEWAYS["chat-only"] = Gateway("chat-only", example, upstream=UPSTREAM_CHAT)
    GATEWAYS["as-chat"] = Gateway("as-chat", [*example, "--upstream-api", "chat"])
    GATEWAYS["chat-only"].wire = GATEWAYS["as-chat"].wire = "chat"
    web_error = None
    try:
        web.wait_for(r"listening on port", 60, "stderr")
    except AssertionError as error:
        web_error = str(error)
    GATEWAYS["web"] = Gateway("web", ["--mcp-url", f"web=http://127.0.0.1:{web_port}/mcp"])
    if web_error:
        GATEWAYS["web"].error = web_error
    start_settings_gateway()
    deadline = time.monotonic() + 90
    for gw in GATEWAYS.values():
        try:
            gw.wait_ready(max(1, deadline - time.monotonic()))
        except AssertionError as error:
            print(f"warning: {error}", flush=True)


# The token the example server wants over HTTP, which only the `settings` gateway's
# `headers = { Authorization = "Bearer ${WEB2_TOKEN}" }` gives it.
WEB2_TOKEN = "web2-" + uuid.uuid4().hex
WEB2_URL = None  # where that server listens


def start_settings_gateway():
    """The `settings` gateway: a gateway.toml with every per-server setting that issue 17 names."""
    web2 = Proc("mcp_server (HTTP, wants a token)", [BIN["mcp_server"], "--http", "127.0.0.1:0"],
                dict(os.environ, MCP_BEARER_TOKEN=WEB2_TOKEN))
    global WEB2_URL
    try:
        url = web2.wait_for(r"over Streamable HTTP at (http://\S+)", 60, "stderr").group(1)
        WEB2_URL = url
    except AssertionError as error:
        GATEWAYS["settings"] = Gateway("settings", [])
        GATEWAYS["settings"].error = str(error)
        return
    path = os.path.join(tempfile.mkdtemp(prefix="tooldef-gateway-"), "gateway.toml")
    with open(path, "w") as f:
        origin = "/".join(url.split("/")[:3])
        f.write(f"""upstream = "{UPSTREAM}/v1"
allowed_server_urls = ["{origin}"]

[servers.web2]
url = "{url}"
headers = {{ Authorization = "Bearer ${{WEB2_TOKEN}}" }}

[servers.slow]
command = {json.dumps(BIN["mcp_server"])}
args = ["--test-tools"]
max_concurrent_calls = 1
timeout_secs = 1
allow = ["sleep"]

[servers.asks]
command = {json.dumps(BIN["mcp_server"])}
allow = ["get_server_time"]
require_approval = "always"

[servers.broken]
command = {json.dumps(BIN["mcp_server"])}
env = {{ NEEDED = "${{TOOLDEF_TEST_UNSET_VARIABLE}}" }}
""")
    env = {"WEB2_TOKEN": WEB2_TOKEN, "TOOLDEF_LOG": "debug"}
    env.pop("TOOLDEF_TEST_UNSET_VARIABLE", None)
    GATEWAYS["settings"] = Gateway("settings", ["--config", path], env)


def stop_everything():
    for proc in reversed(PROCESSES):
        try:
            proc.stop()
        except Exception as error:  # noqa: BLE001 - keep stopping the others
            print(f"warning: stopping {proc.name}: {error}", flush=True)


# ---------------------------------------------------------------------------------------------
# the upstream's record


def upstream_log(marker, path=None, upstream=None):
    """What the upstream (the full one unless told) received with `marker` in the body."""
    response = httpx.get((upstream or UPSTREAM) + "/_log", params={"marker": marker}, timeout=30)
    eq(response.status_code, 200, "GET /_log status")
    entries = response.json()
    if path is not None:
        entries = [entry for entry in entries if entry.get("path", "").split("?")[0] == path]
    return entries


def wire(gw, api):
    """The API the gateway speaks to its upstream for a client of `api`: Chat Completions for
    the gateways that translate, the client's own otherwise."""
    return CHAT if gw.wire == "chat" else api


def upstream_entries(gw, api, marker):
    """What the gateway's upstream received with `marker`, on the path of the API it speaks."""
    return upstream_log(marker, wire(gw, api).path, gw.upstream)


def user_text(marker, turns):
    return f"Test {marker}.\nSCRIPT: {json.dumps(turns)}"


def content_text(content):
    """The text of a message content or a tool output: a string or a list of text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return json.dumps(content)


# ---------------------------------------------------------------------------------------------
# the two APIs, behind one interface


@dataclass
class Reply:
    id: str
    texts: list
    calls: list  # (id, name, arguments)
    finish: object
    usage: object
    headers: object
    events: list = field(default_factory=list)
    incomplete: object = None  # Responses: incomplete_details.reason
    extension: object = None  # Chat and Messages: the answer's `tooldef` member (a bound cut it short)
    content: list = field(default_factory=list)  # Messages: the content blocks, as dicts

    @property
    def text(self):
        return "\n\n".join(self.texts)


def check_calls_visible(api, calls, allowed, inject):
    """In execute mode no injected call reaches the client, only its own tools' calls."""
    if inject:
        return
    for _, name, _ in calls:
        check(name in allowed, f"the client got a call of {name!r}, not one of its tools {sorted(allowed)}")


class OpenAiApi:
    """What OpenAI's two APIs share: their SDK, strict tools, `tool_choice` strings."""

    sdk = openai
    strict = True  # the injected tools are strict: every parameter required, optional ones nullable

    def client(self, gw, **kw):
        return gw.client(**kw)

    @property
    def listing_target(self):
        return self.target

    def choice_wire(self, kind):
        """A `tool_choice` of `none`, `auto` or `required` as the API writes it."""
        return kind

    def call_args(self, raw):
        """A call's arguments as the client gets them, from the script's `arguments_raw`: the
        string itself."""
        return raw

    def weather_args(self, city, days=None):
        """example__get_weather's arguments as a model writes them for this API: a strict
        tool's optional parameters are there, null."""
        return {"city": city, "days": days, "units": None, "include_hourly": None}

    def bounds(self, **tooldef):
        """The gateway's extension member lowering its bounds, as the SDK sends it."""
        return {"extra_body": {"tooldef": tooldef}}


class ChatApi(OpenAiApi):
    name = "chat"
    target = "chat"
    path = "/v1/chat/completions"
    usage_keys = ("prompt_tokens", "completion_tokens", "total_tokens")
    finishes = {"stop": "stop", "calls": "tool_calls", "cut": "length"}

    def endpoint(self, client):
        return client.chat.completions

    def tool(self, name, description, parameters):
        return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}

    def def_name(self, d):
        return d.get("function", {}).get("name")

    def def_strict(self, d):
        return d.get("function", {}).get("strict")

    def def_parameters(self, d):
        return d.get("function", {}).get("parameters")

    def def_description(self, d):
        return d.get("function", {}).get("description")

    def named_choice(self, name):
        return {"type": "function", "function": {"name": name}}

    def start(self, marker, turns):
        return [{"role": "user", "content": user_text(marker, turns)}]

    def extend(self, conversation, reply, outputs):
        assistant = {
            "role": "assistant",
            "content": reply.text or None,
            "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
                for call_id, name, arguments in reply.calls
            ],
        }
        tools = [{"role": "tool", "tool_call_id": call_id, "content": text} for call_id, text in outputs.items()]
        return [*conversation, assistant, *tools]

    def args(self, conversation, stream, kw):
        args = {"model": MODEL, "messages": conversation, **kw}
        if stream:
            args["stream"] = True
        return args

    def reply(self, parsed, headers, stream, allowed, inject):
        if not stream:
            choice = parsed.choices[0]
            message = choice.message
            calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
            check_calls_visible(self, calls, allowed, inject)
            return Reply(
                parsed.id,
                [message.content] if message.content else [],
                calls,
                choice.finish_reason,
                parsed.usage.model_dump() if parsed.usage else None,
                headers,
                extension=(parsed.model_extra or {}).get("tooldef"),
            )
        chunks = parsed
        check(chunks, "the stream had no chunk")
        ids = {chunk.id for chunk in chunks}
        eq(len(ids), 1, f"number of distinct ids in the stream {sorted(ids)}")
        roles = [c for chunk in chunks for c in chunk.choices if c.delta and c.delta.role]
        eq(len(roles), 1, "number of chunks with a role delta")
        finishes = [c.finish_reason for chunk in chunks for c in chunk.choices if c.finish_reason]
        eq(len(finishes), 1, "number of chunks with a finish_reason")
        text = ""
        calls = {}
        for chunk in chunks:
            for c in chunk.choices:
                if c.delta is None:
                    continue
                text += c.delta.content or ""
                for delta in c.delta.tool_calls or []:
                    call = calls.setdefault(delta.index, {"id": None, "name": None, "arguments": ""})
                    if delta.id:
                        check(call["id"] in (None, delta.id), f"tool call {delta.index} changed its id")
                        call["id"] = delta.id
                    if delta.function and delta.function.name:
                        check(call["name"] in (None, delta.function.name), f"tool call {delta.index} changed its name")
                        call["name"] = delta.function.name
                    if delta.function and delta.function.arguments:
                        call["arguments"] += delta.function.arguments
        eq(sorted(calls), list(range(len(calls))), "the tool call indices of the stream")
        usages = [chunk.usage for chunk in chunks if chunk.usage is not None]
        check(len(usages) <= 1, f"{len(usages)} chunks carry usage")
        if usages:
            check(not chunks[-1].choices, "the usage chunk is not the last one or has choices")
        calls = [(calls[i]["id"], calls[i]["name"], calls[i]["arguments"]) for i in sorted(calls)]
        check_calls_visible(self, calls, allowed, inject)
        extensions = [(chunk.model_extra or {}).get("tooldef") for chunk in chunks]
        extensions = [e for e in extensions if e is not None]
        check(len(extensions) <= 1, f"{len(extensions)} chunks carry the `tooldef` member")
        return Reply(
            chunks[0].id,
            [text] if text else [],
            calls,
            finishes[0],
            usages[0].model_dump() if usages else None,
            headers,
            chunks,
            extension=extensions[0] if extensions else None,
        )

    # what the upstream received
    def req_tools(self, body):
        return body.get("tools") or []

    def req_items(self, body):
        return body.get("messages") or []

    def req_calls(self, body):
        return [
            (c.get("id"), c.get("function", {}).get("name"), c.get("function", {}).get("arguments"))
            for m in self.req_items(body)
            if m.get("role") == "assistant"
            for c in m.get("tool_calls") or []
        ]

    def req_results(self, body):
        return [(m.get("tool_call_id"), content_text(m.get("content"))) for m in self.req_items(body) if m.get("role") == "tool"]


class ResponsesApi(OpenAiApi):
    name = "responses"
    target = "responses"
    path = "/v1/responses"
    usage_keys = ("input_tokens", "output_tokens", "total_tokens")
    finishes = {"stop": "completed", "calls": "completed", "cut": "incomplete"}

    def bounds(self, **tooldef):
        # OpenAI's own `max_tool_calls`; the gateway's extension for the rest.
        bound = {}
        if "max_tool_calls" in tooldef:
            bound["max_tool_calls"] = tooldef.pop("max_tool_calls")
        if tooldef:
            bound["extra_body"] = {"tooldef": tooldef}
        return bound

    def endpoint(self, client):
        return client.responses

    def tool(self, name, description, parameters):
        return {"type": "function", "name": name, "description": description, "parameters": parameters, "strict": False}

    def def_name(self, d):
        return d.get("name")

    def def_strict(self, d):
        return d.get("strict")

    def def_parameters(self, d):
        return d.get("parameters")

    def def_description(self, d):
        return d.get("description")

    def named_choice(self, name):
        return {"type": "function", "name": name}

    def start(self, marker, turns):
        return [{"role": "user", "content": user_text(marker, turns)}]

    def call_items(self, reply):
        return [
            {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}
            for call_id, name, arguments in reply.calls
        ]

    def output_items(self, outputs):
        return [{"type": "function_call_output", "call_id": call_id, "output": text} for call_id, text in outputs.items()]

    def extend(self, conversation, reply, outputs):
        said = [{"role": "assistant", "content": text} for text in reply.texts]
        return [*conversation, *said, *self.call_items(reply), *self.output_items(outputs)]

    def args(self, conversation, stream, kw):
        args = {"model": MODEL, "input": conversation, **kw}
        if stream:
            args["stream"] = True
        return args

    def reply(self, parsed, headers, stream, allowed, inject):
        events = []
        if stream:
            events = parsed
            response = self.check_events(events, allowed, inject)
        else:
            response = parsed
        texts = [
            c.text
            for item in response.output
            if item.type == "message"
            for c in item.content
            if c.type == "output_text"
        ]
        calls = [(item.call_id, item.name, item.arguments) for item in response.output if item.type == "function_call"]
        check_calls_visible(self, calls, allowed, inject)
        return Reply(
            response.id,
            texts,
            calls,
            response.status,
            response.usage.model_dump() if response.usage else None,
            headers,
            events,
            incomplete=response.incomplete_details.reason if response.incomplete_details else None,
        )

    def check_events(self, events, allowed, inject):
        check(events, "the stream had no event")
        types = [e.type for e in events]
        eq(types.count("response.created"), 1, "number of response.created events")
        closing = [kind for kind in types if kind in ("response.completed", "response.incomplete")]
        eq(len(closing), 1, "number of closing events (response.completed or response.incomplete)")
        eq(types[0], "response.created", "the first event")
        eq(types[-1], closing[0], "the last event")
        created, completed = events[0], events[-1]
        eq(completed.response.id, created.response.id, "response.completed's id (vs response.created's)")
        numbers = [getattr(e, "sequence_number", None) for e in events]
        missing = [kind for kind, number in zip(types, numbers) if number is None]
        check(not missing, f"events without sequence_number: {missing}")
        check(all(a < b for a, b in zip(numbers, numbers[1:])), f"sequence numbers not increasing: {numbers}")
        output = completed.response.output
        added, deltas = {}, {}
        for e in events:
            index = getattr(e, "output_index", None)
            if e.type == "response.output_item.added":
                check(index not in added, f"output_index {index} added twice")
                added[index] = e.item
            elif index is not None:
                check(index in added, f"{e.type} for output_index {index} before its output_item.added")
                if e.type == "response.output_item.done":
                    eq(e.item.type, added[index].type, f"type of output item {index} when done")
                if e.type == "response.output_text.delta":
                    deltas[index] = deltas.get(index, "") + e.delta
        eq(sorted(added), list(range(len(output))), "the output indices streamed (vs the completed output)")
        for index, item in enumerate(output):
            eq(item.type, added[index].type, f"type of output item {index}")
            if getattr(item, "id", None) and getattr(added[index], "id", None):
                eq(item.id, added[index].id, f"id of output item {index}")
            if item.type == "message":
                text = "".join(c.text for c in item.content if c.type == "output_text")
                eq(deltas.get(index, ""), text, f"the text deltas of output item {index}")
        for item in added.values():
            if item.type == "function_call":
                check_calls_visible(self, [(item.call_id, item.name, item.arguments)], allowed, inject)
        return completed.response

    def req_tools(self, body):
        return body.get("tools") or []

    def req_items(self, body):
        items = body.get("input")
        if isinstance(items, str):
            return [{"role": "user", "content": items}]
        return items or []

    def req_calls(self, body):
        return [
            (i.get("call_id"), i.get("name"), i.get("arguments"))
            for i in self.req_items(body)
            if i.get("type") == "function_call"
        ]

    def req_results(self, body):
        return [
            (i.get("call_id"), content_text(i.get("output")))
            for i in self.req_items(body)
            if i.get("type") == "function_call_output"
        ]


class MessagesApi:
    """Anthropic's Messages API, through the official `anthropic` SDK: tools `{name,
    description, input_schema}`, calls as `tool_use` blocks whose `input` is an object, their
    results as `tool_result` blocks of the next user message, `stop_reason` for the finish."""

    name = "messages"
    target = "messages"  # GET /v1/tools?target=messages
    listing_target = "anthropic"  # what the listing calls it: the tools are rendered for Anthropic
    path = "/v1/messages"
    usage_keys = ("input_tokens", "output_tokens")
    finishes = {"stop": "end_turn", "calls": "tool_use", "cut": "max_tokens"}
    sdk = anthropic
    strict = False  # Anthropic's tools keep optional parameters optional
    max_tokens = 1024

    def client(self, gw, **kw):
        return gw.anthropic(**kw)

    def endpoint(self, client):
        return client.messages

    def tool(self, name, description, parameters):
        return {"name": name, "description": description, "input_schema": parameters}

    def def_name(self, d):
        return d.get("name")

    def def_strict(self, d):
        return d.get("strict")

    def def_parameters(self, d):
        return d.get("input_schema")

    def def_description(self, d):
        return d.get("description")

    def named_choice(self, name):
        return {"type": "tool", "name": name}

    def choice_wire(self, kind):
        return {"type": {"required": "any"}.get(kind, kind)}

    def call_args(self, raw):
        # A `tool_use` block's `input` is the object the arguments are.
        return json.loads(raw)

    def weather_args(self, city, days=None):
        # Not strict: an optional parameter the model does not give is left out.
        return {"city": city} if days is None else {"city": city, "days": days}

    def bounds(self, **tooldef):
        return {"extra_body": {"tooldef": tooldef}}

    def start(self, marker, turns):
        return [{"role": "user", "content": user_text(marker, turns)}]

    def extend(self, conversation, reply, outputs):
        assistant = {"role": "assistant", "content": reply.content}
        results = [{"type": "tool_result", "tool_use_id": call_id, "content": text} for call_id, text in outputs.items()]
        return [*conversation, assistant, {"role": "user", "content": results}]

    def args(self, conversation, stream, kw):
        args = {"model": MODEL, "messages": conversation, "max_tokens": self.max_tokens, **kw}
        if stream:
            args["stream"] = True
        return args

    def reply(self, parsed, headers, stream, allowed, inject):
        events = []
        if stream:
            events = parsed
            message = self.check_events(events)
        else:
            message = parsed.model_dump(exclude_none=True)
        content = message.get("content") or []
        texts = [block["text"] for block in content if block.get("type") == "text"]
        calls = [(block["id"], block["name"], block.get("input")) for block in content if block.get("type") == "tool_use"]
        check_calls_visible(self, calls, allowed, inject)
        usage = message.get("usage")
        return Reply(
            message.get("id"),
            texts,
            calls,
            message.get("stop_reason"),
            {key: usage.get(key) for key in self.usage_keys} if usage else None,
            headers,
            events,
            extension=message.get("tooldef"),
            content=content,
        )

    def check_events(self, events):
        """The stream is one well-formed message (as Anthropic's streaming docs have it: one
        `message_start`; content blocks numbered from 0 in order, each started, given its deltas
        and stopped before the next starts; one `message_delta` with the `stop_reason` after the
        last block; `message_stop` last) and the message it makes, built as the SDK's own
        accumulator builds it (the `message_delta`'s usage is cumulative and overrides)."""
        check(events, "the stream had no event")
        types = [e.type for e in events]
        eq(types.count("message_start"), 1, "number of message_start events")
        eq(types[0], "message_start", "the first event")
        eq(types.count("message_stop"), 1, "number of message_stop events")
        eq(types[-1], "message_stop", "the last event")
        eq(types.count("message_delta"), 1, "number of message_delta events")
        eq(types[-2], "message_delta", "the event before message_stop")
        message = events[0].message.model_dump(exclude_none=True)
        usage = dict(message.get("usage") or {})
        blocks, partial, open_index = [], {}, None
        for e in events[1:-2]:
            if e.type == "content_block_start":
                check(open_index is None, f"block {e.index} started while block {open_index} is open")
                eq(e.index, len(blocks), "the index of a started content block")
                blocks.append(e.content_block.model_dump(exclude_none=True))
                open_index = e.index
            elif e.type == "content_block_delta":
                eq(e.index, open_index, f"the index of a {e.delta.type}")
                block = blocks[e.index]
                if e.delta.type == "text_delta":
                    block["text"] = block.get("text", "") + e.delta.text
                elif e.delta.type == "input_json_delta":
                    partial[e.index] = partial.get(e.index, "") + e.delta.partial_json
            elif e.type == "content_block_stop":
                eq(e.index, open_index, "the index of a stopped content block")
                if partial.get(e.index, "").strip():
                    blocks[e.index]["input"] = json.loads(partial[e.index])
                open_index = None
            else:
                raise AssertionError(f"a {e.type} event among the content blocks")
        check(open_index is None, f"block {open_index} was never stopped")
        delta = events[-2]
        eq(delta.delta.stop_reason is not None, True, "message_delta carries a stop_reason")
        for key, value in delta.usage.model_dump(exclude_none=True).items():
            usage[key] = value
        message.update(content=blocks, stop_reason=delta.delta.stop_reason, usage=usage)
        extension = (delta.model_extra or {}).get("tooldef")
        if extension is not None:
            message["tooldef"] = extension
        return message

    # what the upstream received
    def req_tools(self, body):
        return body.get("tools") or []

    def req_items(self, body):
        return body.get("messages") or []

    def req_calls(self, body):
        return [
            (block.get("id"), block.get("name"), json.dumps(block.get("input")))
            for m in self.req_items(body)
            if m.get("role") == "assistant" and isinstance(m.get("content"), list)
            for block in m["content"]
            if block.get("type") == "tool_use"
        ]

    def req_results(self, body):
        return [
            (block.get("tool_use_id"), content_text(block.get("content")))
            for m in self.req_items(body)
            if m.get("role") == "user" and isinstance(m.get("content"), list)
            for block in m["content"]
            if block.get("type") == "tool_result"
        ]


CHAT = ChatApi()
RESPONSES = ResponsesApi()
MESSAGES = MessagesApi()
APIS = (CHAT, RESPONSES, MESSAGES)


def allowed_names(api, kw):
    return {api.def_name(d) for d in kw.get("tools") or []}


def create(api, client, conversation, stream=False, inject=False, **kw):
    """One request through the SDK (with_raw_response, for the headers), checked and normalised."""
    raw = api.endpoint(client).with_raw_response.create(**api.args(conversation, stream, kw))
    parsed = raw.parse()
    if stream:
        parsed = list(parsed)
    return api.reply(parsed, raw.headers, stream, allowed_names(api, kw), inject)


async def acreate(api, client, conversation, stream=False, inject=False, **kw):
    raw = await api.endpoint(client).with_raw_response.create(**api.args(conversation, stream, kw))
    parsed = raw.parse()
    if inspect.isawaitable(parsed):
        parsed = await parsed
    if stream:
        parsed = [item async for item in parsed]
    return api.reply(parsed, raw.headers, stream, allowed_names(api, kw), inject)


def lookup_order(api):
    return api.tool("lookup_order", "Look an order up by its id.", LOOKUP_ORDER_PARAMETERS)


def json_after(text, prefix):
    """The JSON value that follows `prefix` in `text`."""
    at = text.find(prefix)
    check(at >= 0, f"{prefix!r} not in the answer {short(text)}")
    try:
        value, _ = json.JSONDecoder().raw_decode(text[at + len(prefix):])
    except json.JSONDecodeError as error:
        raise AssertionError(f"no JSON after {prefix!r} in {short(text)}: {error}") from None
    return value


def rounds_header(reply, stream, want):
    if not stream:
        eq(reply.headers.get("x-tooldef-rounds"), str(want), "header x-tooldef-rounds")


def results_by_id(api, body):
    results = api.req_results(body)
    ids = [call_id for call_id, _ in results]
    eq(len(set(ids)), len(ids), "tool result ids in the upstream's request (duplicates)")
    return dict(results)


def replayed_usage(api, entries, upstream=None):
    """The usage the upstream gives each logged request, asked again directly, summed.

    The scripted upstream counts tokens from the body's length, so each request is replayed as
    compact JSON (how the gateway's serde_json writes it), streamed when it was streamed. A
    streamed Messages reply says its input tokens in `message_start` and its output tokens in
    `message_delta`."""
    total = dict.fromkeys(api.usage_keys, 0)
    for entry in entries:
        body = entry["body"]
        data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        headers = {"authorization": f"Bearer {CLIENT_KEY}", "content-type": "application/json"}
        usage = None
        with httpx.stream("POST", (upstream or UPSTREAM) + api.path, content=data, headers=headers, timeout=30) as response:
            eq(response.status_code, 200, "status of a logged request replayed to the upstream")
            if body.get("stream"):
                for _, event in sse(response):
                    if event == "[DONE]":
                        continue
                    event = json.loads(event)
                    if event.get("type") == "response.completed":
                        usage = event["response"].get("usage")
                    elif event.get("type") == "message_start":
                        usage = dict(event["message"].get("usage") or {})
                    elif event.get("type") == "message_delta":
                        usage = {**(usage or {}), **event.get("usage", {})}
                    elif event.get("usage"):
                        usage = event["usage"]
            else:
                response.read()
                usage = response.json().get("usage")
        check(usage, f"the upstream gave no usage for a replayed request: {short(body)}")
        for key in api.usage_keys:
            total[key] += usage.get(key, 0)
    return total


def check_usage(api, reply, entries):
    check(reply.usage is not None, "the answer has no usage")
    want = replayed_usage(api, entries)
    got = {key: reply.usage.get(key) for key in api.usage_keys}
    eq(got, want, f"usage (the sum over the {len(entries)} upstream requests)")


# ---------------------------------------------------------------------------------------------
# the test registry


TESTS = []  # (name, function, timeout seconds)


class Ctx:
    def __init__(self, name):
        self.tag = uuid.uuid4().hex[:10]
        self.marker = f"mk{self.tag}"
        self.name = name
        self.notes = []

    def note(self, text):
        """Printed under the test's result line."""
        self.notes.append(text)


def test(name, timeout=45):
    def register(fn):
        TESTS.append((name, fn, timeout))
        return fn

    return register


def every_api(name, timeout=45, streams=(False, True), apis=APIS):
    """Registers the scenario once per API (Chat Completions, Responses, Messages) and per
    streaming mode: `fn(api, stream, t)`."""

    def register(fn):
        for api in apis:
            for stream in streams:
                variant = f"{name}[{api.name}{'-stream' if stream else ''}]"
                TESTS.append((variant, functools.partial(fn, api, stream), timeout))
        return fn

    return register


# ---------------------------------------------------------------------------------------------
# 1. injected tools only


@every_api("injected_tools_only")
def _(api, stream, t):
    gw = gateway("main")
    ids = [f"call_w_{t.tag}", f"call_s_{t.tag}", f"call_a_{t.tag}"]
    weather_args = api.weather_args(f"Lisbon-{t.tag}")
    sum_args = {"a": 2, "b": 40}
    # A strict tool's optional parameter comes as null (restored to absent for the server).
    annotated_args = {"messageType": "success", "includeImage": None} if api.strict else {"messageType": "success"}
    turns = [
        {
            "calls": [
                {"name": "example__get_weather", "arguments": weather_args, "id": ids[0]},
                {"name": "everything__get-sum", "arguments": sum_args, "id": ids[1]},
                {"name": "everything__get-annotated-message", "arguments": annotated_args, "id": ids[2]},
            ]
        },
        {"content": "results: {tool_results}"},
    ]
    kw = {"tools": [lookup_order(api)]}
    if stream and api is CHAT:
        kw["stream_options"] = {"include_usage": True}
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream, **kw)

    eq(reply.calls, [], "tool calls the client got")
    if api is not RESPONSES:
        eq(reply.finish, api.finishes["stop"], "finish_reason / stop_reason")
    results = json_after(reply.text, "results: ")
    check(isinstance(results, list) and len(results) == 3, f"expected 3 tool results, got {short(results)}")
    joined = json.dumps(results)
    weather = next((r for r in results if f"Lisbon-{t.tag}" in r), None)
    check(weather is not None, f"no weather result for Lisbon-{t.tag} in {short(results)}")
    eq(len(json.loads(weather)["days"]), 3, "forecast days (the default, a strict null removed)")
    check("The sum of 2 and 40 is 42." in joined, f"no get-sum result in {short(results)}")
    check("Operation completed successfully" in joined, f"get-annotated-message failed (strict null not restored?): {short(results)}")
    rounds_header(reply, stream, 2)

    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 2, "requests the upstream received")
    first, second = entries[0]["body"], entries[1]["body"]
    tools = api.req_tools(first)
    names = [api.def_name(d) for d in tools]
    eq(names[0], "lookup_order", "the first tool of the upstream's request (the client's)")
    injected = gw.tools(api.target)["data"]
    eq(tools[1:], injected, "the injected tools of the upstream's request (vs /v1/tools)")
    weather_def = next(d for d in tools if api.def_name(d) == "example__get_weather")
    annotated_def = next(d for d in tools if api.def_name(d) == "everything__get-annotated-message")
    if api.strict:
        eq(api.def_strict(weather_def), True, "example__get_weather's strict")
        check("includeImage" in api.def_parameters(annotated_def)["required"],
              "get-annotated-message's includeImage not required under strict")
    else:
        eq(api.def_parameters(weather_def).get("required"), ["city"], "example__get_weather's required (optional ones left out)")
        check("includeImage" not in (api.def_parameters(annotated_def).get("required") or []),
              "get-annotated-message's includeImage required without strict")
    eq(api.req_calls(first), [], "calls in the first request")

    calls = api.req_calls(second)
    eq([c[0] for c in calls], ids, "call ids of the assistant turn in the second request")
    eq([c[1] for c in calls], ["example__get_weather", "everything__get-sum", "everything__get-annotated-message"], "call names")
    eq([json.loads(c[2]) for c in calls], [weather_args, sum_args, annotated_args], "call arguments (as the model sent them)")
    results = results_by_id(api, second)
    eq(sorted(results), sorted(ids), "tool result ids in the second request")
    check(f"Lisbon-{t.tag}" in results[ids[0]], f"weather result: {short(results[ids[0]])}")
    check("The sum of 2 and 40 is 42." in results[ids[1]], f"get-sum result: {short(results[ids[1]])}")
    check("Operation completed successfully" in results[ids[2]], f"get-annotated-message result: {short(results[ids[2]])}")
    check_usage(api, reply, entries)


@every_api("an_injected_image_reaches_the_model_as_each_api_takes_it")
def _(api, stream, t):
    # server-everything's get-tiny-image answers with text, a PNG and text again. The Responses
    # API takes the PNG (an `input_image` part of `function_call_output.output`), the Messages
    # API too (an `image` block of the `tool_result`); a Chat Completions tool message is text,
    # which says what the image was.
    gw = gateway("main")
    call_id = f"call_img_{t.tag}"
    turns = [
        {"calls": [{"name": "everything__get-tiny-image", "arguments": {}, "id": call_id}]},
        {"content": "seen"},
    ]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream)
    eq(reply.calls, [], "tool calls the client got")
    rounds_header(reply, stream, 2)
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 2, "requests the upstream received")
    second = entries[1]["body"]
    if api is RESPONSES:
        outputs = [
            i["output"] for i in api.req_items(second)
            if i.get("type") == "function_call_output" and i.get("call_id") == call_id
        ]
        eq(len(outputs), 1, "function_call_output items for the call")
        parts = outputs[0]
        check(isinstance(parts, list), f"the output is not a list of parts: {short(parts)}")
        kinds = [p.get("type") for p in parts]
        eq(kinds.count("input_image"), 1, f"input_image parts in {kinds}")
        check(kinds.count("input_text") >= 1, f"no input_text part in {kinds}")
        image = next(p for p in parts if p.get("type") == "input_image")
        check(image["image_url"].startswith("data:image/png;base64,iVBOR"),
              f"not a PNG data URL: {short(image['image_url'])}")
        # The openai SDK's own type for the item takes it.
        FunctionCallOutput = openai.types.responses.response_input_item_param.FunctionCallOutput
        item = next(i for i in api.req_items(second) if i.get("type") == "function_call_output")
        check(set(item) <= set(FunctionCallOutput.__annotations__), f"unknown keys in {sorted(item)}")
    elif api is MESSAGES:
        results = [
            block for m in api.req_items(second) if m.get("role") == "user" and isinstance(m.get("content"), list)
            for block in m["content"] if block.get("type") == "tool_result" and block.get("tool_use_id") == call_id
        ]
        eq(len(results), 1, "tool_result blocks for the call")
        blocks = results[0].get("content")
        check(isinstance(blocks, list), f"the tool_result's content is not a list of blocks: {short(blocks)}")
        kinds = [b.get("type") for b in blocks]
        eq(kinds.count("image"), 1, f"image blocks in {kinds}")
        check(kinds.count("text") >= 1, f"no text block in {kinds}")
        source = next(b for b in blocks if b.get("type") == "image")["source"]
        eq((source.get("type"), source.get("media_type")), ("base64", "image/png"), "the image's source")
        check(source.get("data", "").startswith("iVBOR"), f"not a PNG: {short(source)}")
        # The anthropic SDK's own type for the block takes it.
        ToolResultBlockParam = anthropic.types.ToolResultBlockParam
        check(set(results[0]) <= set(ToolResultBlockParam.__annotations__), f"unknown keys in {sorted(results[0])}")
    else:
        text = results_by_id(api, second)[call_id]
        check("image/png" in text, f"the tool message does not say there was an image: {short(text)}")


# ---------------------------------------------------------------------------------------------
# 2. client tools only


@every_api("client_tools_only")
def _(api, stream, t):
    gw = gateway("main")
    call_id = f"call_lo_{t.tag}"
    raw_args = '{"order_id": "A-%s",  "verbose": false}' % t.tag
    turns = [{"calls": [{"name": "lookup_order", "arguments_raw": raw_args, "id": call_id}]}]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream, tools=[lookup_order(api)])
    eq(reply.calls, [(call_id, "lookup_order", api.call_args(raw_args))], "the tool calls the client got")
    if api is not RESPONSES:
        eq(reply.finish, api.finishes["calls"], "finish_reason / stop_reason")
    rounds_header(reply, stream, 1)
    eq(reply.headers.get("x-tooldef-conflicts"), None, "header x-tooldef-conflicts without a conflict")
    eq(len(upstream_log(t.marker, api.path)), 1, "requests the upstream received")


# ---------------------------------------------------------------------------------------------
# 3. injected and client tools in one reply


def mixed(api, stream, t, previous, gw_name="main"):
    """A turn that calls an injected tool and one of the client's: the injected one runs, the
    client gets its own, and its follow-up (the conversation sent back, or on Responses only the
    output through `previous_response_id`) reaches the upstream with the injected call and its
    result put back. Over a gateway that translates, the upstream gets all that in its API."""
    gw = gateway(gw_name)
    spoken = wire(gw, api)
    w_id, lo_id = f"call_w_{t.tag}", f"call_lo_{t.tag}"
    raw_args = '{"order_id": "B-%s"}' % t.tag
    weather_args = spoken.weather_args(f"Porto-{t.tag}", days=2)
    turns = [
        {
            "calls": [
                {"name": "example__get_weather", "arguments": weather_args, "id": w_id},
                {"name": "lookup_order", "arguments_raw": raw_args, "id": lo_id},
            ]
        },
        {"content": "final: {tool_results}"},
    ]
    client = api.client(gw)
    tools = [lookup_order(api)]
    conversation = api.start(t.marker, turns)
    first = create(api, client, conversation, stream, tools=tools)
    eq(first.calls, [(lo_id, "lookup_order", api.call_args(raw_args))], "the tool calls the client got")
    if api is not RESPONSES:
        eq(first.finish, api.finishes["calls"], "finish_reason / stop_reason")
    eq(len(upstream_entries(gw, api, t.marker)), 1, "requests the upstream received after the first reply")

    output = f"order B-{t.tag} shipped ({t.marker})"
    if previous:
        reply = create(api, client, api.output_items({lo_id: output}), stream, tools=tools, previous_response_id=first.id)
    else:
        reply = create(api, client, api.extend(conversation, first, {lo_id: output}), stream, tools=tools)
    eq(reply.calls, [], "tool calls in the answer to the follow-up")
    results = json_after(reply.text, "final: ")
    check(isinstance(results, list) and len(results) == 2, f"expected 2 tool results, got {short(results)}")
    check(output in results, f"the client's tool result is not in {short(results)}")
    check(any(f"Porto-{t.tag}" in r for r in results), f"the weather result is not in {short(results)}")

    entries = upstream_entries(gw, api, t.marker)
    eq(len(entries), 2, "requests the upstream received")
    body = entries[1]["body"]
    if previous and spoken is api:
        check(body.get("previous_response_id"), "the follow-up reached the upstream without previous_response_id")
    else:
        # Sent back whole, or, over an upstream that keeps nothing, put together by the gateway
        # from the conversation it kept for the response's id.
        check("previous_response_id" not in body, "previous_response_id reached an upstream that speaks Chat Completions")
        calls = spoken.req_calls(body)
        eq([c[0] for c in calls], [w_id, lo_id], "call ids of the assistant turn the upstream got back")
        eq([c[1] for c in calls], ["example__get_weather", "lookup_order"], "call names the upstream got back")
        eq(json.loads(calls[0][2]), weather_args, "the injected call's arguments the upstream got back")
        eq(json.loads(calls[1][2]), json.loads(raw_args), "the client's call's arguments the upstream got back")
    results = results_by_id(spoken, body)
    eq(sorted(results), sorted([w_id, lo_id]), "tool result ids in the follow-up the upstream got")
    check(f"Porto-{t.tag}" in results[w_id], f"the injected call's result: {short(results[w_id])}")
    eq(results[lo_id], output, "the client's tool result")
    return first, reply


@every_api("mixed_reply")
def _(api, stream, t):
    mixed(api, stream, t, previous=False)


@test("mixed_reply[responses-previous_response_id]")
def _(t):
    mixed(RESPONSES, False, t, previous=True)


@test("mixed_reply[responses-previous_response_id-stream]")
def _(t):
    mixed(RESPONSES, True, t, previous=True)


# ---------------------------------------------------------------------------------------------
# 4. a client tool named like an injected one


@every_api("name_conflict")
def _(api, stream, t):
    gw = gateway("main")
    description = f"The client's own weather tool {t.tag}."
    own = api.tool("example__get_weather", description, {
        "type": "object", "properties": {"town": {"type": "string"}}, "required": ["town"],
    })
    echo = api.tool("everything__echo", "The client's echo.", {"type": "object", "properties": {}})
    call_id = f"call_c_{t.tag}"
    turns = [{"calls": [{"name": "example__get_weather", "arguments_raw": '{"town": "Braga"}', "id": call_id}]}]
    client = api.client(gw)
    reply = create(api, client, api.start(t.marker, turns), stream, tools=[own])
    eq(reply.headers.get("x-tooldef-conflicts"), "example__get_weather", "header x-tooldef-conflicts")
    two = create(api, client, api.start(t.marker + "b", [{"content": "hi"}]), stream, tools=[echo, own])
    conflicts = (two.headers.get("x-tooldef-conflicts") or "").split(",")
    eq(sorted(c.strip() for c in conflicts), ["everything__echo", "example__get_weather"], "header x-tooldef-conflicts with two")
    eq(reply.calls, [(call_id, "example__get_weather", api.call_args('{"town": "Braga"}'))], "the call the client got (its own tool)")
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 2, "requests the upstream received")
    tools = api.req_tools(entries[0]["body"])
    names = [api.def_name(d) for d in tools]
    eq(names.count("example__get_weather"), 1, "definitions of example__get_weather sent upstream")
    eq(api.def_description(tools[0]), description, "the definition sent upstream (the client's)")
    check("everything__echo" in names and "example__get_server_time" in names, f"the other tools were not injected: {names}")


# ---------------------------------------------------------------------------------------------
# 5. tool_choice naming an injected tool


@every_api("tool_choice_injected")
def _(api, stream, t):
    gw = gateway("main")
    turns = [
        {"calls": [{"name": "example__get_server_time", "arguments": {}, "id": f"call_t_{t.tag}"}]},
        {"content": "time: {tool_results}"},
    ]
    choice = api.named_choice("example__get_server_time")
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream, tool_choice=choice, tools=[lookup_order(api)])
    check(SERVER_TIME in reply.text, f"the answer lacks the server time: {short(reply.text)}")
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 2, "requests the upstream received")
    # A named choice goes as `required` with that tool alone, which every upstream takes
    # (llama.cpp's server refuses a named one); the next round is `auto` with every tool.
    eq(entries[0]["body"].get("tool_choice"), api.choice_wire("required"), "tool_choice of round 1")
    eq(upstream_tool_names(api, entries[0]), ["example__get_server_time"], "the tools of round 1")
    eq(entries[1]["body"].get("tool_choice"), api.choice_wire("auto"), "tool_choice of round 2")
    check({"lookup_order", "example__get_server_time"} <= set(upstream_tool_names(api, entries[1])),
          "the tools of round 2: every tool again")


# ---------------------------------------------------------------------------------------------
# 6. failing tools


@every_api("failing_tool")
def _(api, stream, t):
    gw = gateway("main")
    call_id = f"call_x_{t.tag}"
    turns = [
        {"calls": [{"name": "example__crash", "arguments": {"message": f"boom-{t.tag}"}, "id": call_id}]},
        {"content": "got: {tool_results}"},
    ]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream)
    results = json_after(reply.text, "got: ")
    eq(len(results), 1, "tool results")
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 2, "requests the upstream received")
    text = results_by_id(api, entries[1]["body"]).get(call_id)
    check(text is not None, "no result for the crashing call in round 2")
    check(re.search(r"error|fail|panic", text, re.I), f"the crash's result does not say it failed: {short(text)}")
    if api is MESSAGES:
        flags = [block.get("is_error") for m in api.req_items(entries[1]["body"]) if isinstance(m.get("content"), list)
                 for block in m["content"] if block.get("type") == "tool_result" and block.get("tool_use_id") == call_id]
        eq(flags, [True], "the crash's tool_result is_error")
    eq(gw.server("example").get("state"), "running", "the example server's state after the crash")
    again = create(api, api.client(gw), api.start(t.marker + "b", [
        {"calls": [{"name": "example__get_server_time", "arguments": {}}]}, {"content": "t: {tool_results}"},
    ]), stream)
    check(SERVER_TIME in again.text, f"the gateway stopped serving after a crash: {short(again.text)}")


@test("tool_timeout[chat]")
def _(t):
    # The gateway "limits" has --tool-timeout 1; the operation takes 3 s.
    gw = gateway("limits")
    call_id = f"call_l_{t.tag}"
    turns = [
        {"calls": [{"name": "everything__trigger-long-running-operation", "arguments": {"duration": 3, "steps": 3}, "id": call_id}]},
        {"content": "got: {tool_results}"},
    ]
    started = time.monotonic()
    reply = create(CHAT, gw.client(), CHAT.start(t.marker, turns))
    elapsed = time.monotonic() - started
    check(elapsed < 2.8, f"the call was not cut at the 1 s tool timeout: the answer took {elapsed:.1f} s")
    entries = upstream_log(t.marker, CHAT.path)
    eq(len(entries), 2, "requests the upstream received")
    text = results_by_id(CHAT, entries[1]["body"]).get(call_id, "")
    check(re.search(r"did not finish|timed? ?out", text, re.I), f"the result does not say the call timed out: {short(text)}")
    check("got: " in reply.text, f"answer: {short(reply.text)}")


@test("server_tool_time_limit[chat]")
def _(t):
    # The example server's own 1 s limit on `sleep`: an error result, not an HTTP error.
    gw = gateway("main")
    call_id = f"call_z_{t.tag}"
    turns = [
        {"calls": [{"name": "example__sleep", "arguments": {"millis": 3000}, "id": call_id}]},
        {"content": "got: {tool_results}"},
    ]
    create(CHAT, gw.client(), CHAT.start(t.marker, turns))
    entries = upstream_log(t.marker, CHAT.path)
    eq(len(entries), 2, "requests the upstream received")
    text = results_by_id(CHAT, entries[1]["body"]).get(call_id, "")
    check("slept" not in text and re.search(r"did not finish|time|error|fail", text, re.I), f"sleep's result: {short(text)}")


# ---------------------------------------------------------------------------------------------
# 7. an MCP server killed mid-conversation


@test("server_killed_and_restarted", timeout=60)
def _(t):
    """A server killed during a conversation: the next request succeeds without its tools (a
    header names it; a call the model still makes to one of them is answered "not running"),
    and once it is back, with them again."""
    gw = gateway("kill")  # the example server (restarting slowly while SLOW_RESTART exists) and everything
    before = gw.server("example")
    eq(before.get("state"), "running", "the example server's state")
    pid = before.get("pid")
    check(isinstance(pid, int) and pid > 0, f"no pid for the example server: {before}")
    restarts = before.get("restarts", 0)
    open(SLOW_RESTART, "w").close()
    try:
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while gw.server("example").get("state") == "running":
            check(time.monotonic() < deadline, "the killed server was still running after 10 s")
            time.sleep(0.02)
        call_id = f"call_k_{t.tag}"
        turns = [
            {"calls": [{"name": "example__get_server_time", "arguments": {}, "id": call_id}]},
            {"content": "got: {tool_results}"},
        ]
        reply = create(CHAT, gw.client(), CHAT.start(t.marker, turns))
        eq(reply.headers.get("x-tooldef-servers-down"), "example", "header x-tooldef-servers-down")
        entries = upstream_log(t.marker, CHAT.path)
        eq(len(entries), 2, "requests the upstream received")
        names = upstream_tool_names(CHAT, entries[0])
        check(names and not any(n.startswith("example__") for n in names), f"the down server's tools were sent: {names}")
        text = results_by_id(CHAT, entries[1]["body"]).get(call_id, "")
        check("not running" in text, f"the result of a call to the down server: {short(text)}")
        t.note("the call to the down server got: " + short(text, 200))
    finally:
        os.unlink(SLOW_RESTART)
    deadline = time.monotonic() + 20
    while True:
        now = gw.server("example")
        if now.get("state") == "running" and now.get("pid") not in (None, pid) and now.get("restarts", 0) >= restarts + 1:
            break
        check(time.monotonic() < deadline, f"the example server was not restarted in 20 s: {now}")
        time.sleep(0.1)
    check(pid not in descendants(gw.proc.popen.pid), "the killed server's process is still there")
    turns[0]["calls"][0]["id"] = f"call_k2_{t.tag}"
    again = create(CHAT, gw.client(), CHAT.start(t.marker + "b", turns))
    eq(again.headers.get("x-tooldef-servers-down"), None, "header x-tooldef-servers-down once it is back")
    check("example__get_server_time" in upstream_tool_names(CHAT, upstream_log(t.marker + "b", CHAT.path)[0]),
          "the server's tools are not sent again once it is back")
    check(SERVER_TIME in again.text, f"the restarted server's call: {short(again.text)}")


@test("tools_list_changed", timeout=60)
def _(t):
    """A server that announces tools/list_changed has its new tool in the next request."""
    gw = gateway("grow")  # github's first 3 tools; a call of one adds NAME_again
    before = [CHAT.def_name(d) for d in gw.tools(CHAT.target)["data"]]
    eq(before, ["corpus__actions_get", "corpus__actions_list", "corpus__actions_run_trigger"], "the tools at first")
    turns = [{"calls": [{"name": "corpus__actions_list", "arguments": {"owner": "o", "repo": "r"}}]}, {"content": "ok"}]
    create(CHAT, gw.client(), CHAT.start(t.marker, turns))
    deadline = time.monotonic() + 10
    while "corpus__actions_list_again" not in [CHAT.def_name(d) for d in gw.tools(CHAT.target)["data"]]:
        check(time.monotonic() < deadline, "the new tool was not listed within 10 s of tools/list_changed")
        time.sleep(0.05)
    create(CHAT, gw.client(), CHAT.start(t.marker + "b", [{"content": "ok"}]))
    names = upstream_tool_names(CHAT, upstream_log(t.marker + "b", CHAT.path)[0])
    check("corpus__actions_list_again" in names, f"the new tool is not in the next request: {names}")


STOPPED = "The gateway stopped before this answer was complete"


@test("tools_ttl_ms", timeout=60)
def _(t):
    """A server whose tools/list says `ttlMs` (MCP 2026-07-28) is listed again once it is stale:
    its new tool reaches the requests though the server announced nothing."""
    gw = gateway("stale")  # github's first 3 tools, fresh for 300 ms; a call of one adds NAME_again
    turns = [{"calls": [{"name": "corpus__actions_get", "arguments": {"owner": "o", "repo": "r"}}]}, {"content": "ok"}]
    create(CHAT, gw.client(), CHAT.start(t.marker, turns))
    started = time.monotonic()
    while "corpus__actions_get_again" not in [CHAT.def_name(d) for d in gw.tools(CHAT.target)["data"]]:
        check(time.monotonic() - started < 10, "the new tool was not listed within 10 s of its list going stale")
        time.sleep(0.05)
    t.note(f"listed again {time.monotonic() - started:.1f} s after the call")
    # The gateway logs "tools changed" when a server announces tools/list_changed.
    check("tools changed" not in gw.proc.text(), "the server announced its change after all")


@test("sigterm_during_50_streams", timeout=90)
def _(t):
    """SIGTERM while 50 conversations stream: each completes or ends with a well-formed error
    event; the gateway exits, and no process it started is left."""
    example = mcp("example", BIN["mcp_server"], "--test-tools")
    gw = Gateway("term", [*example, *mcp("everything", BIN["everything"]), "--shutdown-grace", "2"])
    gw.wait_ready(60)
    children = descendants(gw.proc.popen.pid)
    check(len(children) >= 2, f"the gateway's MCP servers are not running: {children}")
    words = " ".join(f"w{k}" for k in range(40))

    client = gw.aclient()

    async def one(k, api):
        # Even ones finish within the grace; odd ones stream for 8 s and are cut.
        delay = 10 if k % 2 == 0 else 200
        turns = [{"calls": [{"name": "example__get_server_time", "arguments": {}}]},
                 {"content": words, "stream_delay_ms": delay}]
        conversation = api.start(f"{t.marker}-{k}", turns)
        try:
            if api is CHAT:
                chunks = [c async for c in await client.chat.completions.create(
                    model=MODEL, messages=conversation, stream=True)]
                finished = any(choice.finish_reason for c in chunks for choice in c.choices)
                return "completed" if finished else f"error: no finish_reason in {len(chunks)} chunks"
            events = [e async for e in await client.responses.create(model=MODEL, input=conversation, stream=True)]
            last = events[-1] if events else None
            if last is not None and last.type == "response.completed":
                return "completed"
            if last is not None and last.type == "error" and STOPPED in last.message:
                numbers = [e.sequence_number for e in events]
                check(numbers == sorted(set(numbers)), f"sequence numbers of a cut stream: {numbers}")
                return "cut"
            return f"error: the stream ended with {last}"
        except openai.APIError as error:
            # The SDK raises the error event of a Chat Completions stream.
            if api is CHAT and STOPPED in str(error.message):
                return "cut"
            return f"error: {type(error).__name__}: {short(str(error), 200)} ({error.__cause__!r})"
        except Exception as error:  # noqa: BLE001 - anything else is the failure reported
            return f"error: {type(error).__name__}: {short(str(error), 200)} ({error.__cause__!r})"

    async def run():
        tasks = [asyncio.create_task(one(k, CHAT if k < 25 else RESPONSES)) for k in range(50)]
        # Every conversation in its second round (the tool ran) before the signal.
        deadline = time.monotonic() + 20
        while len(await asyncio.to_thread(upstream_log, t.marker)) < 100:
            check(time.monotonic() < deadline, "the 50 conversations did not reach their second round in 20 s")
            await asyncio.sleep(0.05)
        gw.proc.popen.send_signal(signal.SIGTERM)
        return await asyncio.gather(*tasks)

    outcomes = asyncio.run(run())
    try:
        status = gw.proc.popen.wait(15)
    except subprocess.TimeoutExpired:
        raise AssertionError("the gateway did not exit within 15 s of SIGTERM") from None
    bad = [o for o in outcomes if o not in ("completed", "cut")]
    check(not bad, f"{len(bad)} conversations ended otherwise: {bad[:3]}; the gateway's output ends with:\n{gw.proc.tail(15)}")
    t.note(f"exit status {status}; {outcomes.count('completed')} completed, {outcomes.count('cut')} cut at the deadline")
    check(outcomes.count("completed") >= 20, f"too few conversations finished within the grace: {outcomes.count('completed')}")
    time.sleep(0.2)
    left = [pid for pid in children if os.path.exists(f"/proc/{pid}") and open(f"/proc/{pid}/stat").read().split()[2] != "Z"]
    check(not left, f"processes the gateway started are left: {left}")


# ---------------------------------------------------------------------------------------------
# 8. 100 concurrent conversations


@test("concurrent_100", timeout=120)
def _(t):
    gw = gateway("main")

    async def one(client, i):
        api = CHAT if i % 2 == 0 else RESPONSES
        stream = i % 4 >= 2
        marker = f"{t.marker}n{i:03d}"
        days = i % 5 + 1
        turns = [
            {
                "calls": [
                    {"name": "example__get_weather", "arguments": {"city": f"City{i}", "days": days, "units": None, "include_hourly": None}},
                    {"name": "everything__get-sum", "arguments": {"a": i, "b": 1000}},
                ]
            },
            {"content": f"answer {i}: {{tool_results}}"},
        ]
        reply = await acreate(api, client, api.start(marker, turns), stream)
        results = json_after(reply.text, f"answer {i}: ")
        check(len(results) == 2, f"conversation {i}: {short(results)}")
        weather = json.loads(next(r for r in results if r.startswith("{")))
        eq((weather["city"], len(weather["days"])), (f"City{i}", days), f"conversation {i}'s forecast")
        check(any(f"is {i + 1000}." in r for r in results), f"conversation {i}'s sum: {short(results)}")
        return marker, api

    async def run():
        client = gw.aclient()
        outcomes = await asyncio.wait_for(
            asyncio.gather(*(one(client, i) for i in range(100)), return_exceptions=True), 100
        )
        await client.close()
        return outcomes

    outcomes = asyncio.run(run())
    failures = [f"{i}: {type(o).__name__}: {o}" for i, o in enumerate(outcomes) if isinstance(o, BaseException)]
    check(not failures, f"{len(failures)} of 100 conversations failed:\n  " + "\n  ".join(failures[:8]))
    for marker, api in outcomes:
        eq(len(upstream_log(marker, api.path)), 2, f"requests the upstream received for {marker}")


# ---------------------------------------------------------------------------------------------
# 9 and 10. requests the gateway refuses or leaves alone


@test("body_not_json")
def _(t):
    gw = gateway("main")
    for path in (CHAT.path, RESPONSES.path):
        response = httpx.post(
            gw.url + path,
            content=f"not json {t.marker}".encode(),
            headers={"content-type": "application/json", "authorization": f"Bearer {CLIENT_KEY}"},
            timeout=30,
        )
        eq(response.status_code, 400, f"POST {path} status")
        body = response.json()
        error = body.get("error") if isinstance(body, dict) else None
        check(isinstance(error, dict), f"POST {path}: not OpenAI's error shape: {short(response.text)}")
        eq(sorted(error), ["code", "message", "param", "type"], f"POST {path}: the error's fields")
        eq(error["type"], "invalid_request_error", f"POST {path}: error type")
        check(isinstance(error["message"], str) and error["message"], f"POST {path}: empty message")
    eq(upstream_log(t.marker), [], "requests the upstream received")


@every_api("tool_choice_none")
def _(api, stream, t):
    gw = gateway("main")
    turns = [{"calls": [{"name": "example__get_server_time", "arguments": {}}]}]
    client = api.client(gw)
    none = api.choice_wire("none")  # Anthropic's is {"type": "none"}
    reply = create(api, client, api.start(t.marker, turns), stream, tools=[lookup_order(api)], tool_choice=none)
    eq(reply.text, "tool_choice was none", "the answer")
    eq(reply.calls, [], "tool calls")
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 1, "requests the upstream received")
    eq([api.def_name(d) for d in api.req_tools(entries[0]["body"])], ["lookup_order"], "tools sent upstream")
    eq(entries[0]["body"].get("tool_choice"), none, "tool_choice sent upstream")


# Not on Messages: Anthropic's API takes any number of tools, so the gateway sends them all there
# (no 128 limit, no search tool) unless its `max_tools` says otherwise, which these gateways do not.
@every_api("too_many_tools", streams=(False,), apis=(CHAT, RESPONSES))
def _(api, stream, t):
    gw = gateway("main")
    injected = len(gw.tools(api.target)["data"])
    client = gw.client()
    params = {"type": "object", "properties": {}, "required": []}

    def tools(n):
        return [api.tool(f"client_tool_{k}", f"Tool {k}.", params) for k in range(n)]

    turns = [{"content": "fine"}]
    # The client's tools alone leave no room for the search tool: refused.
    try:
        create(api, client, api.start(t.marker + "a", turns), tools=tools(130))
        raise AssertionError(f"130 client tools + {injected} injected were accepted")
    except openai.BadRequestError as error:
        body = error.response.json()
        eq(body.get("error", {}).get("code"), "too_many_tools", "error code with 130 client tools")
        eq(body["error"].get("type"), "invalid_request_error", "error type")
        check("leave no room for the search" in body["error"]["message"], f"message: {body['error']['message']}")
    eq(upstream_log(t.marker + "a"), [], "requests the upstream received with 130 client tools")
    # One more than fits: the client's tools and the search tool go upstream, not the injected ones.
    n = 128 - injected + 1
    reply = create(api, client, api.start(t.marker + "b", turns), tools=tools(n))
    eq(reply.text, "fine", f"the answer with {n} client tools")
    names = upstream_tool_names(api, upstream_log(t.marker + "b", api.path)[0])
    eq(names, [*(f"client_tool_{k}" for k in range(n)), SEARCH_TOOL], "the tools the upstream got")
    reply = create(api, client, api.start(t.marker + "c", turns), tools=tools(128 - injected))
    eq(reply.text, "fine", f"the answer with exactly 128 tools in all ({128 - injected} client tools)")
    eq(len(upstream_tool_names(api, upstream_log(t.marker + "c", api.path)[0])), 128, "the tools the upstream got")


SEARCH_TOOL = "tooldef_search_tools"


# Not on Messages, for the same reason: all 600 tools go to an Anthropic upstream, no search
# (with `discovery = "provider"` they go deferred: `tool_search_over_600_tools_by_reference`).
@every_api("tool_search_over_600_tools", timeout=60, apis=(CHAT, RESPONSES))
def _(api, stream, t):
    search_over_600_tools(api, stream, t, gateway("many"))


# A Chat Completions upstream has neither namespaces nor deferral: the gateway told to use the
# provider's mechanisms keeps its prefixes and its own search there.
@every_api("tool_search_over_600_tools_chat_keeps_the_gateways_search", timeout=60, apis=(CHAT,))
def _(api, stream, t):
    search_over_600_tools(api, stream, t, gateway("many-ns"))


def search_over_600_tools(api, stream, t, gw):
    listed = [api.def_name(d) for d in gw.tools(api.target)["data"]]
    check(len(listed) >= 500, f"the gateway has {len(listed)} tools, not 500 or more")
    search_id, call_id = f"call_s_{t.tag}", f"call_c_{t.tag}"
    pr = {"owner": "octo", "repo": "hello", "title": t.marker, "head": "feature", "base": "main"}
    turns = [
        {"calls": [{"name": SEARCH_TOOL, "arguments": {"query": "create a pull request"}, "id": search_id}]},
        {"calls": [{"name": "gh2__create_pull_request", "arguments": pr, "id": call_id}]},
        {"content": "done: {tool_results}"},
    ]
    reply = create(api, gw.client(), api.start(t.marker, turns), stream)
    eq(reply.calls, [], "tool calls the client got")
    check(reply.text.startswith("done: "), f"the answer: {short(reply.text)}")
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 3, "requests the upstream received (search, call, answer)")
    sent = [upstream_tool_names(api, entry) for entry in entries]
    for k, names in enumerate(sent):
        check(len(names) <= 128, f"request {k + 1} carried {len(names)} tools")
        check(SEARCH_TOOL in names and "example__get_server_time" in names, f"request {k + 1} lacks the search or a pinned tool")
    check(not any(n.startswith("gh") for n in sent[0]), f"the first request carried found tools: {sent[0]}")
    found = results_by_id(api, entries[1]["body"]).get(search_id, "")
    check("- gh2__create_pull_request: " in found, f"the search's answer: {short(found)}")
    check("gh2__create_pull_request" in sent[1], f"the found tool is not in the next round's tools: {sent[1]}")
    result = results_by_id(api, entries[2]["body"]).get(call_id, "")
    check(result.startswith("create_pull_request called with"), f"the found tool's result: {short(result)}")
    check(t.marker in result, f"the call's arguments did not reach the server: {short(result)}")


def namespaces_of(body):
    """The namespace tools of a Responses request, by name."""
    return {tool["name"]: tool for tool in body.get("tools", []) if tool.get("type") == "namespace"}


# The provider's mechanism on a Responses upstream: one namespace per server, every tool but the
# pinned ones deferred, and a client-executed tool_search whose tool_search_call the gateway
# answers from its own index with a tool_search_output (both sent back in the next rounds), then
# a namespaced call, routed by namespace and name and sent back with its namespace. The scripted
# upstream refuses a request that breaks the documented rules (a call without its namespace, a
# search without its output, more than 128 loaded tools, every function deferred).
@every_api("tool_search_over_600_tools_provider_namespaces", timeout=60, apis=(RESPONSES,))
def _(api, stream, t):
    gw = gateway("many-ns")
    listed = gw.tools(api.target)["data"]
    check({"gh2", "example"} <= {tool.get("name") for tool in listed}, f"/v1/tools lists no namespaces: {short(listed)}")
    search_id, call_id = f"ts_{t.tag}", f"call_c_{t.tag}"
    pr = {"owner": "octo", "repo": "hello", "title": t.marker, "head": "feature", "base": "main"}
    turns = [
        {"calls": [{"tool_search": True, "arguments": {"query": "create a pull request"}, "id": search_id}]},
        {"calls": [{"namespace": "gh2", "name": "create_pull_request", "arguments": pr, "id": call_id}]},
        {"content": "done: {tool_results}"},
    ]
    reply = create(api, gw.client(), api.start(t.marker, turns), stream)
    eq(reply.calls, [], "tool calls the client got")
    check(reply.text.startswith("done: "), f"the answer: {short(reply.text)}")
    check("gh2.create_pull_request" in reply.text, f"the search's loaded tools are not among the results: {short(reply.text)}")
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 3, "requests the upstream received (search, call, answer)")
    bodies = [entry["body"] for entry in entries]
    for k, body in enumerate(bodies):
        tools = body["tools"]
        searches = [tool for tool in tools if tool.get("type") == "tool_search"]
        eq([s.get("execution") for s in searches], ["client"], f"request {k + 1}'s tool_search tools")
        check(SEARCH_TOOL not in upstream_tool_names(api, entries[k]), f"request {k + 1} carried the gateway's own search tool")
        namespaces = namespaces_of(body)
        check({"gh1", "gh2", "gh5", "example", "everything"} <= set(namespaces), f"request {k + 1}'s namespaces: {sorted(namespaces)}")
        check(all(m.get("defer_loading") is True for m in namespaces["gh2"]["tools"]), f"request {k + 1}: gh2's tools are not all deferred")
        check(all("defer_loading" not in m for m in namespaces["example"]["tools"]), f"request {k + 1}: the pinned server's tools are deferred")
        check(any(m["name"] == "create_pull_request" for m in namespaces["gh2"]["tools"]), f"request {k + 1}: gh2 lacks create_pull_request")
        check(len(tools) <= 128, f"request {k + 1} carried {len(tools)} tools")
    eq(bodies[1]["tools"], bodies[0]["tools"], "the tools of the second round (unchanged, for the prompt cache)")
    eq(bodies[2]["tools"], bodies[0]["tools"], "the tools of the third round")
    items = {item.get("type"): item for item in bodies[1]["input"] if item.get("type") in ("tool_search_call", "tool_search_output")}
    eq(items.get("tool_search_call", {}).get("call_id"), search_id, "the tool_search_call sent back")
    output = items.get("tool_search_output", {})
    eq(output.get("call_id"), search_id, "the tool_search_output's call_id")
    loaded = {tool["name"]: [m["name"] for m in tool.get("tools", [])] for tool in output.get("tools", []) if tool.get("type") == "namespace"}
    check("create_pull_request" in loaded.get("gh2", []), f"the search's tool_search_output: {short(output)}")
    check(all("defer_loading" not in m for tool in output.get("tools", []) for m in tool.get("tools", [])), "a loaded tool is deferred")
    calls = [item for item in bodies[2]["input"] if item.get("type") == "function_call"]
    eq([(c.get("namespace"), c.get("name"), c.get("call_id")) for c in calls], [("gh2", "create_pull_request", call_id)],
       "the function call sent back (with its namespace)")
    check(any(item.get("type") == "tool_search_output" for item in bodies[2]["input"]), "the third round lacks the tool_search_output")
    result = results_by_id(api, bodies[2]).get(call_id, "")
    check(result.startswith("create_pull_request called with"), f"the found tool's result: {short(result)}")
    check(t.marker in result, f"the call's arguments did not reach the server: {short(result)}")


# Anthropic's client-side tool search on a Messages upstream (`discovery = "provider"`): every
# tool but the pinned ones deferred, the gateway's search tool loaded and last, its tool_use
# answered with a tool_result of `tool_reference` blocks (which load the tools found), then a call
# of a found tool. The scripted upstream refuses a request that calls a deferred tool no
# `tool_reference` loaded, a reference to a tool not deferred, and a request whose tools are all
# deferred. A Messages client is served in its own API; Chat and Responses clients are translated
# (the search's answer, text in their APIs, gets its references back on the way up).
@every_api("tool_search_over_600_tools_by_reference", timeout=60, apis=(MESSAGES,))
def _(api, stream, t):
    search_over_600_tools_by_reference(api, stream, t, gateway("many-ns"))


@every_api("tool_search_over_600_tools_by_reference_translated", timeout=60, apis=(CHAT, RESPONSES))
def _(api, stream, t):
    search_over_600_tools_by_reference(api, stream, t, gateway("many-anth"))


def search_over_600_tools_by_reference(api, stream, t, gw):
    search_id, call_id = f"toolu_s_{t.tag}", f"toolu_c_{t.tag}"
    pr = {"owner": "octo", "repo": "hello", "title": t.marker, "head": "feature", "base": "main"}
    turns = [
        {"calls": [{"name": SEARCH_TOOL, "arguments": {"query": "create a pull request"}, "id": search_id}]},
        {"calls": [{"name": "gh2__create_pull_request", "arguments": pr, "id": call_id}]},
        {"content": "done: {tool_results}"},
    ]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream)
    eq(reply.calls, [], "tool calls the client got")
    check(reply.text.startswith("done: "), f"the answer: {short(reply.text)}")
    check("gh2__create_pull_request" in reply.text, f"the search's references are not among the results: {short(reply.text)}")
    entries = upstream_log(t.marker, MESSAGES.path)
    eq(len(entries), 3, "requests the upstream received (search, call, answer)")
    bodies = [entry["body"] for entry in entries]
    for k, body in enumerate(bodies):
        tools = {tool["name"]: tool for tool in body["tools"]}
        check(len(tools) >= 500, f"request {k + 1} carried {len(tools)} tools, not every one")
        eq(body["tools"][-1].get("name"), SEARCH_TOOL, f"request {k + 1}'s last tool")
        check("defer_loading" not in tools[SEARCH_TOOL], f"request {k + 1}: the search tool is deferred")
        gh = [tool for name, tool in tools.items() if name.startswith("gh")]
        check(len(gh) >= 500 and all(tool.get("defer_loading") is True for tool in gh), f"request {k + 1}: a server's tool is not deferred")
        pinned = [tool for name, tool in tools.items() if name.startswith("example__")]
        check(pinned and all("defer_loading" not in tool for tool in pinned), f"request {k + 1}: the pinned tools are deferred or absent")
    eq(bodies[1]["tools"], bodies[0]["tools"], "the tools of the second round (unchanged, for the prompt cache)")
    eq(bodies[2]["tools"], bodies[0]["tools"], "the tools of the third round")
    for k in (1, 2):
        found = [block for m in bodies[k]["messages"] if m.get("role") == "user" and isinstance(m.get("content"), list)
                 for block in m["content"] if block.get("type") == "tool_result" and block.get("tool_use_id") == search_id]
        eq(len(found), 1, f"request {k + 1}'s result of the search")
        content = found[0].get("content")
        check(isinstance(content, list) and content and all(b.get("type") == "tool_reference" for b in content),
              f"request {k + 1}: the search's result is not tool_reference blocks: {short(content)}")
        check({"type": "tool_reference", "tool_name": "gh2__create_pull_request"} in content,
              f"request {k + 1}: the search's result does not load gh2__create_pull_request: {short(content)}")
    result = results_by_id(MESSAGES, bodies[2]).get(call_id, "")
    check(result.startswith("create_pull_request called with"), f"the found tool's result: {short(result)}")
    check(t.marker in result, f"the call's arguments did not reach the server: {short(result)}")


# ---------------------------------------------------------------------------------------------
# 11. upstream errors


def error_body(api, status, message, kind):
    """An error body in `api`'s shape: what a provider of that API answers."""
    if api is MESSAGES:
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "param": None, "code": "rate_limit_exceeded" if status == 429 else None}}


# A provider's kind of error for each status, in each API's words (Anthropic's from its docs).
ERROR_KINDS = {
    429: {"openai": "requests", "anthropic": "rate_limit_error"},
    503: {"openai": "server_error", "anthropic": "api_error"},
}


def error_as_client_gets_it(api, spoken, status, message):
    """The upstream's error (in `spoken`'s shape) as the client of `api` must get it: as it came
    when the gateway speaks the client's API; otherwise in the client's API's shape, the kind
    its status has there."""
    kinds = ERROR_KINDS[status]
    sent = error_body(spoken, status, message, kinds["anthropic" if spoken is MESSAGES else "openai"])
    if spoken is api:
        return sent, sent
    if api is MESSAGES:
        return sent, error_body(MESSAGES, status, message, kinds["anthropic"])
    return sent, sent  # Chat Completions' and Responses' errors have one shape


def upstream_error_round_1(api, stream, t, gw_name):
    """The upstream refuses the first round: the client gets the status and the body in its API's
    shape (a stream too: its first round is asked before the answer starts), which its SDK
    raises as the status's exception."""
    gw = gateway(gw_name)
    spoken = wire(gw, api)
    sent, want = error_as_client_gets_it(api, spoken, 429, f"Rate limit reached {t.tag}")
    turns = [{"error": {"status": 429, "body": sent}}]
    try:
        create(api, api.client(gw), api.start(t.marker, turns), stream)
        raise AssertionError("no error raised")
    except api.sdk.RateLimitError as error:
        eq(error.status_code, 429, "status")
        eq(error.response.json(), want, "the error body")
    eq(len(upstream_entries(gw, api, t.marker)), 1, "requests the upstream received")


def upstream_error_round_2(api, stream, t, gw_name):
    """The upstream refuses the second round: a whole answer is that status and body in the
    client's API's shape; a stream, already answered 200, ends with its API's error event, which
    says the round and the status."""
    gw = gateway(gw_name)
    spoken = wire(gw, api)
    message = f"Overloaded {t.tag}"
    sent, want = error_as_client_gets_it(api, spoken, 503, message)
    turns = [{"calls": [{"name": "example__get_server_time", "arguments": {}}]}, {"error": {"status": 503, "body": sent}}]
    conversation = api.start(t.marker, turns)
    said = "The upstream answered round 2 with 503"
    if not stream:
        try:
            create(api, api.client(gw), conversation)
            raise AssertionError("no error raised")
        except api.sdk.APIStatusError as error:
            eq(error.status_code, 503, "status")
            eq(error.response.json(), want, "the error body")
    elif api is RESPONSES:
        events = list(api.client(gw).responses.create(**api.args(conversation, True, {})))
        types = [e.type for e in events]
        eq((types[0], types[-1]), ("response.created", "error"), "the first and last events")
        check("response.completed" not in types, "a response.completed in a stream that failed")
        last = events[-1]
        check(said in last.message and message in last.message, f"the error event's message: {last.message!r}")
    else:
        try:
            list(api.endpoint(api.client(gw)).create(**api.args(conversation, True, {})))
            raise AssertionError("the stream ended without an error")
        except api.sdk.APIStatusError as error:
            eq(error.status_code, 200, "status (the stream had started)")
            body = error.body if api is MESSAGES else {"error": error.body}
            detail = body.get("error") or {}
            check(said in detail.get("message", "") and message in detail.get("message", ""), f"the error: {short(body)}")
            if api is MESSAGES:
                eq(body.get("type"), "error", "the error event's type")
        except openai.APIError as error:  # Chat Completions: the SDK raises the error chunk
            check(api is CHAT, f"{type(error).__name__} on {api.name}: {error}")
            check(said in error.message and message in error.message, f"the error chunk's message: {error.message!r}")
    eq(len(upstream_entries(gw, api, t.marker)), 2, "requests the upstream received")


@every_api("upstream_error")
def _(api, stream, t):
    upstream_error_round_1(api, stream, t, "main")


@every_api("upstream_error_in_round_2")
def _(api, stream, t):
    upstream_error_round_2(api, stream, t, "main")


# ---------------------------------------------------------------------------------------------
# 12. max rounds


def max_rounds(api, stream, t, gw_name, bound):
    gw = gateway(gw_name)
    spoken = wire(gw, api)
    turns = [{"content": f"round {k}", "calls": [{"name": "example__get_server_time", "arguments": {}}]} for k in range(6)]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream, **bound)
    eq(reply.calls, [], "tool calls the client got")
    eq(reply.text, "round 0\n\nround 1\n\ntool_choice was none", "the answer (the rounds' texts joined)")
    if api is RESPONSES:
        eq(reply.texts, ["round 0", "round 1", "tool_choice was none"], "the message items")
        eq((reply.finish, reply.incomplete), ("incomplete", "max_rounds"), "the response's status and incomplete_details.reason")
    else:
        # Chat Completions and Messages have no such status: the body says it (a stream in its
        # closing chunk or message_delta), and a whole answer's header.
        eq(reply.extension, {"incomplete": {"reason": "max_rounds"}, "rounds": 3}, "the answer's `tooldef` member")
        if not stream:
            eq(reply.headers.get("x-tooldef-incomplete"), "max_rounds", "header x-tooldef-incomplete")
    if api is MESSAGES:
        eq(reply.texts, ["round 0", "round 1", "tool_choice was none"], "the text blocks")
        eq(reply.finish, "end_turn", "stop_reason")
    rounds_header(reply, stream, 3)
    entries = upstream_entries(gw, api, t.marker)
    eq(len(entries), 3, "requests the upstream received")
    none = spoken.choice_wire("none")
    eq([e["body"].get("tool_choice") == none for e in entries], [False, False, True], "which rounds had tool_choice none")
    check(all("tooldef" not in e["body"] for e in entries), "the gateway's extension member reached the upstream")
    return reply, entries


@every_api("max_rounds")
def _(api, stream, t):
    max_rounds(api, stream, t, "limits", {})  # --max-rounds 3


@every_api("max_tool_calls")
def _(api, stream, t):
    gw = gateway("limits")  # --max-rounds 3, no bound on tool calls
    ids = [f"call_a_{t.tag}", f"call_b_{t.tag}"]
    turns = [
        {"content": "two calls", "calls": [{"name": "example__get_server_time", "arguments": {}, "id": i} for i in ids]},
        {"content": "never said: round 2 is the last"},
    ]
    # Responses has OpenAI's own `max_tool_calls`; Chat Completions and Messages take the gateway's extension.
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream, **api.bounds(max_tool_calls=1))
    eq(reply.calls, [], "tool calls the client got")
    eq(reply.text, "two calls\n\ntool_choice was none", "the answer")
    if api is RESPONSES:
        eq((reply.finish, reply.incomplete), ("incomplete", "max_tool_calls"), "the response's status and incomplete_details.reason")
    else:
        eq(reply.extension, {"incomplete": {"reason": "max_tool_calls"}, "rounds": 2}, "the answer's `tooldef` member")
        if not stream:
            eq(reply.headers.get("x-tooldef-incomplete"), "max_tool_calls", "header x-tooldef-incomplete")
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 2, "requests the upstream received")
    eq([e["body"].get("tool_choice") == api.choice_wire("none") for e in entries], [False, True], "which rounds had tool_choice none")
    check("tooldef" not in entries[0]["body"], "the gateway's extension member reached the upstream")
    if api is RESPONSES:
        eq(entries[0]["body"].get("max_tool_calls"), 1, "OpenAI's max_tool_calls, passed on")
    results = results_by_id(api, entries[1]["body"])
    check(not results.get(ids[0], "").startswith("Not run"), f"the first call did not run: {short(results)}")
    check(results.get(ids[1], "").startswith("Not run: this request may run at most 1 tool calls"),
          f"the second call's result: {short(results)}")


@test("bounds_above_the_gateways_refused")
def _(t):
    gw = gateway("limits")  # --max-rounds 3
    for extension, words in (({"max_rounds": 50}, "above this gateway's `max_rounds` of 3"),
                             ({"max_rounds": "4"}, "must be an integer of at least 2"),
                             ({"rounds": 2}, "`tooldef.rounds` is not a setting")):
        try:
            create(CHAT, gw.client(), CHAT.start(t.marker, [{"content": "hi"}]), extra_body={"tooldef": extension})
            raise AssertionError(f"{extension} was accepted")
        except openai.BadRequestError as error:
            eq(error.status_code, 400, "status")
            check(words in error.message, f"the message for {extension}: {error.message}")
    eq(len(upstream_log(t.marker, CHAT.path)), 0, "requests the upstream received")


@test("per_server_settings")
def _(t):
    gw = gateway("settings")
    # `headers` with a `${VAR}`: the server that wants the token is up, its tools injected.
    web2 = gw.server("web2")
    eq((web2.get("transport"), web2.get("state")), ("http", "running"), f"web2 (last error {web2.get('last_error')!r})")
    names = [CHAT.def_name(d) for d in gw.tools(CHAT.target)["data"]]
    check("web2__get_server_time" in names, f"web2's tools not injected: {names}")
    eq([n for n in names if n.startswith("slow__")], ["slow__sleep"], "slow's tools (allow = [\"sleep\"])")
    # `env` with a `${VAR}` that is not set: that server is down and says why.
    broken = gw.server("broken")
    eq(broken.get("state"), "down", "the state of the server whose env needs an unset variable")
    check("TOOLDEF_TEST_UNSET_VARIABLE" in (broken.get("last_error") or ""), f"broken's last error: {broken.get('last_error')!r}")
    # `max_concurrent_calls = 1` and `timeout_secs = 1`: of two 600 ms calls in one turn, one
    # runs, the other waits 600 ms for its turn and then cannot finish within the second (run
    # side by side, both would have finished).
    ids = [f"call_s1_{t.tag}", f"call_s2_{t.tag}"]
    turns = [
        {"calls": [{"name": "slow__sleep", "arguments": {"millis": 600}, "id": i} for i in ids]},
        {"content": "done"},
    ]
    reply = create(CHAT, gw.client(), CHAT.start(t.marker, turns))
    eq(reply.text, "done", "the answer")
    entries = upstream_log(t.marker, CHAT.path)
    eq(len(entries), 2, "requests the upstream received")
    results = sorted(results_by_id(CHAT, entries[1]["body"]).values())
    eq(len(results), 2, "results")
    eq(results[1], "slept 600 ms", "the call that had its turn")
    eq(results[0], "`slow__sleep` did not finish within 1 s and was abandoned.", "the call that waited")
    # And through the server reached with the header.
    turns = [{"calls": [{"name": "web2__get_server_time", "arguments": {}, "id": f"call_w_{t.tag}"}]}, {"content": "ok"}]
    create(CHAT, gw.client(), CHAT.start(t.marker + "-web2", turns))
    entries = upstream_log(t.marker + "-web2", CHAT.path)
    result = results_by_id(CHAT, entries[-1]["body"]).get(f"call_w_{t.tag}", "")
    check(result and "not running" not in result, f"web2__get_server_time's result: {result!r}")
    check(WEB2_TOKEN not in gw.proc.text(), "the token of the header is in the gateway's log")
    # `require_approval = "always"`: its calls go back to the client, unrun (Chat has no approval
    # items); a request's `mcp` tool may say otherwise.
    call_id = f"call_q_{t.tag}"
    turns = [{"calls": [{"name": "asks__get_server_time", "arguments": {}, "id": call_id}]}, {"content": "ran"}]
    reply = create(CHAT, gw.client(), CHAT.start(t.marker + "-asks", turns), inject=True)
    eq([(i, n) for i, n, _ in reply.calls], [(call_id, "asks__get_server_time")], "the call the client got")
    mcp = [{"type": "mcp", "server_label": "asks", "require_approval": "never"}]
    reply = create(CHAT, gw.client(), CHAT.start(t.marker + "-asked", turns), tools=mcp)
    eq((reply.calls, reply.text), ([], "ran"), "with require_approval never: the calls and the answer")


# ---------------------------------------------------------------------------------------------
# 12b. OpenAI's `mcp` tool entries on Chat Completions: servers and tools chosen per request


def upstream_tool_names(api, entry):
    return [api.def_name(d) for d in api.req_tools(entry["body"])]


@test("mcp_entries_choose_servers_and_tools[chat]")
def _(t):
    gw = gateway("main")  # example and everything
    call_id = f"call_m_{t.tag}"
    turns = [
        {"calls": [{"name": "example__get_server_time", "arguments": {}, "id": call_id}]},
        {"content": "time: {tool_results}"},
    ]
    mcp = [{"type": "mcp", "server_label": "example", "allowed_tools": ["get_server_time", "sleep"], "require_approval": "never"}]
    reply = create(CHAT, gw.client(), CHAT.start(t.marker, turns), tools=[*mcp, lookup_order(CHAT)])
    eq(reply.calls, [], "tool calls the client got")
    check(reply.text.startswith("time: "), f"the answer: {short(reply.text)}")
    entries = upstream_log(t.marker, CHAT.path)
    eq(len(entries), 2, "requests the upstream received")
    for entry in entries:
        eq(upstream_tool_names(CHAT, entry), ["lookup_order", "example__get_server_time", "example__sleep"],
           "the tools the upstream got (the client's, then the chosen ones; no `mcp` entry)")
    check(not results_by_id(CHAT, entries[1]["body"]).get(call_id, "").startswith("There is no tool"), "the call ran")


@test("mcp_entries_read_only[chat]")
def _(t):
    gw = gateway("main")
    mcp = [{"type": "mcp", "server_label": "example", "allowed_tools": {"read_only": True}}]
    create(CHAT, gw.client(), CHAT.start(t.marker, [{"content": "hi"}]), tools=mcp)
    names = upstream_tool_names(CHAT, upstream_log(t.marker, CHAT.path)[0])
    check("example__sleep" in names, f"sleep (read_only) not offered: {names}")
    check("example__crash" not in names, f"crash (not read_only) offered: {names}")
    check(all(n.startswith("example__") for n in names), f"another server's tools offered: {names}")
    listed = {CHAT.def_name(d) for d in gw.tools(CHAT.target)["data"]}
    check(set(names) < listed, f"not a part of the injected tools: {names}")


@test("mcp_entries_require_approval[chat]")
def _(t):
    gw = gateway("main")
    call_id = f"call_a_{t.tag}"
    turns = [{"content": "asking", "calls": [{"name": "example__get_server_time", "arguments": {}, "id": call_id}]}]
    mcp = [{"type": "mcp", "server_label": "example", "allowed_tools": ["get_server_time"], "require_approval": "always"}]
    # Chat Completions has no approval items: the call comes back to the client, unrun (the
    # suite's check that the client only sees calls of its own tools is off: `inject=True`).
    reply = create(CHAT, gw.client(), CHAT.start(t.marker, turns), inject=True, tools=mcp)
    eq([(i, n) for i, n, _ in reply.calls], [(call_id, "example__get_server_time")], "the call the client got")
    eq(reply.finish, "tool_calls", "finish_reason")
    eq(len(upstream_log(t.marker, CHAT.path)), 1, "requests the upstream received")


@test("mcp_entries_refused[chat]")
def _(t):
    gw = gateway("main")
    for entry, words in (
        ({"type": "mcp", "server_label": "nowhere"}, "no MCP server labelled `nowhere`: its servers are everything, example"),
        ({"type": "mcp", "server_label": "x", "server_url": "http://169.254.169.254/mcp"}, "is not one this gateway may reach"),
        ({"type": "mcp", "server_label": "example", "allowed_tools": "all"}, "`allowed_tools` of the `mcp` tool `example`"),
    ):
        try:
            create(CHAT, gw.client(), CHAT.start(t.marker, [{"content": "hi"}]), tools=[entry])
            raise AssertionError(f"{entry} was accepted")
        except openai.BadRequestError as error:
            check(words in error.message, f"the message for {entry}: {error.message}")
    eq(len(upstream_log(t.marker, CHAT.path)), 0, "requests the upstream received")


@test("mcp_server_url[chat]")
def _(t):
    gw = gateway("settings")  # allowed_server_urls: web2's origin alone
    secret_header = "h-" + uuid.uuid4().hex
    remote = {"type": "mcp", "server_label": "remote", "server_url": WEB2_URL, "authorization": WEB2_TOKEN,
              "headers": {"X-Tooldef-Test": secret_header}, "allowed_tools": ["get_server_time"], "require_approval": "never"}
    call_id = f"call_r_{t.tag}"
    turns = [{"calls": [{"name": "remote__get_server_time", "arguments": {}, "id": call_id}]}, {"content": "via url"}]
    reply = create(CHAT, gw.client(), CHAT.start(t.marker, turns), tools=[remote])
    eq((reply.calls, reply.text), ([], "via url"), "the calls and the answer")
    entries = upstream_log(t.marker, CHAT.path)
    eq(len(entries), 2, "requests the upstream received")
    eq(upstream_tool_names(CHAT, entries[0]), ["remote__get_server_time"], "the tools the upstream got")
    result = results_by_id(CHAT, entries[1]["body"]).get(call_id, "")
    check(result and "not" not in result.split()[:3], f"remote__get_server_time's result: {result!r}")
    for entry in entries:
        text = json.dumps(entry)
        check(WEB2_TOKEN not in text and secret_header not in text, "the request's token or header reached the upstream")
    output = gw.proc.text()
    check(WEB2_TOKEN not in output and secret_header not in output, "the request's token or header is in the gateway's log")
    # Without the token the server refuses the session: 424, as OpenAI answers.
    try:
        create(CHAT, gw.client(), CHAT.start(t.marker + "-no-token", turns), tools=[{**remote, "authorization": None}])
        raise AssertionError("a server that refused the session was used")
    except openai.APIStatusError as error:
        eq(error.status_code, 424, "status")
        check("could not be used" in error.message and "HTTP 401" in error.message, f"message: {error.message}")
    for entry, words in (
        ({**remote, "server_url": "http://127.0.0.1:1/mcp"}, "whose origin `http://127.0.0.1:1` is not one this gateway may reach"),
        ({**remote, "server_url": "http://169.254.169.254/latest"}, "is not one this gateway may reach"),
        ({**remote, "server_label": "web2"}, "the name of one of this gateway's own servers"),
    ):
        try:
            create(CHAT, gw.client(), CHAT.start(t.marker + "-refused", turns), tools=[entry])
            raise AssertionError(f"{entry['server_url']} as {entry['server_label']} was accepted")
        except openai.BadRequestError as error:
            check(words in error.message, f"message: {error.message}")
    eq(len(upstream_log(t.marker + "-", CHAT.path)), 0, "requests the upstream received for the refused ones")


# ---------------------------------------------------------------------------------------------
# 12c. OpenAI's `mcp` tool entries on Responses: the hosted tool's output items, for any model


from openai.types.responses import (  # noqa: E402 - the typed events the SDK must parse
    ResponseMcpCallArgumentsDeltaEvent,
    ResponseMcpCallArgumentsDoneEvent,
    ResponseMcpCallCompletedEvent,
    ResponseMcpCallFailedEvent,
    ResponseMcpCallInProgressEvent,
    ResponseMcpListToolsCompletedEvent,
    ResponseMcpListToolsInProgressEvent,
)


def hosted(client, conversation, stream, **kw):
    """One Responses request with `mcp` tools: the SDK's typed response (checked event by event
    when streamed), its events, and the upstream's requests so far."""
    raw = client.responses.with_raw_response.create(model=MODEL, input=conversation, stream=stream, **kw)
    parsed = raw.parse()
    if not stream:
        return parsed, []
    events = list(parsed)
    return RESPONSES.check_events(events, set(), True), events


def dump(items):
    return [item.model_dump(exclude_none=True) for item in items]


def mcp_example(**entry):
    return {"type": "mcp", "server_label": "example", **entry}


def check_hosted_events(events, want):
    """The stream shows the hosted items with OpenAI's events, parsed into the SDK's classes."""
    kinds = [e.type for e in events]
    for kind, cls in want:
        typed = [e for e in events if e.type == kind]
        check(typed, f"no {kind} event in {kinds}")
        check(all(isinstance(e, cls) for e in typed), f"{kind} not parsed as {cls.__name__}: {type(typed[0])}")


@test("hosted_mcp_items[responses]")
def _(t):
    hosted_items(t, False)


@test("hosted_mcp_items[responses-stream]")
def _(t):
    hosted_items(t, True)


def hosted_items(t, stream):
    gw = gateway("main")
    call_id, echo_id, crash_id = f"call_h_{t.tag}", f"call_e_{t.tag}", f"call_x_{t.tag}"
    turns = [
        {"calls": [{"name": "example__get_server_time", "arguments": {}, "id": call_id},
                   {"name": "everything__echo", "arguments": {"message": t.marker}, "id": echo_id},
                   {"name": "example__crash", "arguments": {"message": "boom"}, "id": crash_id}]},
        {"content": "time: {tool_results}"},
    ]
    tools = [mcp_example(allowed_tools=["get_server_time", "sleep", "crash"], require_approval="never"),
             {"type": "mcp", "server_label": "everything", "allowed_tools": ["echo"], "require_approval": "never"}]
    conversation = RESPONSES.start(t.marker, turns)
    response, events = hosted(gw.client(), conversation, stream, tools=tools)
    eq([item.type for item in response.output],
       ["mcp_list_tools", "mcp_list_tools", "mcp_call", "mcp_call", "mcp_call", "message"], "the output items")
    listing, echo_listing, call, echo, crash, message = response.output
    eq((listing.server_label, sorted(tool.name for tool in listing.tools)), ("example", ["crash", "get_server_time", "sleep"]),
       "mcp_list_tools: server and tools")
    eq((echo_listing.server_label, [tool.name for tool in echo_listing.tools]), ("everything", ["echo"]),
       "server-everything's mcp_list_tools")
    check(all(tool.input_schema.get("type") == "object" for tool in listing.tools), "the tools' input_schema")
    eq((call.id, call.server_label, call.name, call.arguments, call.status, call.error),
       (f"mcp_{call_id}", "example", "get_server_time", "{}", "completed", None), "the mcp_call")
    check(SERVER_TIME in (call.output or ""), f"the call's output: {call.output!r}")
    eq((echo.server_label, echo.name, echo.status), ("everything", "echo", "completed"), "server-everything's mcp_call")
    check(t.marker in (echo.output or ""), f"the echo's output: {echo.output!r}")
    eq((crash.status, crash.output, crash.error.type if crash.error else None), ("failed", None, "mcp_tool_execution_error"),
       "the failed mcp_call")
    eq(message.content[0].text, "time: " + json.dumps([call.output, echo.output, crash.error.content[0]['text']], separators=(',', ':')),
       "the answer (which read the calls' outputs)")
    echoed = [tool.model_dump(exclude_none=True) for tool in response.tools]
    eq([(tool["type"], tool.get("server_label")) for tool in echoed], [("mcp", "example"), ("mcp", "everything")],
       "the tools the response echoes")
    if stream:
        check_hosted_events(events, [
            ("response.mcp_list_tools.in_progress", ResponseMcpListToolsInProgressEvent),
            ("response.mcp_list_tools.completed", ResponseMcpListToolsCompletedEvent),
            ("response.mcp_call.in_progress", ResponseMcpCallInProgressEvent),
            ("response.mcp_call_arguments.delta", ResponseMcpCallArgumentsDeltaEvent),
            ("response.mcp_call_arguments.done", ResponseMcpCallArgumentsDoneEvent),
            ("response.mcp_call.completed", ResponseMcpCallCompletedEvent),
            ("response.mcp_call.failed", ResponseMcpCallFailedEvent),
        ])
    entries = upstream_log(t.marker, RESPONSES.path)
    eq(len(entries), 2, "requests the upstream received")
    for entry in entries:
        eq(sorted(upstream_tool_names(RESPONSES, entry)),
           ["everything__echo", "example__crash", "example__get_server_time", "example__sleep"], "the tools the upstream got")
        check("mcp_" not in json.dumps(RESPONSES.req_items(entry["body"])), "an mcp item reached the upstream")
    # The conversation sent back whole: its items become function calls and outputs again, and the
    # server's tools are not listed a second time.
    again, _ = hosted(gw.client(), [*conversation, *dump(response.output)], stream, tools=tools)
    eq([item.type for item in again.output], ["message"], "the follow-up's output (no second mcp_list_tools)")
    body = upstream_log(t.marker, RESPONSES.path)[-1]["body"]
    eq([c[:2] for c in RESPONSES.req_calls(body)],
       [(call_id, "example__get_server_time"), (echo_id, "everything__echo"), (crash_id, "example__crash")],
       "the calls, as the upstream got them back")
    eq(results_by_id(RESPONSES, body),
       {call_id: call.output, echo_id: echo.output, crash_id: crash.error.content[0]["text"]},
       "their outputs, as the upstream got them back")


def approval_round_trip(t, stream, previous, approve):
    gw = gateway("main")
    call_id = f"call_ap_{t.tag}"
    turns = [
        {"content": "asking", "calls": [{"name": "example__get_server_time", "arguments": {}, "id": call_id}]},
        {"content": "after: {tool_results}"},
    ]
    tools = [mcp_example(allowed_tools=["get_server_time"], require_approval={"always": {"tool_names": ["get_server_time"]}})]
    conversation = RESPONSES.start(t.marker, turns)
    first, _ = hosted(gw.client(), conversation, stream, tools=tools)
    eq([item.type for item in first.output], ["mcp_list_tools", "message", "mcp_approval_request"], "the first output")
    request = first.output[2]
    eq((request.id, request.server_label, request.name, request.arguments),
       (f"mcpr_{call_id}", "example", "get_server_time", "{}"), "the approval request")
    eq(len(upstream_log(t.marker, RESPONSES.path)), 1, "requests the upstream received before the approval")
    answer = {"type": "mcp_approval_response", "approval_request_id": request.id, "approve": approve}
    if not approve:
        answer["reason"] = "not today"
    if previous:
        second, _ = hosted(gw.client(), [answer], stream, tools=tools, previous_response_id=first.id)
    else:
        second, _ = hosted(gw.client(), [*conversation, *dump(first.output), answer], stream, tools=tools)
    # By the tag, which the call's id carries: with previous_response_id, the marker is not sent again.
    body = upstream_log(t.tag, RESPONSES.path)[-1]["body"]
    result = results_by_id(RESPONSES, body).get(call_id, "")
    if approve:
        eq([item.type for item in second.output], ["mcp_call", "message"], "the output after the approval")
        call = second.output[0]
        eq((call.approval_request_id, call.name, call.status), (request.id, "get_server_time", "completed"), "the mcp_call")
        check(SERVER_TIME in result, f"the upstream got the call's output: {result!r}")
        eq(second.output[1].content[0].text, f"after: {json.dumps([result])}", "the answer")
    else:
        eq([item.type for item in second.output], ["message"], "the output after the refusal")
        check("did not approve this call: not today" in result, f"the upstream was told of the refusal: {result!r}")
    if previous:
        check(body.get("previous_response_id"), "the follow-up reached the upstream without previous_response_id")
    else:
        eq(RESPONSES.req_calls(body), [(call_id, "example__get_server_time", "{}")], "the call, as the upstream got it back")


for _stream in (False, True):
    for _previous in (False, True):
        for _approve in (True, False):
            _name = "hosted_mcp_approval[responses{}{}{}]".format(
                "-previous_response_id" if _previous else "", "-stream" if _stream else "", "" if _approve else "-refused")
            TESTS.append((_name, functools.partial(approval_round_trip, stream=_stream, previous=_previous, approve=_approve), 45))


def hosted_mixed(t, previous):
    """A turn that calls an MCP tool and one of the client's: the client gets the mcp_call and its
    own call, and its follow-up completes the conversation either way."""
    gw = gateway("main")
    call_id, lo_id = f"call_hm_{t.tag}", f"call_lo_{t.tag}"
    turns = [
        {"calls": [{"name": "example__get_server_time", "arguments": {}, "id": call_id},
                   {"name": "lookup_order", "arguments": {"order_id": "B-1"}, "id": lo_id}]},
        {"content": "final: {tool_results}"},
    ]
    tools = [mcp_example(allowed_tools=["get_server_time"], require_approval="never"), lookup_order(RESPONSES)]
    conversation = RESPONSES.start(t.marker, turns)
    first, _ = hosted(gw.client(), conversation, False, tools=tools)
    # A round's own items first, then the calls the gateway ran (as a stream can show them).
    eq([item.type for item in first.output], ["mcp_list_tools", "function_call", "mcp_call"], "the first output")
    output = {"type": "function_call_output", "call_id": lo_id, "output": f"shipped {t.tag}"}
    if previous:
        second, _ = hosted(gw.client(), [output], False, tools=tools, previous_response_id=first.id)
    else:
        second, _ = hosted(gw.client(), [*conversation, *dump(first.output), output], False, tools=tools)
    eq([item.type for item in second.output], ["message"], "the follow-up's output")
    results = json_after(second.output[0].content[0].text, "final: ")
    eq(results, [first.output[2].output, f"shipped {t.tag}"], "the results the model read")


@test("hosted_mcp_mixed[responses]")
def _(t):
    hosted_mixed(t, False)


@test("hosted_mcp_mixed[responses-previous_response_id]")
def _(t):
    hosted_mixed(t, True)


@test("hosted_mcp_read_only[responses]")
def _(t):
    gw = gateway("main")
    response, _ = hosted(gw.client(), RESPONSES.start(t.marker, [{"content": "hi"}]), False,
                         tools=[mcp_example(allowed_tools={"read_only": True})])
    listing = response.output[0]
    eq(listing.type, "mcp_list_tools", "the first item")
    names = sorted(tool.name for tool in listing.tools)
    check("sleep" in names and "crash" not in names, f"the read-only tools listed: {names}")
    check(all((tool.annotations or {}).get("readOnlyHint") is True for tool in listing.tools), "a listed tool is not read-only")
    eq(sorted(upstream_tool_names(RESPONSES, upstream_log(t.marker, RESPONSES.path)[0])), [f"example__{n}" for n in names],
       "the tools the upstream got")


@test("hosted_mcp_tool_choice[responses]")
def _(t):
    gw = gateway("main")
    turns = [{"calls": [{"name": "example__get_server_time", "arguments": {}}]}, {"content": "forced"}]
    choice = {"type": "mcp", "server_label": "example", "name": "get_server_time"}
    response, _ = hosted(gw.client(), RESPONSES.start(t.marker, turns), False, tools=[mcp_example(require_approval="never")],
                         tool_choice=choice)
    eq([item.type for item in response.output], ["mcp_list_tools", "mcp_call", "message"], "the output items")
    eq([entry["body"].get("tool_choice") for entry in upstream_log(t.marker, RESPONSES.path)],
       ["required", "auto"], "the tool_choice each round sent upstream")
    # Without `require_approval`, a call waits for approval, as OpenAI's hosted tool has it.
    asked, _ = hosted(gw.client(), RESPONSES.start(t.marker + "-a", turns), False, tools=[mcp_example()], tool_choice=choice)
    eq([item.type for item in asked.output], ["mcp_list_tools", "mcp_approval_request"], "the output items without require_approval")
    try:
        hosted(gw.client(), RESPONSES.start(t.marker + "-x", turns), False,
               tools=[mcp_example(allowed_tools=["sleep"])], tool_choice=choice)
        raise AssertionError("a tool_choice of a tool the request does not offer was accepted")
    except openai.BadRequestError as error:
        check("which this request does not offer" in error.message, f"message: {error.message}")


@test("hosted_mcp_unknown_approval[responses]")
def _(t):
    gw = gateway("main")
    answer = {"type": "mcp_approval_response", "approval_request_id": "mcpr_nowhere", "approve": True}
    try:
        hosted(gw.client(), [*RESPONSES.start(t.marker, [{"content": "hi"}]), answer], False, tools=[mcp_example()])
        raise AssertionError("an approval of an unknown request was accepted")
    except openai.BadRequestError as error:
        check("`mcpr_nowhere`, which is not an approval request" in error.message, f"message: {error.message}")
    eq(len(upstream_log(t.marker, RESPONSES.path)), 0, "requests the upstream received")


@test("hosted_mcp_server_url[responses]")
def _(t):
    gw = gateway("settings")
    # The token travels in `headers` this time: the server only opens a session with it.
    remote = {"type": "mcp", "server_label": "remote", "server_url": WEB2_URL, "require_approval": "never",
              "headers": {"Authorization": f"Bearer {WEB2_TOKEN}"}, "allowed_tools": ["get_server_time"]}
    call_id = f"call_rr_{t.tag}"
    turns = [{"calls": [{"name": "remote__get_server_time", "arguments": {}, "id": call_id}]}, {"content": "via url"}]
    response, _ = hosted(gw.client(), RESPONSES.start(t.marker, turns), True, tools=[remote])
    eq([item.type for item in response.output], ["mcp_list_tools", "mcp_call", "message"], "the output items")
    eq((response.output[1].server_label, response.output[1].status), ("remote", "completed"), "the mcp_call")
    echoed = [tool.model_dump(exclude_none=True) for tool in response.tools]
    check(all("headers" not in tool and "authorization" not in tool for tool in echoed), f"the echoed tools carry secrets: {echoed}")
    for entry in upstream_log(t.marker, RESPONSES.path):
        check(WEB2_TOKEN not in json.dumps(entry), "the request's header reached the upstream")
    check(WEB2_TOKEN not in gw.proc.text(), "the request's header is in the gateway's log")
    try:
        hosted(gw.client(), RESPONSES.start(t.marker, turns), False, tools=[{**remote, "server_url": "http://10.0.0.1/mcp"}])
        raise AssertionError("a server_url outside the allow-list was used")
    except openai.BadRequestError as error:
        check("is not one this gateway may reach" in error.message, f"message: {error.message}")


# ---------------------------------------------------------------------------------------------
# 13. inject mode


@every_api("inject_mode")
def _(api, stream, t):
    gw = gateway("inject")
    call_id = f"call_i_{t.tag}"
    raw_args = json.dumps(api.weather_args(f"Faro-{t.tag}"))
    turns = [{"content": "calling", "calls": [{"name": "example__get_weather", "arguments_raw": raw_args, "id": call_id}]}]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream, inject=True, tools=[lookup_order(api)])
    eq(reply.calls, [(call_id, "example__get_weather", api.call_args(raw_args))], "the call the client got")
    if api is not RESPONSES:
        eq(reply.finish, api.finishes["calls"], "finish_reason / stop_reason")
    eq(reply.text, "calling", "the text")
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 1, "requests the upstream received")
    names = [api.def_name(d) for d in api.req_tools(entries[0]["body"])]
    eq(names[0], "lookup_order", "the first tool sent upstream")
    check("example__get_weather" in names, f"nothing injected: {names}")
    eq(names[1:], [api.def_name(d) for d in gw.tools(api.target)["data"]], "the injected tools")


# ---------------------------------------------------------------------------------------------
# 14. a Streamable HTTP MCP server


@every_api("streamable_http_server", streams=(False,))
def _(api, stream, t):
    gw = gateway("web")
    names = [api.def_name(d) for d in gw.tools(api.target)["data"]]
    check("web__echo" in names, f"web__echo not injected: {names}")
    server = gw.server("web")
    eq((server.get("transport"), server.get("state")), ("http", "running"), "the web server's transport and state")
    call_id = f"call_e_{t.tag}"
    turns = [
        {"calls": [{"name": "web__echo", "arguments": {"message": f"hello-{t.tag}"}, "id": call_id}]},
        {"content": "echo: {tool_results}"},
    ]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream)
    check(f"Echo: hello-{t.tag}" in reply.text, f"answer: {short(reply.text)}")
    entries = upstream_log(t.marker, api.path)
    eq(len(entries), 2, "requests the upstream received")
    eq(results_by_id(api, entries[1]["body"]).get(call_id), f"Echo: hello-{t.tag}", "web__echo's result")


# ---------------------------------------------------------------------------------------------
# 15. authorization and the gateway's key


@test("authorization_forwarded")
def _(t):
    gw = gateway("main")
    create(CHAT, gw.client(), CHAT.start(t.marker, [{"calls": [{"name": "example__get_server_time", "arguments": {}}]}]))
    entries = upstream_log(t.marker, CHAT.path)
    eq(len(entries), 2, "requests the upstream received")
    for entry in entries:
        eq(entry["headers"].get("authorization"), f"Bearer {CLIENT_KEY}", "authorization the upstream saw")


@test("gateway_key")
def _(t):
    gw = gateway("key")
    turns = [{"content": "keyed"}]
    for headers, what in (({}, "no key"), ({"x-tooldef-key": "wrong-" + KEY}, "a wrong key")):
        try:
            create(CHAT, gw.client(default_headers=headers), CHAT.start(t.marker, turns))
            raise AssertionError(f"a request with {what} was accepted")
        except openai.AuthenticationError as error:
            eq(error.status_code, 401, f"status with {what}")
            eq(error.response.json().get("error", {}).get("type"), "authentication_error", f"error type with {what}")
    eq(upstream_log(t.marker), [], "requests the upstream received without the right key")
    reply = create(CHAT, gw.client(default_headers={"x-tooldef-key": KEY}), CHAT.start(t.marker, turns))
    eq(reply.text, "keyed", "the answer with the key")
    reply = create(RESPONSES, gw.client(default_headers={"x-tooldef-key": KEY}), RESPONSES.start(t.marker, turns), True)
    eq(reply.text, "keyed", "the streamed Responses answer with the key")
    entries = upstream_log(t.marker)
    eq(len(entries), 2, "requests the upstream received with the key")
    eq(entries[0]["headers"].get("authorization"), f"Bearer {CLIENT_KEY}", "authorization the upstream saw")


# ---------------------------------------------------------------------------------------------
# 16. the proxy


@test("proxy_models")
def _(t):
    models = gateway("main").client().models.list()
    check("scripted-1" in [m.id for m in models.data], f"models: {[m.id for m in models.data]}")


@test("proxy_echo_binary")
def _(t):
    gw = gateway("main")
    body = bytes(random.getrandbits(8) for _ in range(200_000)) + t.marker.encode()
    response = httpx.post(
        gw.url + "/v1/echo?x=1&y=two",
        content=body,
        headers={"content-type": "application/octet-stream", "authorization": f"Bearer {CLIENT_KEY}"},
        timeout=30,
    )
    eq(response.status_code, 200, "status")
    check(response.content == body, f"the echoed body differs ({len(response.content)} bytes back, {len(body)} sent)")
    eq(response.headers.get("content-type"), "application/octet-stream", "content-type echoed")
    eq(response.headers.get("x-echo-authorization"), f"Bearer {CLIENT_KEY}", "authorization the upstream saw")
    eq(response.headers.get("x-echo-path-query"), "/v1/echo?x=1&y=two", "path and query the upstream saw")


@test("proxy_streams_incrementally")
def _(t):
    gw = gateway("main")
    n, ms = 6, 250
    started = time.monotonic()
    arrivals = []
    with httpx.stream("GET", gw.url + "/v1/slow-stream", params={"n": n, "ms": ms}, timeout=30,
                      headers={"authorization": f"Bearer {CLIENT_KEY}"}) as response:
        eq(response.status_code, 200, "status")
        for line in response.iter_lines():
            if line.startswith("data:"):
                arrivals.append((time.monotonic() - started, json.loads(line[5:])))
    eq([data.get("i") for _, data in arrivals], list(range(n)), "the events")
    first, last = arrivals[0][0], arrivals[-1][0]
    check(first < (n - 1) * ms / 1000 * 0.6, f"the first event came only after {first:.2f} s (the last at {last:.2f} s)")
    check(last - first > (n - 1) * ms / 1000 * 0.5, f"the events came together: first at {first:.2f} s, last at {last:.2f} s")


# ---------------------------------------------------------------------------------------------
# 17. streams, read raw


def sse(response):
    """(event, data) pairs of a text/event-stream response."""
    events, event, data = [], None, []
    for line in response.iter_lines():
        if line == "":
            if data:
                events.append((event, "\n".join(data)))
            event, data = None, []
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
    if data:
        events.append((event, "\n".join(data)))
    return events


def two_round_script(t):
    return [
        {"content": "first", "calls": [{"name": "everything__echo", "arguments": {"message": f"m-{t.tag}"}}]},
        {"content": "second {tool_results}"},
    ]


@test("raw_stream[chat]")
def _(t):
    gw = gateway("main")
    request = {
        "model": MODEL,
        "messages": CHAT.start(t.marker, two_round_script(t)),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    with httpx.stream("POST", gw.url + CHAT.path, json=request, timeout=30,
                      headers={"authorization": f"Bearer {CLIENT_KEY}"}) as response:
        eq(response.status_code, 200, "status")
        check(response.headers.get("content-type", "").startswith("text/event-stream"), f"content-type {response.headers.get('content-type')}")
        events = sse(response)
    eq(events[-1][1], "[DONE]", "the last event")
    chunks = [json.loads(data) for _, data in events[:-1]]
    eq(len({c["id"] for c in chunks}), 1, "distinct ids")
    eq(sum(1 for c in chunks for ch in c["choices"] if ch.get("delta", {}).get("role")), 1, "role deltas")
    finishes = [ch["finish_reason"] for c in chunks for ch in c["choices"] if ch.get("finish_reason")]
    eq(finishes, ["stop"], "finish reasons")
    check(not any(ch.get("delta", {}).get("tool_calls") for c in chunks for ch in c["choices"]), "a tool call delta was streamed")
    text = "".join(ch.get("delta", {}).get("content") or "" for c in chunks for ch in c["choices"])
    check(text.startswith("first\n\nsecond "), f"the streamed text: {short(text)}")
    eq(json_after(text, "second "), [f"Echo: m-{t.tag}"], "the tool results")
    eq(chunks[-1]["choices"], [], "the usage chunk's choices")
    check(chunks[-1].get("usage"), "no usage chunk last")
    check(all(not c.get("usage") for c in chunks[:-1]), "usage before the last chunk")
    eq(chunks[-1]["usage"], {**chunks[-1]["usage"], **replayed_usage(CHAT, upstream_log(t.marker, CHAT.path))}, "the summed usage")


@test("raw_stream[responses]")
def _(t):
    gw = gateway("main")
    request = {"model": MODEL, "input": RESPONSES.start(t.marker, two_round_script(t)), "stream": True}
    with httpx.stream("POST", gw.url + RESPONSES.path, json=request, timeout=30,
                      headers={"authorization": f"Bearer {CLIENT_KEY}"}) as response:
        eq(response.status_code, 200, "status")
        events = sse(response)
    datas = [json.loads(data) for _, data in events if data != "[DONE]"]
    for name, data in events:
        if data != "[DONE]" and name is not None:
            eq(json.loads(data).get("type"), name, "an event's name vs its data's type")
    types = [d["type"] for d in datas]
    eq((types.count("response.created"), types.count("response.completed")), (1, 1), "response.created and response.completed events")
    eq((types[0], types[-1]), ("response.created", "response.completed"), "first and last events")
    eq(datas[-1]["response"]["id"], datas[0]["response"]["id"], "the completed response's id")
    numbers = [d.get("sequence_number") for d in datas]
    check(all(isinstance(n, int) for n in numbers) and all(a < b for a, b in zip(numbers, numbers[1:])),
          f"sequence numbers: {numbers}")
    check(not any(d.get("item", {}).get("type") == "function_call" for d in datas), "an injected function call was streamed")
    output = datas[-1]["response"]["output"]
    eq([item["type"] for item in output], ["message", "message"], "output items")
    texts = ["".join(c.get("text", "") for c in item["content"]) for item in output]
    eq(texts[0], "first", "the first message")
    eq(json_after(texts[1], "second "), [f"Echo: m-{t.tag}"], "the second message's tool results")
    added = [d["output_index"] for d in datas if d["type"] == "response.output_item.added"]
    eq(added, [0, 1], "output indices of the added items")
    for index in (0, 1):
        deltas = "".join(d["delta"] for d in datas if d["type"] == "response.output_text.delta" and d["output_index"] == index)
        eq(deltas, texts[index], f"text deltas of output item {index}")
    usage = datas[-1]["response"].get("usage") or {}
    eq({k: usage.get(k) for k in RESPONSES.usage_keys}, replayed_usage(RESPONSES, upstream_log(t.marker, RESPONSES.path)), "the summed usage")


@test("raw_stream[messages]")
def _(t):
    gw = gateway("main")
    request = {"model": MODEL, "max_tokens": 1024, "messages": MESSAGES.start(t.marker, two_round_script(t)), "stream": True}
    headers = {"x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01"}
    with httpx.stream("POST", gw.url + MESSAGES.path, json=request, timeout=30, headers=headers) as response:
        eq(response.status_code, 200, "status")
        check(response.headers.get("content-type", "").startswith("text/event-stream"), f"content-type {response.headers.get('content-type')}")
        events = sse(response)
    for name, data in events:
        check(name is not None, f"an event without a name: {short(data)}")
        eq(json.loads(data).get("type"), name, "an event's name vs its data's type")
    datas = [json.loads(data) for _, data in events if json.loads(data).get("type") != "ping"]
    types = [d["type"] for d in datas]
    eq((types[0], types[-2], types[-1]), ("message_start", "message_delta", "message_stop"), "the first and last events")
    eq((types.count("message_start"), types.count("message_delta"), types.count("message_stop")), (1, 1, 1),
       "message_start, message_delta and message_stop events")
    starts = [d for d in datas if d["type"] == "content_block_start"]
    eq([d["index"] for d in starts], [0, 1], "the indexes of the started blocks")
    eq([d["content_block"]["type"] for d in starts], ["text", "text"], "the blocks (no tool_use of the injected call)")
    eq([d["index"] for d in datas if d["type"] == "content_block_stop"], [0, 1], "the indexes of the stopped blocks")
    texts = ["".join(d["delta"].get("text", "") for d in datas if d["type"] == "content_block_delta" and d["index"] == i)
             for i in (0, 1)]
    eq(texts[0], "first", "the first block's text")
    eq(json_after(texts[1], "second "), [f"Echo: m-{t.tag}"], "the second block's tool results")
    delta = datas[-2]
    eq(delta["delta"].get("stop_reason"), "end_turn", "the stop_reason")
    # The input tokens are injected_tools_only[messages-stream]'s to check.
    want = replayed_usage(MESSAGES, upstream_log(t.marker, MESSAGES.path))
    eq(delta["usage"].get("output_tokens"), want["output_tokens"], "the summed output tokens")


def stream_helper(api_client, **args):
    """One Messages request through the SDK's own stream helper: the text it streamed and the
    message it accumulated from the events."""
    with api_client.messages.stream(**args) as stream:
        text = "".join(stream.text_stream)
        return text, stream.get_final_message()


@test("messages_stream_helper[messages-stream]")
def _(t):
    """The anthropic SDK's `messages.stream()` helper, which builds the message from the events
    itself: a turn that calls an injected tool and the client's, and the follow-up."""
    gw = gateway("main")
    w_id, lo_id = f"toolu_w_{t.tag}", f"toolu_lo_{t.tag}"
    turns = [
        {"content": "looking", "calls": [{"name": "example__get_server_time", "arguments": {}, "id": w_id},
                                         {"name": "lookup_order", "arguments": {"order_id": f"C-{t.tag}"}, "id": lo_id}]},
        {"content": "final: {tool_results}"},
    ]
    client = gw.anthropic()
    conversation = MESSAGES.start(t.marker, turns)
    args = {"model": MODEL, "max_tokens": 1024, "tools": [lookup_order(MESSAGES)]}
    text, message = stream_helper(client, messages=conversation, **args)
    eq(text, "looking", "the streamed text")
    eq([b.type for b in message.content], ["text", "tool_use"], "the message's blocks")
    call = message.content[1]
    eq((call.id, call.name, call.input), (lo_id, "lookup_order", {"order_id": f"C-{t.tag}"}), "the client's call")
    eq(message.stop_reason, "tool_use", "stop_reason")
    followup = [*conversation, {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": lo_id, "content": "shipped"}]}]
    text, message = stream_helper(client, messages=followup, **args)
    eq([b.type for b in message.content], ["text"], "the follow-up's blocks")
    results = json_after(text, "final: ")
    check(len(results) == 2 and results[0].startswith(SERVER_TIME) and results[1] == "shipped",
          f"the results the model read: {short(results)}")
    eq(message.stop_reason, "end_turn", "the follow-up's stop_reason")
    eq(len(upstream_log(t.marker, MESSAGES.path)), 2, "requests the upstream received")


# ---------------------------------------------------------------------------------------------
# 18. the gateway's own endpoints


@test("healthz")
def _(t):
    gw = gateway("main")
    health = gw.healthz()
    eq(health.get("status"), "ok", "status")
    servers = {s["name"]: s for s in health.get("servers", [])}
    eq(sorted(servers), ["everything", "example"], "servers")
    for name, count in (("example", 11), ("everything", len(EVERYTHING_TOOLS))):
        server = servers[name]
        missing = {"name", "pid", "restarts", "state", "tools", "transport"} - set(server)
        check(not missing, f"{name}'s entry lacks {sorted(missing)}: {server}")
        eq((server["transport"], server["state"], server["tools"]), ("stdio", "running", count), f"{name}'s transport, state, tools")
        check(isinstance(server["restarts"], int) and server["restarts"] >= 0, f"{name}'s restarts: {server['restarts']}")
        check(isinstance(server["pid"], int) and os.path.exists(f"/proc/{server['pid']}"), f"{name}'s pid: {server['pid']}")
    web = gateway("web").server("web")
    eq((web.get("transport"), web.get("pid")), ("http", None), "the HTTP server's transport and pid")


EVERYTHING_TOOLS = {
    "echo", "get-annotated-message", "get-env", "get-resource-links", "get-resource-reference",
    "get-structured-content", "get-sum", "get-tiny-image", "gzip-file-as-resource",
    "toggle-simulated-logging", "toggle-subscriber-updates", "trigger-long-running-operation",
    "simulate-research-query",
}


@every_api("tools_endpoint", streams=(False,))
def _(api, stream, t):
    gw = gateway("main")
    listing = gw.tools(api.target)
    eq((listing.get("object"), listing.get("target")), ("list", api.listing_target), "object and target")
    tools = listing["data"]
    names = [api.def_name(d) for d in tools]
    want = {f"example__{n}" for n in EXAMPLE_TOOLS} | {f"everything__{n}" for n in EVERYTHING_TOOLS}
    eq(set(names), want, "the injected tools' names")
    eq(len(names), len(want), "number of tools")
    for d in tools:
        check(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", api.def_name(d)), f"not a valid tool name: {api.def_name(d)}")
    weather = next(d for d in tools if api.def_name(d) == "example__get_weather")
    params = api.def_parameters(weather)
    if api is MESSAGES:
        # Anthropic's tools: `{name, description, input_schema}`, no `type`; the optional
        # parameters stay optional and not nullable, so the tool is not strict. The examples the
        # MCP server lists in `get_weather`'s input schema are its `input_examples`.
        for d in tools:
            eq(sorted(set(d) - {"strict", "input_examples"}), ["description", "input_schema", "name"], f"{api.def_name(d)}'s keys")
        eq(weather.get("input_examples"), [{"city": "Lisbon"}, {"city": "Paris, FR", "days": 7, "units": "imperial"}],
           "example__get_weather's input_examples, from the MCP server's schema")
        check("examples" not in params, "the examples are in the schema as well as in input_examples")
        eq(api.def_strict(weather), None, "example__get_weather's strict")
        eq(params["required"], ["city"], "example__get_weather's required")
        eq(params.get("additionalProperties"), False, "example__get_weather's additionalProperties")
        check("null" not in json.dumps(params["properties"]["days"]), f"days is nullable: {params['properties']['days']}")
        eq(api.def_strict(next(d for d in tools if api.def_name(d) == "example__get_server_time")), True,
           "example__get_server_time's strict (no optional parameter)")
        # What Anthropic's SDK declares a tool to be takes every one of them.
        check(all(set(d) <= set(anthropic.types.ToolParam.__annotations__) for d in tools), "a key anthropic.types.ToolParam lacks")
        return
    for d in tools:
        eq(d.get("type"), "function", f"{api.def_name(d)}'s type")
    eq(api.def_strict(weather), True, "example__get_weather's strict")
    eq(sorted(params["required"]), sorted(["city", "days", "units", "include_hourly"]), "example__get_weather's required")
    eq(params.get("additionalProperties"), False, "example__get_weather's additionalProperties")
    check("null" in json.dumps(params["properties"]["days"]), f"days is not nullable: {params['properties']['days']}")
    annotated = api.def_parameters(next(d for d in tools if api.def_name(d) == "everything__get-annotated-message"))
    check("null" in json.dumps(annotated["properties"]["includeImage"]), "includeImage is not nullable")


# ---------------------------------------------------------------------------------------------
# 19. cut at the token limit: the round is the last, and nothing of it runs


def cut_off_call(api, stream, t, gw_name):
    """The model's turn is cut by the token limit in the middle of its second call's arguments:
    the client gets the turn's text, marked cut in its API's words, and nothing of it runs (not
    even the whole first call): one upstream request, no tool call."""
    gw = gateway(gw_name)
    turns = [
        {"content": "cut here", "finish": "length", "calls": [
            {"name": "example__get_server_time", "arguments": {}, "id": f"call_t_{t.tag}"},
            {"name": "example__get_weather", "arguments_raw": '{"city": "Lis', "id": f"call_cut_{t.tag}"},
        ]},
        {"content": "never said"},
    ]
    limit = {"max_output_tokens": 16} if api is RESPONSES else {"max_tokens": 16}
    before = gw.tool_calls()
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream, tools=[lookup_order(api)], **limit)
    eq(reply.calls, [], "tool calls the client got")
    eq(reply.texts, ["cut here"], "the answer's text")
    if api is RESPONSES:
        eq((reply.finish, reply.incomplete), ("incomplete", "max_output_tokens"), "the response's status and incomplete_details.reason")
    else:
        eq(reply.finish, api.finishes["cut"], "finish_reason / stop_reason")
        eq(reply.extension, None, "the answer's `tooldef` member (no bound of the gateway's cut it)")
    if reply.usage is not None:
        output = "completion_tokens" if api is CHAT else "output_tokens"
        eq(reply.usage.get(output), 16, "the output tokens (the limit)")
    rounds_header(reply, stream, 1)
    if not stream:
        eq(reply.headers.get("x-tooldef-incomplete"), None, "header x-tooldef-incomplete")
    translated_header(gw, api, reply)
    eq(len(upstream_entries(gw, api, t.marker)), 1, "requests the upstream received")
    eq(gw.tool_calls(), before, "tool calls the gateway ran (/metrics)")


@every_api("cut_off_call")
def _(api, stream, t):
    cut_off_call(api, stream, t, "main")


# ---------------------------------------------------------------------------------------------
# 20. Responses and Messages clients over an upstream that speaks Chat Completions only: the
# gateway `chat-only` found it out by asking (the upstream's 404s), `as-chat` was told so
# (`--upstream-api chat`, in front of the full upstream). Requests and replies are translated
# both ways; what the upstream receives is Chat Completions, whatever the client's API.

TRANSLATING = ("chat-only", "as-chat")


def translated(name, timeout=45, streams=(False, True), apis=(RESPONSES, MESSAGES), gateways=TRANSLATING):
    """Registers the scenario once per translating gateway, client API and streaming mode:
    `fn(api, stream, t, gw_name)`, named `NAME[API(-stream)@GATEWAY]`."""

    def register(fn):
        for gw_name in gateways:
            for api in apis:
                for stream in streams:
                    variant = f"{name}[{api.name}{'-stream' if stream else ''}@{gw_name}]"
                    TESTS.append((variant, functools.partial(fn, api, stream, gw_name=gw_name), timeout))
        return fn

    return register


def translated_header(gw, api, reply):
    """An answer over a link that translates says so; one that does not, does not."""
    want = "chat" if wire(gw, api) is not api else None
    eq(reply.headers.get("x-tooldef-upstream-api"), want, "header x-tooldef-upstream-api")


def translated_usage(api, reply, gw, entries):
    """The client's usage is the sum of the Chat Completions usages the upstream gave, in the
    client's API's words."""
    check(reply.usage is not None, "the answer has no usage")
    chat = replayed_usage(CHAT, entries, gw.upstream)
    want = {"input_tokens": chat["prompt_tokens"], "output_tokens": chat["completion_tokens"]}
    if api is RESPONSES:
        want["total_tokens"] = chat["total_tokens"]
    eq({key: reply.usage.get(key) for key in api.usage_keys}, want,
       f"usage (the sum over the {len(entries)} Chat Completions requests, in {api.name}'s words)")


def is_chat_request(body):
    """A body in Chat Completions' shape: `messages` with OpenAI's roles, function tools."""
    return (isinstance(body.get("messages"), list) and "input" not in body and "max_output_tokens" not in body
            and "system" not in body
            and all(m.get("role") in ("system", "developer", "user", "assistant", "tool") for m in body["messages"])
            and all(tool.get("type") == "function" and "function" in tool for tool in body.get("tools") or []))


@translated("injected_tools_only")
def _(api, stream, t, gw_name):
    gw = gateway(gw_name)
    ids = [f"call_w_{t.tag}", f"call_s_{t.tag}"]
    # The model speaks Chat Completions: example__get_weather is strict there, its optional
    # parameters null.
    weather_args = CHAT.weather_args(f"Lisbon-{t.tag}")
    turns = [
        {"content": "checking", "calls": [
            {"name": "example__get_weather", "arguments": weather_args, "id": ids[0]},
            {"name": "example__get_server_time", "arguments": {}, "id": ids[1]},
        ]},
        {"content": "results: {tool_results}"},
    ]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream, tools=[lookup_order(api)])
    eq(reply.calls, [], "tool calls the client got")
    eq(len(reply.texts), 2, f"the answer's texts: {reply.texts}")
    eq(reply.texts[0], "checking", "the first round's text")
    results = json_after(reply.texts[1], "results: ")
    check(len(results) == 2 and f"Lisbon-{t.tag}" in results[0] and results[1].startswith(SERVER_TIME),
          f"the tool results the model read: {short(results)}")
    eq(len(json.loads(results[0])["days"]), 3, "forecast days (the default, a strict null removed)")
    if api is MESSAGES:
        eq(reply.finish, "end_turn", "stop_reason")
    else:
        eq(reply.finish, "completed", "status")
    rounds_header(reply, stream, 2)
    translated_header(gw, api, reply)
    eq(upstream_log(t.marker, api.path, gw.upstream), [], f"requests to the upstream's {api.path}")
    entries = upstream_entries(gw, api, t.marker)
    eq(len(entries), 2, "Chat Completions requests the upstream received")
    first, second = entries[0]["body"], entries[1]["body"]
    for k, entry in enumerate(entries):
        check(is_chat_request(entry["body"]), f"request {k + 1} is not Chat Completions: {short(entry['body'])}")
        eq(entry["headers"].get("authorization"), f"Bearer {CLIENT_KEY}", f"request {k + 1}'s authorization")
        check("x-api-key" not in entry["headers"], f"request {k + 1} carries x-api-key")
    eq(first["messages"][-1], {"role": "user", "content": user_text(t.marker, turns)}, "the user's message, as Chat has it")
    tools = CHAT.req_tools(first)
    eq((CHAT.def_name(tools[0]), CHAT.def_parameters(tools[0])), ("lookup_order", LOOKUP_ORDER_PARAMETERS),
       "the client's tool, as Chat has it")
    eq(tools[1:], gw.tools("chat")["data"], "the injected tools, rendered for Chat Completions (vs /v1/tools?target=chat)")
    calls = CHAT.req_calls(second)
    eq([(c[0], c[1]) for c in calls], [(ids[0], "example__get_weather"), (ids[1], "example__get_server_time")],
       "the calls the upstream got back")
    eq(json.loads(calls[0][2]), weather_args, "the weather call's arguments, as the model sent them")
    got = results_by_id(CHAT, second)
    eq(sorted(got), sorted(ids), "the tool messages' ids")
    # (The text, and on Messages also the structured content, as the gateway writes a result for
    # the client's API before it is translated.)
    check(got[ids[1]].startswith(SERVER_TIME), f"the server time's tool message: {got[ids[1]]!r}")
    translated_usage(api, reply, gw, entries)


@translated("client_tools_only")
def _(api, stream, t, gw_name):
    gw = gateway(gw_name)
    call_id = f"call_lo_{t.tag}"
    raw_args = '{"order_id":"A-%s","verbose":false}' % t.tag
    turns = [{"content": "looking it up", "calls": [{"name": "lookup_order", "arguments_raw": raw_args, "id": call_id}]}]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream, tools=[lookup_order(api)])
    eq(reply.calls, [(call_id, "lookup_order", api.call_args(raw_args))], "the tool calls the client got")
    eq(reply.texts, ["looking it up"], "the text")
    if api is MESSAGES:
        eq(reply.finish, "tool_use", "stop_reason")
        eq([block["type"] for block in reply.content], ["text", "tool_use"], "the blocks")
    rounds_header(reply, stream, 1)
    translated_header(gw, api, reply)
    entries = upstream_entries(gw, api, t.marker)
    eq(len(entries), 1, "Chat Completions requests the upstream received")
    check(is_chat_request(entries[0]["body"]), f"not Chat Completions: {short(entries[0]['body'])}")


@translated("mixed_reply")
def _(api, stream, t, gw_name):
    first, reply = mixed(api, stream, t, previous=False, gw_name=gw_name)
    for answer in (first, reply):
        translated_header(gateway(gw_name), api, answer)
    for entry in upstream_entries(gateway(gw_name), api, t.marker):
        check(is_chat_request(entry["body"]), f"not Chat Completions: {short(entry['body'])}")


@translated("mixed_reply_previous_response_id", apis=(RESPONSES,))
def _(api, stream, t, gw_name):
    # The upstream keeps nothing: the gateway kept the conversation under the response's id, and
    # sends it whole with the client's output.
    first, reply = mixed(api, stream, t, previous=True, gw_name=gw_name)
    translated_header(gateway(gw_name), api, reply)
    body = upstream_entries(gateway(gw_name), api, t.marker)[1]["body"]
    check(is_chat_request(body), f"not Chat Completions: {short(body)}")
    first_message = body["messages"][0]
    check(first_message.get("role") == "user" and t.marker in content_text(first_message.get("content")),
          f"the follow-up does not start with the user's message, kept by the gateway: {short(first_message)}")


@translated("max_rounds")
def _(api, stream, t, gw_name):
    reply, entries = max_rounds(api, stream, t, gw_name, api.bounds(max_rounds=3))
    translated_header(gateway(gw_name), api, reply)
    for entry in entries:
        check(is_chat_request(entry["body"]), f"not Chat Completions: {short(entry['body'])}")


@translated("failing_tool")
def _(api, stream, t, gw_name):
    gw = gateway(gw_name)
    call_id = f"call_x_{t.tag}"
    turns = [
        {"calls": [{"name": "example__crash", "arguments": {"message": f"boom-{t.tag}"}, "id": call_id}]},
        {"content": "got: {tool_results}"},
    ]
    reply = create(api, api.client(gw), api.start(t.marker, turns), stream)
    results = json_after(reply.text, "got: ")
    eq(len(results), 1, "tool results")
    check(re.search(r"error|fail|panic", results[0], re.I), f"the crash's result does not say it failed: {short(results[0])}")
    translated_header(gw, api, reply)
    entries = upstream_entries(gw, api, t.marker)
    eq(len(entries), 2, "Chat Completions requests the upstream received")
    eq(results_by_id(CHAT, entries[1]["body"]).get(call_id), results[0], "the crash's tool message")


@translated("upstream_error")
def _(api, stream, t, gw_name):
    upstream_error_round_1(api, stream, t, gw_name)


@translated("upstream_error_in_round_2")
def _(api, stream, t, gw_name):
    upstream_error_round_2(api, stream, t, gw_name)


@translated("cut_off_call")
def _(api, stream, t, gw_name):
    cut_off_call(api, stream, t, gw_name)


@test("upstream_apis_found_by_asking[chat-only]")
def _(t):
    """The gateway in front of the Chat-only upstream asked each API's path once, with an empty
    request (404: it has no /v1/responses nor /v1/messages; 400: it has /v1/chat/completions),
    and remembered: never again, however many clients came."""
    gw = gateway("chat-only")
    for api in (RESPONSES, MESSAGES, RESPONSES, MESSAGES):
        reply = create(api, api.client(gw), api.start(t.marker, [{"content": "hi"}]))
        eq(reply.text, "hi", f"the {api.name} answer")
    asked = [entry["path"] for entry in upstream_log("", upstream=UPSTREAM_CHAT) if entry.get("body") == {}]
    eq(sorted(asked), sorted([CHAT.path, RESPONSES.path, MESSAGES.path]), "the empty requests the upstream received")
    eq(len(upstream_log(t.marker, CHAT.path, UPSTREAM_CHAT)), 4, "Chat Completions requests")
    eq(upstream_log(t.marker, RESPONSES.path, UPSTREAM_CHAT) + upstream_log(t.marker, MESSAGES.path, UPSTREAM_CHAT), [],
       "requests to the paths it does not have")


# ---------------------------------------------------------------------------------------------
# 21. what cannot be translated is refused, in the client's API's shape


@translated("untranslatable_refused", streams=(False,))
def _(api, stream, t, gw_name):
    gw = gateway(gw_name)
    # A built-in tool of the client's provider, which a Chat Completions upstream has no notion of.
    builtin = {"type": "web_search"} if api is RESPONSES else {"type": "web_search_20250305", "name": "web_search"}
    try:
        create(api, api.client(gw), api.start(t.marker, [{"content": "hi"}]), tools=[lookup_order(api), builtin])
        raise AssertionError(f"{builtin} was accepted")
    except api.sdk.BadRequestError as error:
        eq(error.status_code, 400, "status")
        body = error.response.json()
        if api is MESSAGES:
            eq(sorted(body), ["error", "type"], "Anthropic's error shape")
            eq((body["type"], sorted(body["error"]), body["error"]["type"]), ("error", ["message", "type"], "invalid_request_error"),
               "the error")
        else:
            eq(sorted(body.get("error", {})), ["code", "message", "param", "type"], "OpenAI's error shape")
            eq((body["error"]["type"], body["error"]["code"], body["error"]["param"]),
               ("invalid_request_error", "untranslatable", "tools"), "the error's type, code and param")
        message = body["error"]["message"]
        check(builtin["type"] in message and "tools[1]" in message, f"the message does not name the tool: {message!r}")
        check("chat" in message, f"the message does not say which API the upstream speaks: {message!r}")
    eq(upstream_log(t.marker, upstream=gw.upstream), [], "requests the upstream received")


def client_key_seen(entry):
    """The key a logged request carried: Anthropic's `x-api-key`, or a bearer token (which the
    anthropic SDK sends since 2.x)."""
    headers = entry["headers"]
    bearer = headers.get("authorization", "")
    return headers.get("x-api-key") or (bearer[len("Bearer "):] if bearer.startswith("Bearer ") else None)


@test("x_api_key_becomes_bearer[messages@chat-only]")
def _(t):
    """A Messages client's `x-api-key` (and `anthropic-version`) as a Chat Completions upstream
    takes a key: a bearer token."""
    gw = gateway("chat-only")
    request = {"model": MODEL, "max_tokens": 64, "messages": MESSAGES.start(t.marker, [{"content": "keyed"}])}
    response = httpx.post(gw.url + MESSAGES.path, json=request, timeout=30,
                          headers={"x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01"})
    eq(response.status_code, 200, f"status ({short(response.text)})")
    eq([b.get("text") for b in response.json().get("content", [])], ["keyed"], "the answer")
    entries = upstream_log(t.marker, CHAT.path, UPSTREAM_CHAT)
    eq(len(entries), 1, "requests the upstream received")
    headers = entries[0]["headers"]
    eq(headers.get("authorization"), f"Bearer {CLIENT_KEY}", "the authorization the upstream saw")
    check("x-api-key" not in headers and "anthropic-version" not in headers, f"Anthropic's headers reached the upstream: {sorted(headers)}")


@test("body_not_json[messages]")
def _(t):
    """A body that is not JSON, or not a JSON object, on /v1/messages: a 400 in Anthropic's shape
    (which its SDKs read), whatever the upstream speaks."""
    for name in ("main", "chat-only"):
        gw = gateway(name)
        for path in (MESSAGES.path, "/v1/messages/count_tokens"):
            for content in (f"not json {t.marker}", json.dumps([t.marker])):
                response = httpx.post(gw.url + path, content=content.encode(), timeout=30,
                                      headers={"content-type": "application/json", "x-api-key": CLIENT_KEY})
                what = f"{name}: POST {path} {content[:8]!r}"
                eq(response.status_code, 400, f"{what}: status")
                body = response.json()
                eq(sorted(body), ["error", "type"], f"{what}: not Anthropic's error shape: {short(response.text)}")
                eq(body["type"], "error", f"{what}: type")
                eq(sorted(body["error"]), ["message", "type"], f"{what}: the error's fields")
                eq(body["error"]["type"], "invalid_request_error", f"{what}: the error's type")
                check(body["error"]["message"], f"{what}: empty message")
        eq(upstream_log(t.marker, upstream=gw.upstream), [], f"{name}: requests the upstream received")


@test("gateway_key[messages]")
def _(t):
    gw = gateway("key")
    turns = [{"content": "keyed"}]
    for headers, what in (({}, "no key"), ({"x-tooldef-key": "wrong-" + KEY}, "a wrong key")):
        client = gw.anthropic(default_headers=headers)
        for call in (lambda: create(MESSAGES, client, MESSAGES.start(t.marker, turns)),
                     lambda: client.messages.count_tokens(model=MODEL, messages=MESSAGES.start(t.marker, turns))):
            try:
                call()
                raise AssertionError(f"a request with {what} was accepted")
            except anthropic.AuthenticationError as error:
                eq(error.status_code, 401, f"status with {what}")
                body = error.response.json()
                eq((body.get("type"), body.get("error", {}).get("type")), ("error", "authentication_error"),
                   f"Anthropic's error shape with {what}")
                check(KEY not in json.dumps(body), "the error gives the key away")
    eq(upstream_log(t.marker), [], "requests the upstream received without the right key")
    reply = create(MESSAGES, gw.anthropic(default_headers={"x-tooldef-key": KEY}), MESSAGES.start(t.marker, turns), True)
    eq(reply.text, "keyed", "the streamed answer with the key")
    entries = upstream_log(t.marker, MESSAGES.path)
    eq(len(entries), 1, "requests the upstream received with the key")
    eq(client_key_seen(entries[0]), CLIENT_KEY, "the client's key, as the upstream saw it")
    check("x-tooldef-key" not in entries[0]["headers"], "the gateway's key reached the upstream")


# ---------------------------------------------------------------------------------------------
# 22. Anthropic's MCP connector: `mcp_toolset` tools choose the gateway's servers and their tools
# per request; the client is shown the calls as `mcp_tool_use` and `mcp_tool_result` blocks, and
# may send them back (the upstream, any model, gets `tool_use` and `tool_result`).

MCP_BETA = "mcp-client-2025-11-20"


def connector(client, stream, **args):
    """One request through the SDK's beta Messages (where the connector's parameters and blocks
    are typed): the message as a dict, checked event by event when streamed, and the SDK's own
    block objects when whole."""
    raw = client.beta.messages.with_raw_response.create(model=MODEL, max_tokens=1024, betas=[MCP_BETA], stream=stream, **args)
    parsed = raw.parse()
    if stream:
        return MESSAGES.check_events(list(parsed)), None, raw.headers
    return parsed.model_dump(exclude_none=True), parsed, raw.headers


def mcp_connector(stream, t, gw_name):
    gw = gateway(gw_name)
    spoken = wire(gw, MESSAGES)
    time_id, crash_id = f"toolu_t_{t.tag}", f"toolu_x_{t.tag}"
    turns = [
        {"content": "checking", "calls": [
            {"name": "example__get_server_time", "arguments": {}, "id": time_id},
            {"name": "example__crash", "arguments": {"message": f"boom-{t.tag}"}, "id": crash_id},
        ]},
        {"content": "time: {tool_results}"},
    ]
    # A toolset of one of the gateway's own servers needs no `mcp_servers` entry.
    tools = [{"type": "mcp_toolset", "mcp_server_name": "example"}]
    conversation = MESSAGES.start(t.marker, turns)
    message, typed, headers = connector(gw.anthropic(), stream, messages=conversation, tools=tools)
    blocks = message["content"]
    eq([b["type"] for b in blocks], ["text", "mcp_tool_use", "mcp_tool_result", "mcp_tool_use", "mcp_tool_result", "text"],
       "the message's blocks")
    if typed is not None:
        from anthropic.types.beta import BetaMCPToolResultBlock, BetaMCPToolUseBlock
        kinds = [BetaMCPToolUseBlock, BetaMCPToolResultBlock] * 2
        check(all(isinstance(b, k) for b, k in zip(typed.content[1:5], kinds)),
              f"the SDK did not parse the blocks as its MCP types: {[type(b).__name__ for b in typed.content]}")
    use, result, crash_use, crash_result = blocks[1:5]
    eq((use["id"], use["name"], use["server_name"], use["input"]), (time_id, "get_server_time", "example", {}), "the first mcp_tool_use")
    eq((result["tool_use_id"], result["is_error"]), (time_id, False), "its mcp_tool_result")
    check(content_text(result["content"]).startswith(SERVER_TIME), f"its content: {short(result['content'])}")
    eq((crash_use["id"], crash_use["name"], crash_use["server_name"], crash_use["input"]),
       (crash_id, "crash", "example", {"message": f"boom-{t.tag}"}), "the second mcp_tool_use")
    eq((crash_result["tool_use_id"], crash_result["is_error"]), (crash_id, True), "the failed call's mcp_tool_result")
    check(json_after(blocks[5]["text"], "time: ")[0].startswith(SERVER_TIME), f"the answer: {short(blocks[5]['text'])}")
    eq(message["stop_reason"], "end_turn", "stop_reason")
    eq(headers.get("x-tooldef-upstream-api"), "chat" if spoken is CHAT else None, "header x-tooldef-upstream-api")
    entries = upstream_entries(gw, MESSAGES, t.marker)
    eq(len(entries), 2, "requests the upstream received")
    for entry in entries:
        names = upstream_tool_names(spoken, entry)
        eq(sorted(names), sorted(f"example__{n}" for n in EXAMPLE_TOOLS), "the tools the upstream got (the example server's)")
        text = json.dumps(entry["body"])
        check("mcp_toolset" not in text and "mcp_tool_" not in text, "a connector's tool or block reached the upstream")

    # The conversation sent back with the blocks: the upstream gets them as its API's calls and
    # results, of the tools' injected names.
    followup = [*conversation, {"role": "assistant", "content": blocks}, {"role": "user", "content": f"thanks {t.tag}"}]
    again, _, _ = connector(gw.anthropic(), stream, messages=followup, tools=tools)
    eq([b["type"] for b in again["content"]], ["text"], "the follow-up's blocks")
    body = upstream_entries(gw, MESSAGES, t.marker)[-1]["body"]
    check("mcp_tool_" not in json.dumps(body), "an mcp_tool_use or mcp_tool_result block reached the upstream")
    calls = spoken.req_calls(body)
    eq([(c[0], c[1], json.loads(c[2])) for c in calls],
       [(time_id, "example__get_server_time", {}), (crash_id, "example__crash", {"message": f"boom-{t.tag}"})],
       "the calls, as the upstream got them back")
    eq(results_by_id(spoken, body), {time_id: content_text(result["content"]), crash_id: content_text(crash_result["content"])},
       "their results, as the upstream got them back")
    if spoken is MESSAGES:
        flags = {b["tool_use_id"]: b.get("is_error", False) for m in body["messages"] if isinstance(m.get("content"), list)
                 for b in m["content"] if b.get("type") == "tool_result"}
        eq(flags, {time_id: False, crash_id: True}, "the tool_results' is_error")


for _gw_name in ("main", "chat-only"):
    for _stream in (False, True):
        TESTS.append((f"mcp_connector[messages{'-stream' if _stream else ''}@{_gw_name}]",
                      functools.partial(mcp_connector, _stream, gw_name=_gw_name), 45))


@test("mcp_connector_configs[messages]")
def _(t):
    """A toolset's `default_config` and `configs` choose the server's tools: all but those
    disabled, or none but those enabled; the client's own tools go beside them."""
    gw = gateway("main")
    cases = (
        ({"configs": {"crash": {"enabled": False}, "sleep": {"enabled": False}}},
         sorted(f"example__{n}" for n in EXAMPLE_TOOLS - {"crash", "sleep"})),
        ({"default_config": {"enabled": False}, "configs": {"get_server_time": {"enabled": True}, "sleep": {"enabled": True}}},
         ["example__get_server_time", "example__sleep"]),
    )
    for k, (config, want) in enumerate(cases):
        marker = f"{t.marker}-{k}"
        turns = [{"calls": [{"name": "example__get_server_time", "arguments": {}, "id": f"toolu_{k}_{t.tag}"}]},
                 {"content": "tools: {tools}"}]
        toolset = {"type": "mcp_toolset", "mcp_server_name": "example", **config}
        message, _, _ = connector(gw.anthropic(), False, messages=MESSAGES.start(marker, turns),
                                  tools=[lookup_order(MESSAGES), toolset])
        eq([b["type"] for b in message["content"]], ["mcp_tool_use", "mcp_tool_result", "text"], f"{config}: the blocks")
        seen = json_after(message["content"][2]["text"], "tools: ")
        eq(seen[0], "lookup_order", f"{config}: the first tool the model saw (the client's)")
        eq(sorted(seen[1:]), want, f"{config}: the server's tools the model saw")
        for entry in upstream_log(marker, MESSAGES.path):
            eq(sorted(upstream_tool_names(MESSAGES, entry)[1:]), want, f"{config}: the server's tools the upstream got")


# ---------------------------------------------------------------------------------------------
# 23. count_tokens: the upstream's own count, with the injected tools


@test("count_tokens[messages]")
def _(t):
    gw = gateway("main")
    client = gw.anthropic()
    conversation = MESSAGES.start(t.marker, [{"content": "hi"}])
    counted = client.messages.count_tokens(model=MODEL, messages=conversation, tools=[lookup_order(MESSAGES)])
    entries = upstream_log(t.marker, "/v1/messages/count_tokens")
    eq(len(entries), 1, "count_tokens requests the upstream received")
    body = entries[0]["body"]
    eq(body.get("tools"), [lookup_order(MESSAGES), *gw.tools(MESSAGES.target)["data"]],
       "the tools counted: the client's, then the injected ones (vs /v1/tools?target=messages)")
    eq(body.get("messages"), conversation, "the messages counted")
    replayed = httpx.post(UPSTREAM + "/v1/messages/count_tokens", timeout=30,
                          content=json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode(),
                          headers={"x-api-key": CLIENT_KEY, "content-type": "application/json"})
    eq(counted.input_tokens, replayed.json()["input_tokens"], "input_tokens (the upstream's count of that body)")
    eq(client_key_seen(entries[0]), CLIENT_KEY, "the client's key, as the upstream saw it")
    eq(upstream_log(t.marker, MESSAGES.path), [], "requests to /v1/messages (counting is not a round)")
    # A toolset chooses the tools counted, as it chooses those sent.
    toolset = {"type": "mcp_toolset", "mcp_server_name": "example", "default_config": {"enabled": False},
               "configs": {"get_server_time": {"enabled": True}}}
    client.beta.messages.count_tokens(model=MODEL, messages=MESSAGES.start(t.marker + "-ts", [{"content": "hi"}]),
                                      tools=[toolset], betas=[MCP_BETA])
    body = upstream_log(t.marker + "-ts", "/v1/messages/count_tokens")[0]["body"]
    eq([tool.get("name") for tool in body.get("tools", [])], ["example__get_server_time"], "the tools counted with the toolset")


@test("count_tokens_refused[messages@chat-only]")
def _(t):
    """Over an upstream that speaks Chat Completions there is no tokenizer to count with: a 404
    in Anthropic's shape that says why."""
    for name in TRANSLATING:
        gw = gateway(name)
        try:
            gw.anthropic().messages.count_tokens(model=MODEL, messages=MESSAGES.start(t.marker, [{"content": "hi"}]))
            raise AssertionError(f"{name}: count_tokens answered")
        except anthropic.NotFoundError as error:
            eq(error.status_code, 404, f"{name}: status")
            body = error.response.json()
            eq((body.get("type"), body.get("error", {}).get("type")), ("error", "not_found_error"), f"{name}: the error")
            message = body["error"].get("message", "")
            check("count_tokens" in message and CHAT.path in message, f"{name}: the message does not say why: {message!r}")
        eq(upstream_log(t.marker, upstream=gw.upstream), [], f"{name}: requests the upstream received")


# ---------------------------------------------------------------------------------------------
# last: what the gateways wrote


@test("no_secret_in_logs")
def _(t):
    for gw in GATEWAYS.values():
        output = gw.proc.text()
        check(CLIENT_KEY not in output, f"gateway {gw.name}'s output contains the client's key {CLIENT_KEY}")
        check(KEY not in output, f"gateway {gw.name}'s output contains the gateway key")


# ---------------------------------------------------------------------------------------------


class TestTimeout(Exception):
    pass


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tooldef", help="target/debug/tooldef")
    parser.add_argument("--upstream", help="target/debug/scripted-upstream")
    parser.add_argument("--mcp-server", help="target/debug/examples/mcp_server")
    parser.add_argument("--everything", help="node_modules/.bin/mcp-server-everything")
    parser.add_argument("--corpus-server", help="target/debug/corpus-mcp-server")
    parser.add_argument("--corpus", help="tests/fixtures/corpus/github-mcp-server.tools.json")
    parser.add_argument("-k", action="append", default=[], help="run only the tests whose name contains this")
    parser.add_argument("--list", action="store_true", help="list the tests and stop")
    options = parser.parse_args()
    selected = [test for test in TESTS if not options.k or any(k in test[0] for k in options.k)]
    if options.list:
        print("\n".join(name for name, _, _ in selected))
        return 0
    for key, path in (("tooldef", options.tooldef), ("upstream", options.upstream),
                      ("mcp_server", options.mcp_server), ("everything", options.everything),
                      ("corpus_server", options.corpus_server)):
        if not path or not os.access(path, os.X_OK):
            parser.error(f"--{key.replace('_', '-')}: not an executable: {path}")
        BIN[key] = os.path.abspath(path)
    if not options.corpus or not os.path.isfile(options.corpus):
        parser.error(f"--corpus: not a file: {options.corpus}")
    BIN["corpus"] = os.path.abspath(options.corpus)

    return run_tests(selected, "python gateway client", start_everything)


def run_tests(selected, label, setup, context=None, stop=None):
    """Runs `selected` ((name, fn(ctx), seconds) each) after `setup()`: each within its time
    limit, a failure reported without stopping the others; every process started is stopped at
    the end (by `stop`, this suite's `stop_everything` unless another suite gives its own),
    whatever happens. `context(name)` makes each test's context (this suite's `Ctx` by default).
    The last line is `LABEL: N passed, M failed`; the exit status is 1 when any test failed (all
    of them, when the setup did)."""
    context = context or Ctx
    stop = stop or stop_everything

    def on_alarm(signum, frame):
        raise TestTimeout("the test's time limit ran out")

    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
    passed, failed = 0, []
    started = time.monotonic()
    try:
        setup()
        signal.signal(signal.SIGALRM, on_alarm)
        for name, fn, timeout in selected:
            t0 = time.monotonic()
            ctx = context(name)
            signal.alarm(timeout)
            try:
                fn(ctx)
                signal.alarm(0)
                passed += 1
                print(f"ok    {name} ({time.monotonic() - t0:.1f} s)", flush=True)
            except Exception as error:  # noqa: BLE001 - every failure is reported, then the next test runs
                signal.alarm(0)
                if isinstance(error, AssertionError):
                    message = str(error)
                else:
                    # The test's own line, in whichever suite's file it is.
                    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.endswith("_test.py")]
                    where = f" (line {frames[-1].lineno} of {os.path.basename(frames[-1].filename)})" if frames else ""
                    message = f"{type(error).__name__}{where}: {error}"
                if isinstance(error, TestTimeout):
                    message += f" ({timeout} s)"
                failed.append(name)
                print(f"FAIL  {name} ({time.monotonic() - t0:.1f} s): {message}", flush=True)
            for note in ctx.notes:
                print(f"      {note}", flush=True)
    except Exception as error:  # noqa: BLE001 - the setup failed: every test did
        print(f"FAIL  setup: {type(error).__name__}: {error}", flush=True)
        failed.extend(name for name, _, _ in selected if name not in failed)
        passed = 0
    finally:
        signal.alarm(0)
        stop()
    if failed:
        print("failed: " + " ".join(failed))
    print(f"{label}: {passed} passed, {len(failed)} failed ({time.monotonic() - started:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
