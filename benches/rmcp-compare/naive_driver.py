#!/usr/bin/env python3
"""Runs the naive converter (anchors/naive_converter.py, unchanged) PASSES times in one process,
for `valgrind --tool=callgrind python3 …`; per pass = difference of two pass counts.

Modes:
  pipeline  the same work as tooldef's convert_tooldef: parse the corpus text (json.loads),
            convert every tool (convert_all_tools), serialise the result (json.dumps)
  convert   convert_all_tools on the list loaded once, which is what the anchor's own timing
            driver measures (each tool's inputSchema still goes through a json.dumps/json.loads
            round trip inside convert_tool)
  floor     json.loads + json.dumps of the corpus text, nothing converted

usage: naive_driver.py CORPUS pipeline|convert|floor PASSES
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "anchors"))
from naive_converter import convert_all_tools  # noqa: E402


def main():
    corpus, mode, passes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(corpus, "rb") as f:
        text = f.read()
    tools = json.loads(text)["tools"]
    written = 0
    for _ in range(passes):
        if mode == "pipeline":
            written = len(json.dumps(convert_all_tools(json.loads(text)["tools"])))
        elif mode == "convert":
            written = len(convert_all_tools(tools))
        elif mode == "floor":
            written = len(json.dumps(json.loads(text)))
        else:
            sys.exit(f"naive_driver: unknown mode {mode}")
    print(written)


if __name__ == "__main__":
    main()
