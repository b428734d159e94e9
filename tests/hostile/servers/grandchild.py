"""Starts a grandchild (`sleep 300`) that inherits this server's stdout, and writes its pid to
the file named by $TOOLDEF_TEST_PID_FILE. Then, with the argument `serve`, serves `echo` and
exits when stdin ends, leaving the grandchild behind holding the pipe; with `exit`, exits at
`tools/list` without answering, the grandchild holding the pipe open all the same."""

import os
import subprocess
import sys

from mcp_stdio import ECHO, serve

# stderr not inherited: the test reads this command's stderr to its end.
grandchild = subprocess.Popen(["sleep", "300"], stderr=subprocess.DEVNULL)
with open(os.environ["TOOLDEF_TEST_PID_FILE"], "w") as file:
    file.write(str(grandchild.pid))

mode = sys.argv[1] if len(sys.argv) > 1 else "serve"


def tools_list(params):
    if mode == "exit":
        os._exit(0)  # at once: no answer, no waiting for the grandchild
    return {"tools": [ECHO]}


serve(tools_list)
