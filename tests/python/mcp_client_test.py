"""The mcp_server example driven by the official MCP Python SDK client, 1.x or 2.x.

usage: python mcp_client_test.py [--transport stdio|http] [--timeout SECONDS] MCP_SERVER_BINARY

Checks what a Python MCP client sees: every tool listed validates as `mcp.types.Tool`, tools
with an output schema return structuredContent (the SDK's ClientSession validates it against
the schema itself) and text that says the same, bad calls get the right answers, and the server
keeps serving, under 100 concurrent calls too; and `delete_files`, which asks the user to confirm
(MCP elicitation), is answered through the SDK's `elicitation_callback`: accepted, declined and
cancelled (on 2025-11-25 the server's `elicitation/create` reaches the callback; on 2026-07-28 an
`input_required` result does, and the SDK sends the call again with the answer); the conformance
suite's tools that ask (`--conformance-asking`) reach the SDK's `sampling_callback`
(`test_sampling`, answered by the "model" below) and `elicitation_callback` with forms of
defaults (SEP-1034) and every kind of choice (SEP-1330), which the SDK's own models read. The suite runs through `ClientSession` (both
majors), which speaks the 2025 protocol (the `initialize` handshake, 2025-11-25), and with the 2.x
SDK again through the high-level `mcp.Client` in its default `mode="auto"`: it probes
`server/discover` and, the server answering it, speaks the 2026-07-28 protocol.

`--transport stdio` (the default) has the SDK start the server as a subprocess; `--transport
http` starts `mcp_server --test-tools --mcp-features --conformance-asking --http 127.0.0.1:0 --bearer-token TOKEN`, reads the URL it
prints on stderr, connects over Streamable HTTP with the token and stops the server at the end,
whatever happens. Nothing waits forever: every request has a time limit, and so has the run.

Prints one line, `python mcp client (mcp VERSION, TRANSPORT): N passed, M failed (...)`, and on a
failure the server's stderr; exits 1 on the first failed check (it stops there: later checks
would mostly repeat the first failure).
"""

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from importlib.metadata import version

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

MCP_VERSION = version("mcp")
MAJOR = int(MCP_VERSION.split(".")[0])

# --- Compatibility shims between the SDK's majors (1.x: `mcp>=1.29,<2`; 2.x: `mcp>=2,<3`) ---------

if MAJOR >= 2:
    # 2.x renamed McpError to MCPError (`.error.code` / `.error.message` still work on both).
    import httpx2 as httpx  # 2.x moved from httpx to httpx2; streamable_http_client wants its types.
    from mcp.shared.exceptions import MCPError

    # 2.x timeouts are float seconds; a timedelta would only fail once a request arms it.
    REQUEST_TIMEOUT = 30.0
else:
    import httpx
    from mcp.shared.exceptions import McpError as MCPError

    REQUEST_TIMEOUT = timedelta(seconds=30)


def field(model, camel):
    """A protocol model's field: 2.x models expose snake_case attributes only (`is_error`,
    `structured_content`, `input_schema`, `output_schema`), 1.x the wire's camelCase names."""
    if MAJOR >= 2:
        return getattr(model, re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower())
    return getattr(model, camel)


@contextlib.asynccontextmanager
async def http_streams(url, token, seen):
    """Streamable HTTP streams, sending `Authorization: Bearer TOKEN`. `streamable_http_client`
    yields (read, write, get_session_id) in 1.x and (read, write) in 2.x; the session id is taken
    from the responses' headers instead, through an event hook, which both majors' http clients
    support: `seen["session_ids"]` gets every Mcp-Session-Id, `seen["delete"]` the status of the
    DELETE that ends the session. Headers go on the http client in both (2.x has no other way).
    The timeouts are those the SDKs' own default http client uses."""

    async def capture(response):
        if "mcp-session-id" in response.headers:
            seen["session_ids"].add(response.headers["mcp-session-id"])
        if response.request.method == "DELETE":
            seen["delete"].append(response.status_code)

    async with httpx.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx.Timeout(30, read=300),
        event_hooks={"response": [capture]},
    ) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            yield streams[0], streams[1]


class AcceptedIsNotAFailure(logging.Filter):
    """Both majors log `Session termination failed: 202` when the DELETE that ends a session is
    answered 202 Accepted, as rmcp answers it: they expect 200 or 204, the spec names no status
    (only 405 for a server that does not let clients end sessions). run() checks the status
    itself; this keeps the warning that would read as a failure out of the log."""

    def filter(self, record):
        return record.getMessage() != "Session termination failed: 202"


logging.getLogger("mcp.client.streamable_http").addFilter(AcceptedIsNotAFailure())


# --- The checks ----------------------------------------------------------------------------------

VALID_CALLS = {
    "get_server_time": {},
    "get_weather": {"city": "Lisbon", "days": 2},
    "convert_currency": {"amount": 10, "from": "EUR", "to": "USD", "round_to": 2},
    "search_flights": {"origin": "LIS", "destination": "JFK", "departureDate": "2026-12-01"},
    "book_hotel": {
        "hotel_id": "h1",
        "guest": {"name": "Ada", "email": "ada@example.com"},
        "check_in": "2026-12-01",
        "nights": 2,
    },
    "plan_itinerary": {"stops": [{"city": "Porto", "nights": 2}], "pace": None},
    "set_reminder": {"text": "Pack", "schedule": {"kind": "daily", "hour": 8, "minute": 0}},
    "send_agent_message": {"to": "agent@example.com", "subject": "Hi", "body": "Hello"},
    "cancel_booking": {"reference": "BK-h1-2"},
}

# The showcase's 9, the test tools' 2 (--test-tools), the MCP features' 4 (--mcp-features, with
# the travel desk's prompts and resources) and the conformance suite's asking tools
# (--conformance-asking).
SERVER_ARGS = ["--test-tools", "--mcp-features", "--conformance-asking"]
TOOL_COUNT = 19

checks = 0


class User:
    """The user behind the SDK's `elicitation_callback`: answers with the next of `answers`
    (accept, decline or cancel) and keeps what it was asked. Accepting, it fills the form in as
    a hurried user does: each field's default, else its first choice (`confirm` said yes)."""

    def __init__(self):
        self.answers = []
        self.asked = []

    async def __call__(self, context, params):
        form = field(params, "requestedSchema")
        self.asked.append((params.message, form))
        action = self.answers.pop(0)
        if action == "accept":
            return types.ElicitResult(action="accept", content=filled_in(form))
        return types.ElicitResult(action=action)


def filled_in(form):
    """The form's values: `confirm` true, else each field's default or first choice."""
    values = {}
    for name, schema in form["properties"].items():
        if name == "confirm":
            values[name] = True
        elif "default" in schema:
            values[name] = schema["default"]
        elif "enum" in schema:
            values[name] = schema["enum"][0]
        elif "oneOf" in schema:
            values[name] = schema["oneOf"][0]["const"]
        elif schema.get("type") == "array":
            items = schema["items"]
            values[name] = [items["enum"][0] if "enum" in items else items["anyOf"][0]["const"]]
        else:
            values[name] = "x"
    return values


USER = User()


class Model:
    """The client's model behind the SDK's `sampling_callback`: replies "you said …" to the
    last message, and keeps each request's `maxTokens` and text."""

    def __init__(self):
        self.asked = []

    async def __call__(self, context, params):
        content = params.messages[-1].content
        blocks = content if isinstance(content, list) else [content]
        said = " ".join(block.text for block in blocks if block.type == "text")
        self.asked.append((field(params, "maxTokens"), said))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"you said {said}"),
            model="python-model",
        )


MODEL = Model()


def check(condition, message):
    global checks
    checks += 1
    if not condition:
        raise AssertionError(message)


def text_of(result):
    return " ".join(block.text for block in result.content if block.type == "text")


def says(text, value):
    """Whether a text block says `value`: a string as its own text, anything else as JSON."""
    if isinstance(value, str):
        return text == value
    try:
        return json.loads(text) == value
    except ValueError:
        return False


async def exercise(session, era):
    """The suite proper, on a connected session (a `ClientSession`, or 2.x's `Client`) that
    negotiated protocol version `era`; the same for every transport and major."""
    handshake_era = era < "2026-07-28"
    listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    check(len(tools) == TOOL_COUNT, f"expected {TOOL_COUNT} tools, got {sorted(tools)}")
    for tool in listed.tools:
        # Round-trip through the SDK's own model: every field must be one it accepts.
        again = types.Tool.model_validate(tool.model_dump(by_alias=True, exclude_none=True))
        check(field(again, "inputSchema").get("type") == "object", f"{tool.name}: inputSchema is not an object")
        if field(tool, "outputSchema") is not None and handshake_era:
            # Up to 2025-11-25 an output schema's root must be an object; from 2026-07-28 on it
            # may be any schema (and structuredContent any JSON value).
            check(field(tool, "outputSchema").get("type") == "object", f"{tool.name}: outputSchema is not an object")

    for name, arguments in VALID_CALLS.items():
        result = await session.call_tool(name, arguments)
        check(not field(result, "isError"), f"{name}: {text_of(result)}")
        output_schema = field(tools[name], "outputSchema")
        if output_schema is not None:
            structured = field(result, "structuredContent")
            check(structured is not None, f"{name}: no structuredContent")
            if handshake_era and output_schema.get("x-fastmcp-wrap-result"):
                # A value that is not an object goes out as {"result": value} before 2026-07-28,
                # with the value's own text beside it, as the SDK's own MCPServer does.
                check(list(structured) == ["result"], f"{name}: wrapped as {structured}")
                structured = structured["result"]
            check(says(text_of(result), structured), f"{name}: text {text_of(result)!r} is not {structured!r}")

    result = await session.call_tool("get_weather", {"city": "Lisbon", "days": "three"})
    check(field(result, "isError"), "wrong argument type accepted")
    check("/days" in text_of(result), text_of(result))

    try:
        await session.call_tool("get_wether", {})
        check(False, "unknown tool answered")
    except MCPError as error:
        check(error.error.code == -32602, f"unknown tool: code {error.error.code}")
        check("get_weather" in error.error.message, error.error.message)

    result = await session.call_tool("crash", {"message": "boom"})
    check(field(result, "isError") and "boom" not in text_of(result), text_of(result))

    results = await asyncio.gather(
        *(session.call_tool("get_weather", {"city": f"City {i}", "days": i % 14 + 1}) for i in range(100))
    )
    for i, result in enumerate(results):
        structured = field(result, "structuredContent")
        check(structured["city"] == f"City {i}", f"call {i} got {structured}")
        check(len(structured["days"]) == i % 14 + 1, f"call {i}: wrong number of days")

    # Elicitation: the tool asks, the SDK's callback answers, the tool goes on with the answer.
    for answer, said in [
        ("accept", "deleted 3 files in /tmp/old"),
        ("decline", "kept the files in /tmp/old: the user declined"),
        ("cancel", "kept the files in /tmp/old: the user cancelled"),
    ]:
        USER.answers, USER.asked = [answer], []
        result = await session.call_tool("delete_files", {"folder": "/tmp/old", "count": 3})
        check(not field(result, "isError"), f"delete_files ({answer}): {text_of(result)}")
        check(text_of(result) == said, f"delete_files ({answer}): {text_of(result)!r}")
        check(len(USER.asked) == 1, f"asked {len(USER.asked)} times")
        message, form = USER.asked[0]
        check(message == "Delete 3 files in /tmp/old?", f"asked {message!r}")
        check(form["properties"]["confirm"]["type"] == "boolean", f"the form: {form}")
        check(form.get("required") == ["confirm"], f"the form: {form}")

    # Sampling: the tool asks the client's model through the SDK's callback.
    MODEL.asked = []
    result = await session.call_tool("test_sampling", {"prompt": "Hello from Python"})
    check(not field(result, "isError"), f"test_sampling: {text_of(result)}")
    check(text_of(result) == "LLM response: you said Hello from Python", f"test_sampling: {text_of(result)!r}")
    check(MODEL.asked == [(100, "Hello from Python")], f"the model was asked {MODEL.asked}")

    # Forms with defaults (SEP-1034) and every kind of choice (SEP-1330), read by the SDK's models.
    USER.answers, USER.asked = ["accept"], []
    result = await session.call_tool("test_elicitation_sep1034_defaults", {})
    check(not field(result, "isError"), f"sep1034: {text_of(result)}")
    _, form = USER.asked[0]
    defaults = {name: schema.get("default") for name, schema in form["properties"].items()}
    check(
        defaults == {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True},
        f"the defaults: {defaults}",
    )
    check(
        text_of(result)
        == 'Elicitation completed: action=accept, content={"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}',
        f"sep1034: {text_of(result)!r}",
    )
    USER.answers, USER.asked = ["accept"], []
    result = await session.call_tool("test_elicitation_sep1330_enums", {})
    check(not field(result, "isError"), f"sep1330: {text_of(result)}")
    _, form = USER.asked[0]
    check(form["properties"]["legacyEnum"].get("enumNames") == ["Option One", "Option Two", "Option Three"], f"the form: {form}")
    check("anyOf" in form["properties"]["titledMulti"]["items"], f"the form: {form}")
    check(
        text_of(result)
        == 'Elicitation completed: action=accept, content={"untitledSingle":"option1","titledSingle":"value1",'
        '"legacyEnum":"opt1","untitledMulti":["option1"],"titledMulti":["value1"]}',
        f"sep1330: {text_of(result)!r}",
    )

    # A `#[tool(task)]` tool, for a client that does not declare the tasks extension: it runs
    # as a plain call.
    result = await session.call_tool("build_report", {"pages": 2, "millis_per_page": 10})
    check(field(result, "structuredContent") == {"pages": 2}, f"build_report: {text_of(result)}")

    # Icons, _meta and x-mcp-header reach the SDK's models as the tool declares them.
    price = tools["regional_price"]
    icons = [icon.model_dump(by_alias=True, exclude_none=True) for icon in price.icons]
    check(
        [icon["src"] for icon in icons] == ["https://example.com/icons/price.png", "https://example.com/icons/price-dark.svg"],
        f"icons: {icons}",
    )
    check([icon.get("theme") for icon in icons] == ["light", "dark"], f"icons: {icons}")
    check(field(price, "meta")["com.example/team"] == "pricing", f"_meta: {field(price, 'meta')}")
    check(field(price, "inputSchema")["properties"]["region"]["x-mcp-header"] == "Region", "x-mcp-header")
    result = await session.call_tool("regional_price", {"region": "eu-west", "product": "p1"})
    check(text_of(result) == "p1 costs 10 EUR in eu-west", text_of(result))

    await prompts_and_resources(session)

    result = await session.call_tool("get_server_time", {})
    check(not field(result, "isError"), "the server stopped serving")


async def prompts_and_resources(session):
    """The travel desk's prompts, resources and completions, through the SDK's own models."""
    prompts = {prompt.name: prompt for prompt in (await session.list_prompts()).prompts}
    check(sorted(prompts) == ["cancellation_help", "plan_trip"], f"prompts: {sorted(prompts)}")
    plan = prompts["plan_trip"]
    check(plan.title == "Plan a trip", f"title: {plan.title}")
    arguments = [(a.name, a.required) for a in plan.arguments]
    check(arguments == [("city", True), ("days", False)], f"arguments: {arguments}")
    got = await session.get_prompt("plan_trip", {"city": "Lisbon", "days": "5"})
    check([m.role for m in got.messages] == ["user", "assistant"], f"roles: {got.messages}")
    check(got.messages[0].content.text.startswith("Plan a 5-day trip to Lisbon."), got.messages[0].content.text)
    help = await session.get_prompt("cancellation_help", {})
    embedded = help.messages[1].content
    check(embedded.type == "resource" and str(embedded.resource.uri) == "travel://rules/cancellations", f"{embedded}")
    try:
        await session.get_prompt("plan_trip", {"city": "Lisbon", "days": "five"})
        check(False, "days=five accepted")
    except Exception as error:  # the SDK raises McpError
        check(getattr(error, "error", None) is not None and error.error.code == -32602, f"days=five: {error!r}")
        check('argument `days`: "five" is not valid here' in str(error), str(error))

    resources = (await session.list_resources()).resources
    check([str(r.uri) for r in resources] == ["travel://airports"], f"resources: {resources}")
    check(field(resources[0], "mimeType") == "application/json", f"{resources[0]}")
    templates = field(await session.list_resource_templates(), "resourceTemplates")
    uris = [field(t, "uriTemplate") for t in templates]
    check(uris == ["travel://guides/{city}", "travel://maps/{city}.png"], f"{templates}")
    read = await session.read_resource("travel://guides/Porto")
    check(read.contents[0].text.startswith("# Porto"), f"{read.contents}")
    check(field(read.contents[0], "mimeType") == "text/markdown", f"{read.contents}")
    read = await session.read_resource("travel://maps/Lyon.png")
    check(read.contents[0].blob == "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==", f"{read.contents}")

    completed = await session.complete(
        types.PromptReference(type="ref/prompt", name="plan_trip"), {"name": "city", "value": "Lo"}
    )
    check(completed.completion.values == ["London"], f"completion: {completed.completion}")
    completed = await session.complete(
        types.ResourceTemplateReference(type="ref/resource", uri="travel://guides/{city}"),
        {"name": "city", "value": "p"},
    )
    check(completed.completion.values == ["Paris", "Porto"], f"completion: {completed.completion}")


async def lowlevel(streams):
    """`ClientSession`, which both majors have: the `initialize` handshake, 2025 protocol era."""
    read, write = streams
    async with ClientSession(
        read, write, read_timeout_seconds=REQUEST_TIMEOUT, elicitation_callback=USER, sampling_callback=MODEL
    ) as session:
        initialized = await session.initialize()
        negotiated = field(initialized, "protocolVersion")
        check(initialized.capabilities.tools is not None, "the server does not declare tools")
        await exercise(session, negotiated)
    return negotiated


async def high_level(transport):
    """2.x only: `mcp.Client`, the SDK's recommended entry point, in its default mode="auto": it
    probes `server/discover` (2026-07-28 protocol era) and falls back to `initialize` where the
    server does not answer it (mcp/client/_probe.py). The same suite, through it."""
    from mcp import Client

    async with Client(
        transport, read_timeout_seconds=REQUEST_TIMEOUT, elicitation_callback=USER, sampling_callback=MODEL
    ) as client:
        negotiated = client.protocol_version
        check(client.server_capabilities.tools is not None, "the server does not declare tools")
        await exercise(client, negotiated)
    return negotiated


async def start_http_server(binary, token, log):
    """Starts `binary SERVER_ARGS --http 127.0.0.1:0 --bearer-token TOKEN` and returns (process,
    url), the URL read from the line the server prints on stderr once it listens; stops it if it
    never says."""
    process = subprocess.Popen(
        [binary, *SERVER_ARGS, "--http", "127.0.0.1:0", f"--bearer-token={token}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
        env={name: value for name, value in os.environ.items() if name != "MCP_BEARER_TOKEN"},
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open(log.name) as seen:
                found = re.search(r"over Streamable HTTP at (http://\S+)", seen.read())
            if found:
                return process, found.group(1)
            if process.poll() is not None:
                raise RuntimeError(f"the server exited with status {process.returncode} before listening")
            await asyncio.sleep(0.05)
        raise RuntimeError("the server printed no URL within 30 s")
    except BaseException:
        stop(process)
        raise


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def run(transport, binary, log):
    """Returns the protocol versions negotiated, one per client."""
    if transport == "stdio":
        params = StdioServerParameters(command=binary, args=SERVER_ARGS)
        async with stdio_client(params, errlog=log) as streams:
            versions = [await lowlevel(streams[:2])]
        if MAJOR >= 2:
            versions.append(await high_level(stdio_client(params, errlog=log)))
        return versions

    token = secrets.token_urlsafe(16)
    process, url = await start_http_server(binary, token, log)
    try:
        seen = {"session_ids": set(), "delete": []}
        async with http_streams(url, token, seen) as streams:
            versions = [await lowlevel(streams)]
        check(len(seen["session_ids"]) == 1, f"expected one Mcp-Session-Id, got {seen['session_ids']}")
        check(seen["delete"] in ([200], [202], [204]), f"the session's DELETE was answered {seen['delete']}")
        if MAJOR >= 2:
            modern = {"session_ids": set(), "delete": []}
            versions.append(await high_level(http_streams(url, token, modern)))
            if versions[-1] >= "2026-07-28":
                # Sessions are gone from the 2026-07-28 protocol: nothing to end.
                check(not modern["session_ids"], f"a 2026-07-28 connection got {modern['session_ids']}")
        check(process.poll() is None, "the server exited")
        return versions
    finally:
        stop(process)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--timeout", type=float, default=120, help="time limit for the whole run, seconds")
    parser.add_argument("binary", help="the mcp_server example")
    args = parser.parse_args()
    label = f"python mcp client (mcp {MCP_VERSION}, {args.transport})"

    # The server's stderr goes to a file, shown only when something fails.
    with tempfile.NamedTemporaryFile("w+", prefix="mcp_server-", suffix=".log") as log:
        failure, passed = None, None
        started = time.monotonic()
        try:
            versions = asyncio.run(asyncio.wait_for(run(args.transport, args.binary, log), args.timeout))
        except Exception as error:  # noqa: BLE001 -- every failure is reported, as what it is
            # The SDKs run sessions in task groups, which wrap what is raised inside them (2.x
            # does for a failed check too): report the innermost error.
            # (BaseExceptionGroup is a builtin from Python 3.11 on; the SDKs support 3.10.)
            while len(getattr(error, "exceptions", ())) == 1:
                error = error.exceptions[0]
            if isinstance(error, AssertionError):  # a check failed: the last one counted
                failure, passed = str(error), checks - 1
            elif isinstance(error, asyncio.TimeoutError):
                failure = f"timed out after {args.timeout:g} s"
            else:
                failure = f"{type(error).__name__}: {error}"
        if failure is None:
            clients = ["ClientSession"] + (["Client(mode='auto')"] if MAJOR >= 2 else [])
            eras = ", ".join(f"{client} at {v}" for client, v in zip(clients, versions))
            print(f"{label}: {checks} passed, 0 failed ({eras}; {time.monotonic() - started:.1f} s)")
            return 0
        if passed is None:
            passed = checks
        print(f"{label}: FAILED: {failure}")
        log.seek(0)
        server_log = log.read().strip()
        if server_log:
            print(f"{label}: the server's stderr:\n{server_log}")
        print(f"{label}: {passed} passed, 1 failed")
        return 1


if __name__ == "__main__":
    sys.exit(main())
