"""Several `tooldef gateway` instances on one Redis store, driven by the official OpenAI Python SDK.

usage: python gateway_store_test.py --tooldef BIN --upstream BIN --mcp-server BIN [-k TEXT]... [--list]

Every process is real: a `redis-server` that writes every acknowledged command to its append-only
file before answering (`--appendonly yes --appendfsync always`), the scripted upstream, the
mcp_server example, and two gateways (A and B) sharing `--store redis://…`. A conversation whose
reply mixes the client's call with an injected one starts on A and is followed up on B, on both
APIs, stateless and through `previous_response_id`. Then Redis is killed: what needs the store is
answered 503 `store_unavailable` (or ends its stream with that error), what does not still
succeeds; and once Redis is back, the follow-ups of turns acknowledged before it went down complete.

The helpers (processes, the SDK wrapped per API, the upstream's record) are gateway_test.py's. The
tests run in order (later ones use what earlier ones kept); the last line is
`python gateway store: N passed, M failed`, and the exit status is 1 when any test failed.
"""

import argparse
import os
import signal
import sys
import tempfile
import time

import openai

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gateway_test as gt  # noqa: E402 - beside this file
from gateway_test import CHAT, MODEL, RESPONSES, Ctx, check, create, eq, json_after, lookup_order, short  # noqa: E402

TESTS = []  # (name, function, timeout seconds), run in this order
REDIS = None  # the Redis the gateways share
GW = {}  # "a", "b" (sharing Redis), "m1", "m2" (each in its own memory)
# Turns acknowledged before Redis went down, whose follow-ups are sent once it is back.
ACKNOWLEDGED = {}


def test(name, timeout=45):
    def register(fn):
        TESTS.append((name, fn, timeout))
        return fn

    return register


class Redis:
    """A redis-server on a port of its own, keeping what it acknowledged in `directory`."""

    def __init__(self, directory):
        self.port = gt.free_port()
        self.directory = directory
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = None

    def start(self):
        self.proc = gt.Proc("redis-server", [
            "redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.directory,
            "--save", "", "--appendonly", "yes", "--appendfsync", "always",
        ])
        self.proc.wait_for(r"Ready to accept connections", 30)

    def kill(self):
        """SIGKILL: no chance to write anything it had not written when it answered."""
        self.proc.popen.kill()
        self.proc.popen.wait(10)


def start_everything():
    global REDIS
    upstream = gt.Proc("scripted-upstream", [gt.BIN["upstream"], "--listen", "127.0.0.1:0"])
    gt.UPSTREAM = upstream.wait_for(r"listening on (http://\S+)", 60, "stdout").group(1).rstrip("/")
    REDIS = Redis(tempfile.mkdtemp(prefix="tooldef-redis-"))
    REDIS.start()
    example = gt.mcp("example", gt.BIN["mcp_server"])
    for name in ("a", "b"):
        GW[name] = gt.Gateway(f"{name} (redis)", [*example, "--store", REDIS.url])
    for name in ("m1", "m2"):
        GW[name] = gt.Gateway(f"{name} (memory)", example)
    for gw in GW.values():
        gw.wait_ready(90)


def mixed_turns(t):
    """The script of a reply that calls an injected tool and the client's, then an answer."""
    ids = {"injected": f"call_w_{t.tag}", "client": f"call_lo_{t.tag}"}
    weather = {"city": f"Porto-{t.tag}", "days": 2, "units": None, "include_hourly": None}
    turns = [
        {"calls": [
            {"name": "example__get_weather", "arguments": weather, "id": ids["injected"]},
            {"name": "lookup_order", "arguments_raw": '{"order_id": "B-%s"}' % t.tag, "id": ids["client"]},
        ]},
        {"content": "final: {tool_results}"},
    ]
    return ids, turns


def first_turn(api, gw, t, stream):
    """The mixed reply, from `gw`: the client gets its own call only."""
    ids, turns = mixed_turns(t)
    conversation = api.start(t.marker, turns)
    first = create(api, gw.client(), conversation, stream, tools=[lookup_order(api)])
    eq([call[0] for call in first.calls], [ids["client"]], "the calls the client got")
    return {"api": api, "ids": ids, "conversation": conversation, "first": first, "marker": t.marker, "tag": t.tag}


def follow_up(turn, gw, stream, previous, **kw):
    """The client's answer to its call, sent to `gw`."""
    api, first = turn["api"], turn["first"]
    output = f"order B-{turn['tag']} shipped ({turn['marker']})"
    tools = [lookup_order(api)]
    if previous:
        return output, create(api, gw.client(**kw), api.output_items({turn["ids"]["client"]: output}), stream,
                              tools=tools, previous_response_id=first.id)
    return output, create(api, gw.client(**kw), api.extend(turn["conversation"], first, {turn["ids"]["client"]: output}),
                          stream, tools=tools)


def check_completed(turn, output, reply, previous):
    """The follow-up's answer read both results, and the upstream got the conversation the model had."""
    api, ids = turn["api"], turn["ids"]
    eq(reply.calls, [], "calls in the answer to the follow-up")
    results = json_after(reply.text, "final: ")
    check(output in results, f"the client's result is not among those the model read: {short(results)}")
    check(any(f"Porto-{turn['tag']}" in r for r in results), f"the injected call's result is not among those the model read: {short(results)}")
    entries = gt.upstream_log(turn["marker"], api.path)
    body = entries[-1]["body"]
    if previous:
        # The upstream holds the calls; the injected one's output, kept, comes with the client's.
        check(body.get("previous_response_id"), "the follow-up reached the upstream without previous_response_id")
    else:
        eq([call[0] for call in api.req_calls(body)], [ids["injected"], ids["client"]],
           "the calls of the turn, as the upstream got them back")
    results = gt.results_by_id(api, body)
    eq(sorted(results), sorted(ids.values()), "the results the upstream got")
    eq(results[ids["client"]], output, "the client's result")


def expect_store_error(fn, what):
    """`fn` is answered 503 store_unavailable, soon, with a message that says why and what to do."""
    started = time.monotonic()
    try:
        fn()
    except openai.InternalServerError as error:
        elapsed = time.monotonic() - started
        eq(error.status_code, 503, f"{what}: status")
        body = error.body if isinstance(error.body, dict) else {}
        eq((body.get("type"), body.get("code"), body.get("param")), ("server_error", "store_unavailable", None),
           f"{what}: the error's type, code and param")
        message = str(body.get("message"))
        check(REDIS.url in message and "Retry later" in message and "cannot be reached" in message,
              f"{what}: the message does not say which store, why and what to do: {message!r}")
        check(elapsed < 6, f"{what}: the 503 took {elapsed:.1f} s (a store that is down must not hold requests)")
        return message
    raise AssertionError(f"{what}: succeeded while the store was down")


# ---------------------------------------------------------------------------------------------
# 1. one conversation, two instances


def across(api, stream, previous):
    def run(t):
        turn = first_turn(api, GW["a"], t, stream)
        output, reply = follow_up(turn, GW["b"], stream, previous)
        check_completed(turn, output, reply, previous)

    return run


for _api, _previous in ((CHAT, False), (RESPONSES, False), (RESPONSES, True)):
    for _stream in (False, True):
        _name = "follow_up_on_another_instance[{}{}{}]".format(
            _api.name, "-previous_response_id" if _previous else "", "-stream" if _stream else "")
        TESTS.append((_name, lambda t, f=across(_api, _stream, _previous): f(t), 45))


@test("approval_on_another_instance[responses-previous_response_id]")
def _(t):
    """An approval request shown by A, answered through previous_response_id on B: B finds the
    waiting call in the store and runs it."""
    call_id = f"call_ap_{t.tag}"
    turns = [{"calls": [{"name": "example__get_server_time", "arguments": {}, "id": call_id}]},
             {"content": "after: {tool_results}"}]
    tools = [{"type": "mcp", "server_label": "example", "allowed_tools": ["get_server_time"], "require_approval": "always"}]
    first = GW["a"].client().responses.create(model=MODEL, input=RESPONSES.start(t.marker, turns), tools=tools)
    eq([item.type for item in first.output], ["mcp_list_tools", "mcp_approval_request"], "A's output")
    answer = {"type": "mcp_approval_response", "approval_request_id": first.output[1].id, "approve": True}
    second = GW["b"].client().responses.create(model=MODEL, input=[answer], tools=tools, previous_response_id=first.id)
    eq([item.type for item in second.output], ["mcp_call", "message"], "B's output")
    eq((second.output[0].status, second.output[0].name), ("completed", "get_server_time"), "the call B ran")
    check(gt.SERVER_TIME in second.output[1].content[0].text, f"the answer: {second.output[1].content[0].text!r}")


@test("control: instances in their own memory do not share the turn")
def _(t):
    # What the shared store is for: without it, B sends the client's turn as the client wrote it.
    turn = first_turn(CHAT, GW["m1"], t, False)
    _, reply = follow_up(turn, GW["m2"], False, False)
    body = gt.upstream_log(t.marker, CHAT.path)[-1]["body"]
    eq([call[0] for call in CHAT.req_calls(body)], [turn["ids"]["client"]], "the calls the upstream got back from m2")
    check(f"Porto-{t.tag}" not in reply.text, "m2 completed a turn it could not know")


# ---------------------------------------------------------------------------------------------
# 2. Redis goes down and comes back


@test("turns acknowledged before Redis goes down")
def _(t):
    for name, api, previous in (("chat", CHAT, False), ("responses", RESPONSES, False),
                                ("responses-previous_response_id", RESPONSES, True)):
        sub = Ctx(f"{t.name}-{name}")
        ACKNOWLEDGED[name] = (first_turn(api, GW["a"], sub, False), previous)


@test("Redis stalled: a follow-up is 503 once the store's timeout runs out, not held")
def _(t):
    check(ACKNOWLEDGED, "no turn was acknowledged before (run the tests in order)")
    turn, previous = ACKNOWLEDGED["chat"]
    # SIGSTOP: the connection stays open and nothing answers, as with a Redis lost in the network.
    os.kill(REDIS.proc.popen.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        message = expect_store_error(lambda: follow_up(turn, GW["b"], False, previous), "the follow-up [chat]")
        elapsed = time.monotonic() - started
    finally:
        os.kill(REDIS.proc.popen.pid, signal.SIGCONT)
    check("no answer within 2 s" in message, f"the message does not say the store did not answer: {message!r}")
    check(1.5 < elapsed < 4, f"the 503 came after {elapsed:.1f} s, not after the store's 2 s")


@test("Redis killed: a follow-up is 503 store_unavailable, soon")
def _(t):
    check(ACKNOWLEDGED, "no turn was acknowledged before (run the tests in order)")
    REDIS.kill()
    for name, (turn, previous) in ACKNOWLEDGED.items():
        message = expect_store_error(lambda: follow_up(turn, GW["b"], False, previous), f"the follow-up [{name}]")
    t.note(f"message: {message}")
    # Nothing went to the upstream: it has the first turn of each conversation only.
    for name, (turn, _) in ACKNOWLEDGED.items():
        eq(len(gt.upstream_log(turn["marker"], turn["api"].path)), 1, f"requests the upstream received [{name}]")


@test("Redis down: requests that need no store succeed")
def _(t):
    # Injected calls only (Chat keeps nothing for them).
    turns = [{"calls": [{"name": "example__get_server_time", "arguments": {}}]}, {"content": "time: {tool_results}"}]
    for stream in (False, True):
        reply = create(CHAT, GW["b"].client(), CHAT.start(t.marker, turns), stream)
        check(gt.SERVER_TIME in reply.text, f"the answer [chat{'-stream' if stream else ''}]: {reply.text!r}")
    # One round: the response's id is the upstream's own, nothing to keep.
    reply = create(RESPONSES, GW["b"].client(), RESPONSES.start(t.marker, [{"content": "plain"}]))
    eq(reply.text, "plain", "a Responses answer without tool calls")
    # Several rounds, with `store: false`: no previous_response_id can name it, nothing to keep.
    reply = create(RESPONSES, GW["b"].client(), RESPONSES.start(t.marker, turns), store=False)
    check(gt.SERVER_TIME in reply.text, f"a Responses answer with store: false: {reply.text!r}")
    # Tool calls of earlier turns only: sent as the client wrote them, and the answer says so.
    ids, mixed = mixed_turns(t)
    earlier = [
        *CHAT.start(t.marker, [{"content": "again"}]),
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": ids["client"], "type": "function", "function": {"name": "lookup_order", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": ids["client"], "content": "shipped"},
        {"role": "assistant", "content": "It shipped."},
        {"role": "user", "content": "Thanks. " + gt.user_text(t.marker + "x", [{"content": "welcome"}])},
    ]
    reply = create(CHAT, GW["b"].client(), earlier, tools=[lookup_order(CHAT)])
    eq(reply.text, "welcome", "the answer to a conversation with earlier tool calls")
    eq(reply.headers.get("x-tooldef-store"), "unavailable", "header x-tooldef-store")


@test("Redis down: a mixed turn is not given to the client")
def _(t):
    # Whole: 503 in place of the turn.
    for api in (CHAT, RESPONSES):
        _, turns = mixed_turns(t)
        expect_store_error(
            lambda: create(api, GW["a"].client(), api.start(f"{t.marker}{api.name}", turns), tools=[lookup_order(api)]),
            f"a mixed turn [{api.name}]")
    # Streamed: the stream started, and ends with the error instead of the turn's end.
    _, turns = mixed_turns(t)
    try:
        chunks = list(GW["a"].client().chat.completions.create(
            model=MODEL, messages=CHAT.start(t.marker + "cs", turns), tools=[lookup_order(CHAT)], stream=True))
        raise AssertionError(f"the stream ended without an error: {short([c.model_dump() for c in chunks[-2:]])}")
    except openai.APIError as error:
        check(not isinstance(error, openai.APIStatusError), f"not an error inside the stream: {error!r}")
        eq((error.body or {}).get("code"), "store_unavailable", "the code of the stream's error")
        check(REDIS.url in error.message, f"the stream's error: {error.message!r}")
    events = list(GW["a"].client().responses.create(
        model=MODEL, input=RESPONSES.start(t.marker + "rs", turns), tools=[lookup_order(RESPONSES)], stream=True))
    types = [event.type for event in events]
    eq(types[-1], "error", "the last event of the Responses stream")
    check("response.completed" not in types, f"the stream completed: {types}")
    eq(events[-1].code, "store_unavailable", "the error event's code")
    check(REDIS.url in events[-1].message and "Retry later" in events[-1].message, f"the error event: {events[-1].message!r}")
    numbers = [event.sequence_number for event in events]
    eq(numbers, sorted(set(numbers)), "the stream's sequence numbers")


@test("Redis back: the follow-ups of turns acknowledged before it went down complete")
def _(t):
    REDIS.start()
    for name, (turn, previous) in ACKNOWLEDGED.items():
        try:
            output, reply = follow_up(turn, GW["b"], False, previous)
        except openai.APIStatusError as error:
            raise AssertionError(f"[{name}] the follow-up after the restart: {error.status_code} {error.body}") from None
        check_completed(turn, output, reply, previous)


# ---------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tooldef", help="target/debug/tooldef")
    parser.add_argument("--upstream", help="target/debug/scripted-upstream")
    parser.add_argument("--mcp-server", help="target/debug/examples/mcp_server")
    parser.add_argument("-k", action="append", default=[], help="run only the tests whose name contains this")
    parser.add_argument("--list", action="store_true", help="list the tests and stop")
    options = parser.parse_args()
    selected = [test for test in TESTS if not options.k or any(k in test[0] for k in options.k)]
    if options.list:
        print("\n".join(name for name, _, _ in selected))
        return 0
    for key, path in (("tooldef", options.tooldef), ("upstream", options.upstream), ("mcp_server", options.mcp_server)):
        if not path or not os.access(path, os.X_OK):
            parser.error(f"--{key.replace('_', '-')}: not an executable: {path}")
        gt.BIN[key] = os.path.abspath(path)

    return gt.run_tests(selected, "python gateway store", start_everything)


if __name__ == "__main__":
    sys.exit(main())
