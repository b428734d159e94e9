"""The requests tooldef builds for Anthropic, Gemini (with `parameters`, and with
`parametersJsonSchema`) and OpenAI's Responses API, checked against the official SDKs' own request
types: `anthropic` (its `MessageCreateParams` TypedDicts), `openai` (its `ResponseCreateParams`
TypedDicts) and `google-genai` (its pydantic models, which refuse unknown fields; they take any
`parametersJsonSchema`, so that one is also checked as JSON Schema 2020-12 within the keywords
Gemini documents).

Usage: provider_sdks.py REQUESTS.json   (the output of `cargo run -p tooldef-examples --example provider_requests`)

The anthropic and openai SDKs declare requests as TypedDicts and does not validate them at runtime, and
pydantic's TypedDict validation lets unknown keys and some missing ones through; so the check here
walks the SDK's own type hints strictly: every key known, every required key present, every
literal matched, a union matched by one of its members.
"""

import collections.abc
import json
import sys
import types as pytypes
import typing

import anthropic
import jsonschema
import pydantic
import anthropic.types.message_create_params as message_create_params
import openai
from openai.types.responses import response_create_params
from google import genai
from google.genai import types as genai_types
from typing_extensions import is_typeddict


def strict(value, tp, path, problems):
    """Appends to `problems` every way `value` breaks `tp`; returns whether it holds."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is typing.Any or tp is object:
        return True
    if origin in (typing.Required, typing.NotRequired, typing.Annotated) or (
        origin is not None and getattr(origin, "__name__", "") in ("Required", "NotRequired")
    ):
        return strict(value, args[0], path, problems)
    if origin is typing.Literal:
        if value in args:
            return True
        problems.append(f"{path}: {value!r} is not one of {args}")
        return False
    if origin in (typing.Union, pytypes.UnionType):
        for member in args:
            attempt = []
            if strict(value, member, path, attempt):
                return True
        # Say why the member that matched furthest failed: the one whose problems lie deepest
        # (a block whose `type` matched and whose fields did not), then the one with fewest.
        reasons = []
        for member in args:
            attempt = []
            strict(value, member, path, attempt)
            reasons.append(attempt)
        def depth(attempt):
            return max((p.split(":")[0].count("/") for p in attempt), default=-1)
        # A member whose literal `type` the value has is the one meant.
        meant = [a for a in reasons if not any(p.startswith(f"{path}/type:") for p in a)]
        best = max(meant or reasons, key=lambda attempt: (depth(attempt), -len(attempt)))
        problems.extend(best or [f"{path}: matches none of {tp}"])
        return False
    if tp is type(None):
        ok = value is None
    elif tp is str:
        ok = isinstance(value, str)
    elif tp is bool:
        ok = isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif is_typeddict(tp):
        if not isinstance(value, dict):
            problems.append(f"{path}: expected an object ({tp.__name__}), got {type(value).__name__}")
            return False
        hints = typing.get_type_hints(tp, include_extras=True)
        before = len(problems)
        for key in value:
            if key not in hints:
                problems.append(f"{path}: `{key}` is not a field of {tp.__name__}")
        # `__required_keys__` is wrong for TypedDicts whose annotations are strings (the SDK's
        # `from __future__ import annotations`): read `Required`/`NotRequired` from the hints.
        def required(hint):
            name = getattr(typing.get_origin(hint), "__name__", "") or str(typing.get_origin(hint))
            if "NotRequired" in name:
                return False
            return "Required" in name or getattr(tp, "__total__", True)
        for key in [k for k, hint in hints.items() if required(hint)]:
            if key not in value:
                problems.append(f"{path}: `{key}` is missing ({tp.__name__})")
        for key, item in value.items():
            if key in hints:
                strict(item, hints[key], f"{path}/{key}", problems)
        return len(problems) == before
    elif origin in (list, collections.abc.Iterable, collections.abc.Sequence) or tp in (list,):
        if not isinstance(value, list):
            problems.append(f"{path}: expected a list, got {type(value).__name__}")
            return False
        before = len(problems)
        for i, item in enumerate(value):
            strict(item, args[0] if args else typing.Any, f"{path}/{i}", problems)
        return len(problems) == before
    elif origin in (dict, collections.abc.Mapping) or tp is dict:
        ok = isinstance(value, dict)
    elif isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        # The SDK also lets a request carry its response models (a reply's blocks, sent back
        # as they came); a request tooldef builds is JSON, so it must match the params.
        problems.append(f"{path}: matches the response model {tp.__name__} only")
        return False
    else:
        # A type the walk does not know (a date, a file): the SDK's own business.
        return True
    if not ok:
        problems.append(f"{path}: expected {getattr(tp, '__name__', tp)}, got {value!r:.60}")
    return ok


def check_anthropic(request):
    problems = []
    strict(request, message_create_params.MessageCreateParamsNonStreaming, "", problems)
    messages = request["messages"]
    # What the API adds to the types: the results of a turn in one user message, first in it,
    # one per tool_use of the turn before, in its order.
    for k in range(1, len(messages) - 1, 2):
        asked = [b["id"] for b in messages[k]["content"] if b["type"] == "tool_use"]
        answered = [b.get("tool_use_id") for b in messages[k + 1]["content"] if b["type"] == "tool_result"]
        if answered != asked:
            problems.append(f"the results {answered} do not answer the calls {asked} in order")
    # A deferred tool is called only once a `tool_reference` has loaded it, and references
    # name deferred tools of the request.
    deferred = {t["name"] for t in request["tools"] if t.get("defer_loading")}
    referenced = set()
    for message in messages:
        if not isinstance(message["content"], list):
            continue
        for block in message["content"]:
            if block["type"] == "tool_use" and block["name"] in deferred and block["name"] not in referenced:
                problems.append(f"{block['id']}: calls the deferred `{block['name']}` before a tool_reference loads it")
            for inner in block.get("content", []) if block["type"] == "tool_result" else []:
                if inner["type"] == "tool_reference":
                    if inner["tool_name"] not in deferred:
                        problems.append(f"a tool_reference to `{inner['tool_name']}`, no deferred tool of the request")
                    referenced.add(inner["tool_name"])
    if not referenced:
        problems.append("no `tool_reference` block: the example should show one")
    kinds = {c["type"] for b in messages[-1]["content"] for c in b.get("content", [])}
    for kind in ("text", "image", "document"):
        if kind not in kinds:
            problems.append(f"no `{kind}` block among the results: the example should show one")
    # The newest tool fields, each on some tool, so that the SDK's types are held to them.
    custom = [t for t in request["tools"] if "input_schema" in t]
    if not any(t.get("input_examples") for t in custom):
        problems.append("no tool with `input_examples`: the example should show one")
    if not any(t.get("defer_loading") for t in custom):
        problems.append("no tool with `defer_loading`: the example should show one")
    if all(t.get("defer_loading") for t in custom):
        problems.append("every tool is deferred, which Anthropic refuses")
    if "cache_control" not in custom[-1] or any("cache_control" in t for t in custom[:-1]):
        problems.append("`cache_control` is not on the last tool alone")
    for t in custom:
        for k, example in enumerate(t.get("input_examples", [])):
            for error in jsonschema.Draft202012Validator(t["input_schema"]).iter_errors(example):
                problems.append(f"{t['name']}: input_examples/{k} breaks its input_schema: {error.message}")
    return problems


# The JSON Schema keywords Gemini documents for `parametersJsonSchema` (its structured-output
# subset, https://ai.google.dev/gemini-api/docs/structured-output#json-schema-support); it ignores
# the others, so a constraint left in one is a constraint the model never sees.
GEMINI_JSON_KEYWORDS = {
    "$ref", "$defs", "type", "format", "title", "description", "enum", "properties", "required",
    "additionalProperties", "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum",
    "anyOf",
}
SCHEMA_MAPS = ("properties", "$defs")
SCHEMA_LISTS = ("anyOf", "prefixItems")
SCHEMA_ONES = ("items", "additionalProperties")


def gemini_json_problems(schema, path):
    """What Gemini would not see in a `parametersJsonSchema`: a schema that is not valid JSON
    Schema 2020-12, a root that is not an object, keywords outside its subset."""
    problems = []
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        problems.append(f"{path}: not valid JSON Schema 2020-12: {error.message}")
    if schema.get("type") != "object":
        problems.append(f"{path}: the root is not an object")

    def walk(node, at):
        if not isinstance(node, dict):
            return
        for key in node:
            if key not in GEMINI_JSON_KEYWORDS:
                problems.append(f"{at}: `{key}` is not a keyword Gemini takes")
        for key in SCHEMA_MAPS:
            for name, sub in (node.get(key) or {}).items():
                walk(sub, f"{at}/{key}/{name}")
        for key in SCHEMA_LISTS:
            for i, sub in enumerate(node.get(key) or []):
                walk(sub, f"{at}/{key}/{i}")
        for key in SCHEMA_ONES:
            walk(node.get(key), f"{at}/{key}")

    walk(schema, path)
    return problems


def check_gemini(request, field="parameters"):
    """A `generateContent` request whose declarations carry their schemas in `field`."""
    other = "parametersJsonSchema" if field == "parameters" else "parameters"
    problems = []
    for i, declaration in enumerate(request["tools"][0]["functionDeclarations"]):
        at = f"tools/0/functionDeclarations/{i}"
        if other in declaration:
            problems.append(f"{at}: `{other}` where `{field}` was asked for")
        if field == "parametersJsonSchema" and field in declaration:
            problems.extend(gemini_json_problems(declaration[field], f"{at}/{field}"))
        if field == "parametersJsonSchema" and "responseJsonSchema" in declaration:
            schema = declaration["responseJsonSchema"]
            # A result's schema may have any root; the subset's keywords hold all the same.
            problems.extend(p for p in gemini_json_problems(schema, f"{at}/responseJsonSchema")
                            if not p.endswith("the root is not an object"))
        if ("responseJsonSchema" if field == "parameters" else "response") in declaration:
            problems.append(f"{at}: the result's schema under the other field's name")
    response_field = "response" if field == "parameters" else "responseJsonSchema"
    if not any(response_field in d for d in request["tools"][0]["functionDeclarations"]):
        problems.append(f"no declaration with `{response_field}`: the example should show one")
    for i, content in enumerate(request["contents"]):
        try:
            genai_types.Content.model_validate(content)
        except Exception as error:  # pydantic's ValidationError, with every field at fault
            problems.append(f"contents/{i}: {error}")
    for i, tool in enumerate(request["tools"]):
        try:
            genai_types.Tool.model_validate(tool)
        except Exception as error:
            problems.append(f"tools/{i}: {error}")
    calls = [p["functionCall"]["name"] for p in request["contents"][1]["parts"] if "functionCall" in p]
    answers = [p["functionResponse"]["name"] for p in request["contents"][2]["parts"]]
    if answers != calls:
        problems.append(f"the responses {answers} do not answer the calls {calls} in order")
    for part in request["contents"][2]["parts"]:
        if not isinstance(part["functionResponse"].get("response"), dict):
            problems.append(f"a functionResponse whose response is not an object: {part}")
    return problems


def check_responses(request):
    problems = []
    strict(request, response_create_params.ResponseCreateParamsNonStreaming, "", problems)
    items = request["input"]
    asked = [i["call_id"] for i in items if i.get("type") == "function_call"]
    answered = [i.get("call_id") for i in items if i.get("type") == "function_call_output"]
    if answered != asked:
        problems.append(f"the outputs {answered} do not answer the calls {asked} in order")
    kinds = {
        part["type"]
        for i in items
        if i.get("type") == "function_call_output" and isinstance(i["output"], list)
        for part in i["output"]
    }
    for kind in ("input_text", "input_image", "input_file"):
        if kind not in kinds:
            problems.append(f"no `{kind}` part among the outputs: the example should show one")
    namespaces = {t["name"]: t for t in request["tools"] if t.get("type") == "namespace"}
    functions = [t for t in request["tools"] if t.get("type") == "function"]
    functions += [f for n in namespaces.values() for f in n["tools"] if f.get("type") == "function"]
    for key in ("output_schema", "defer_loading"):
        if not any(t.get(key) for t in functions):
            problems.append(f"no function tool with `{key}`: the example should show one")
    if any(t.get("defer_loading") for t in functions) and not any(
        t.get("type") == "tool_search" for t in request["tools"]
    ):
        problems.append("deferred tools without a `tool_search` tool to load them")
    # What the API checks beyond the types: a call into a namespace names it (sent back without
    # it, the request is a 400), and a client tool search is answered by its output.
    namespaced = {f["name"]: n for n, space in namespaces.items() for f in space["tools"]}
    for item in items:
        if item.get("type") == "function_call" and item["name"] in namespaced:
            if item.get("namespace") != namespaced[item["name"]]:
                problems.append(f"{item['call_id']}: a call of `{item['name']}` without its namespace `{namespaced[item['name']]}`")
    searches = [i.get("call_id") for i in items if i.get("type") == "tool_search_call"]
    outputs = [i.get("call_id") for i in items if i.get("type") == "tool_search_output"]
    if not searches or searches != outputs:
        problems.append(f"the tool searches {searches} are not answered by the outputs {outputs}")
    return problems


def check_gemini_json(request):
    return check_gemini(request, "parametersJsonSchema")


def broken(requests):
    """The same requests with the faults a careless builder makes, which the checks must refuse:
    a check that refuses nothing proves nothing."""
    bad = json.loads(json.dumps(requests))
    results = bad["anthropic"]["messages"][-1]["content"]
    results[0]["bogus"] = 1
    del results[1]["tool_use_id"]
    bad["anthropic"]["messages"][-1]["content"] = results
    for key in ("gemini", "gemini-json"):
        parts = bad[key]["contents"][2]["parts"]
        parts[0]["functionResponse"]["response"] = "not an object"
        parts[1]["functionResponse"]["bogus"] = 1
    declarations = [
        d for d in bad["gemini-json"]["tools"][0]["functionDeclarations"]
        if "parametersJsonSchema" in d
    ]
    first = declarations[0]["parametersJsonSchema"]
    next(iter(first["properties"].values()))["minLength"] = 1
    declarations[1]["parameters"] = declarations[1].pop("parametersJsonSchema")
    outputs = [i for i in bad["responses"]["input"] if i.get("type") == "function_call_output"]
    outputs[0]["bogus"] = 1
    del outputs[1]["call_id"]
    calls = [i for i in bad["responses"]["input"] if i.get("type") == "function_call"]
    del calls[0]["namespace"]
    bad["anthropic"]["tools"][-1].pop("cache_control")
    return bad


def main():
    requests = json.load(open(sys.argv[1]))
    bad = broken(requests)
    for name, check in (
        ("anthropic", check_anthropic),
        ("gemini", check_gemini),
        ("gemini-json", check_gemini_json),
        ("responses", check_responses),
    ):
        found = check(bad[name])
        if len(found) < 2:
            print(f"{name}: the check let a broken request through ({found}); it proves nothing")
            sys.exit(1)
    failures = 0
    for name, key, check, version in (
        ("anthropic", "anthropic", check_anthropic, anthropic.__version__),
        ("google-genai", "gemini", check_gemini, genai.__version__),
        ("google-genai (parametersJsonSchema)", "gemini-json", check_gemini_json, genai.__version__),
        ("openai (Responses)", "responses", check_responses, openai.__version__),
    ):
        request = requests[key]
        problems = check(request)
        if key.startswith("gemini"):
            tools = len(request["tools"][0]["functionDeclarations"])
            results = len(request["contents"][2]["parts"])
        elif key == "anthropic":
            tools = len(request["tools"])
            results = len(request["messages"][-1]["content"])
        else:
            tools = len(request["tools"])
            results = sum(i.get("type") == "function_call_output" for i in request["input"])
        if problems:
            failures += 1
            print(f"{name} {version}: REFUSED:")
            for problem in problems:
                print(f"  - {problem}")
        else:
            print(f"{name} {version}: accepted: {tools} tools, a turn of {results} results")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
