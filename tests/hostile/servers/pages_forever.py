"""Pages for ever: every `tools/list` page holds five new tools (each with a 1,000-character
description) and a `nextCursor` never given before."""

from mcp_stdio import serve


def tools_list(params):
    page = int(params.get("cursor") or "1")
    tools = [
        {
            "name": f"tool_{page}_{i}",
            "description": "x" * 1000,
            "inputSchema": {"type": "object", "properties": {}},
        }
        for i in range(5)
    ]
    return {"tools": tools, "nextCursor": str(page + 1)}


serve(tools_list)
