"""Drives the standalone server with the official MCP Python SDK: lists its tool, calls it twice
(the state is shared across calls), and sends a bad call, over stdio and over Streamable HTTP.
Prints one line per transport; exits 1 on the first failure."""
import asyncio
import socket
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client


async def exercise(session: ClientSession, transport: str) -> None:
    await session.initialize()
    tools = (await session.list_tools()).tools
    assert [t.name for t in tools] == ["increment"], tools
    schema = tools[0].inputSchema
    assert schema["properties"]["step"]["enum"] == ["one", "ten"], schema
    first = await session.call_tool("increment", {"step": "ten"})
    second = await session.call_tool("increment", {"step": "one"})
    texts = [r.content[0].text for r in (first, second)]
    assert texts == ["counter: 10", "counter: 11"], texts
    bad = await session.call_tool("increment", {"step": "eleven"})
    assert bad.isError, bad
    assert "step" in bad.content[0].text, bad.content[0].text
    refusal = " ".join(bad.content[0].text.split())
    print(f"standalone server ({transport}): listed, called twice, bad call refused: {refusal}")


async def over_stdio(binary: str) -> None:
    async with stdio_client(StdioServerParameters(command=binary, args=[])) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, "stdio")


async def over_http(binary: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([binary, "--http", f"127.0.0.1:{port}"])
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start listening")
                time.sleep(0.1)
        async with streamablehttp_client(f"http://127.0.0.1:{port}/mcp") as (read, write, _):
            async with ClientSession(read, write) as session:
                await exercise(session, "http")
    finally:
        server.terminate()
        server.wait(timeout=10)


async def main() -> None:
    binary = sys.argv[1]
    await asyncio.wait_for(over_stdio(binary), 60)
    await asyncio.wait_for(over_http(binary), 60)


asyncio.run(main())
