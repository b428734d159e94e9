"""Answers `tools/list` with an object that has no `tools` (the tools under `tool`)."""

from mcp_stdio import ECHO, serve

serve(lambda params: {"tool": [ECHO]})
