"""The mcp_server example driven by the official MCP Python SDK client.

usage: python mcp_client_test.py PATH_TO_MCP_SERVER_BINARY

Checks what a Python MCP client sees: every tool listed validates as `mcp.types.Tool`, tools
with an output schema return structuredContent (the SDK's ClientSession validates it against
the schema itself), bad calls get the right answers, and the server keeps serving.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError

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

checks = 0


def check(condition, message):
    global checks
    checks += 1
    if not condition:
        raise AssertionError(message)


def text_of(result):
    return " ".join(block.text for block in result.content if block.type == "text")


async def main(binary):
    params = StdioServerParameters(command=binary, args=["--test-tools"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            listed = await session.list_tools()
            tools = {tool.name: tool for tool in listed.tools}
            check(len(tools) == 11, f"expected 11 tools, got {sorted(tools)}")
            for tool in listed.tools:
                # Round-trip through the SDK's own model: every field must be one it accepts.
                again = types.Tool.model_validate(tool.model_dump(by_alias=True, exclude_none=True))
                check(again.inputSchema.get("type") == "object", f"{tool.name}: inputSchema is not an object")
                if tool.outputSchema is not None:
                    check(tool.outputSchema.get("type") == "object", f"{tool.name}: outputSchema is not an object")

            for name, arguments in VALID_CALLS.items():
                result = await session.call_tool(name, arguments)
                check(not result.isError, f"{name}: {text_of(result)}")
                if tools[name].outputSchema is not None:
                    check(result.structuredContent is not None, f"{name}: no structuredContent")
                    check(json.loads(text_of(result)) == result.structuredContent, f"{name}: text and structured differ")

            result = await session.call_tool("get_weather", {"city": "Lisbon", "days": "three"})
            check(result.isError, "wrong argument type accepted")
            check("/days" in text_of(result), text_of(result))

            try:
                await session.call_tool("get_wether", {})
                check(False, "unknown tool answered")
            except McpError as error:
                check(error.error.code == -32602, f"unknown tool: code {error.error.code}")
                check("get_weather" in error.error.message, error.error.message)

            result = await session.call_tool("crash", {"message": "boom"})
            check(result.isError and "boom" not in text_of(result), text_of(result))

            results = await asyncio.gather(
                *(session.call_tool("get_weather", {"city": f"City {i}", "days": i % 14 + 1}) for i in range(100))
            )
            for i, result in enumerate(results):
                check(result.structuredContent["city"] == f"City {i}", f"call {i} got {result.structuredContent}")
                check(len(result.structuredContent["days"]) == i % 14 + 1, f"call {i}: wrong number of days")

            result = await session.call_tool("get_server_time", {})
            check(not result.isError, "the server stopped serving")

    print(f"python mcp client: {checks} passed, 0 failed")


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1]))
    except AssertionError as failure:
        print(f"python mcp client: FAILED: {failure}")
        print(f"python mcp client: {checks - 1} passed, 1 failed")
        sys.exit(1)
