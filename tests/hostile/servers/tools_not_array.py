"""Answers `tools/list` with `tools` as an object of tools by name instead of an array."""

from mcp_stdio import ECHO, serve

serve(lambda params: {"tools": {"echo": ECHO}})
