"""Answers `tools/list` with an array of tools instead of `{"tools": [...]}`."""

from mcp_stdio import ECHO, serve

serve(lambda params: [ECHO])
