"""Lists five tools of which three are invalid MCP tools: #1 has no `name`, #2 (`bad_schema`)
has an `inputSchema` that is a string, #3 has a number for its `name`. `echo` (#0) and `add`
(#4) are valid; `echo` can be called."""

from mcp_stdio import ECHO, serve

TOOLS = [
    ECHO,
    {"description": "No name.", "inputSchema": {"type": "object"}},
    {"name": "bad_schema", "description": "A string schema.", "inputSchema": "object"},
    {"name": 7, "description": "A number for a name.", "inputSchema": {"type": "object"}},
    {
        "name": "add",
        "description": "Add two numbers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
]

serve(lambda params: {"tools": TOOLS})
