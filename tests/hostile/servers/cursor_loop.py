"""Pages in a loop: page `a` points to `b`, `b` to `c`, and `c` back to `a`."""

from mcp_stdio import ECHO, serve

NEXT = {"": "a", "a": "b", "b": "c", "c": "a"}


def tools_list(params):
    cursor = params.get("cursor") or ""
    tool = dict(ECHO, name=f"echo_{cursor or 'first'}")
    return {"tools": [tool], "nextCursor": NEXT[cursor]}


serve(tools_list)
