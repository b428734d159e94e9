#!/usr/bin/env python3
"""tooldef against rmcp's own macros, side by side in one run (issue 15). Start it with run.sh.

Generates the same tools as a tooldef crate, as an rmcp crate, and as an rmcp crate that also
validates every call's arguments with jsonschema as tooldef does (generate.py), then measures,
rotating the order of the three so that drift in the machine's speed falls on all alike:

  build    the crate built from scratch (dependencies built: `cargo clean --profile dev -p CRATE` then
           `cargo build`, dev profile), and rebuilt after touching src/main.rs: CPU time
           (user + sys of cargo and every process it waited for, from getrusage), median of
           --repeats runs each, after one warm-up run each
  size     the release binary, stripped (`strip --strip-all` on a copy)
  call     instructions per MCP tools/call over stdio: mcp_driver.py sends initialize and N
           tools/call, one at a time, to the release binary under callgrind; for two N, each
           run --call-rounds times: (median total(N2) - median total(N1)) / (N2 - N1)
  convert  instructions per tool to convert github-mcp-server's 117 tools for Chat Completions:
           tooldef in memory (convert_tooldef, the loop of runtime/examples/prof_convert.rs)
           against anchors/naive_converter.py under CPython (naive_driver.py), both under
           callgrind, two pass counts, differenced the same way

The builds and binaries are measured at each tool count of --tools (default 1 and 100), the calls
at the largest: the difference between two counts is what each tool adds, the smallest count what a
crate pays once (issue 35). The last lines say whether issue 35's acceptance holds: per tool, the
touch rebuild and the binary at most 1.0x rmcp's; at the largest count, the scratch build, the touch
rebuild and the binary at most 1.0x rmcp with the same validation.

The release binaries are measured first (size, call, convert), then the builds: touching main.rs
would make the release binaries stale. Prints the tables and writes the figures as JSON beside the
crates.
"""
import argparse
import datetime
import hashlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
CORPUS = os.path.join(REPO, "tests", "fixtures", "corpus", "github-mcp-server.tools.json")
SIDES = ("tools_tooldef", "tools_rmcp", "tools_rmcp_validated")


def rotation(i):
    """The sides in the order of round i: each side goes first, second and third in turn."""
    k = i % len(SIDES)
    return SIDES[k:] + SIDES[:k]


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def crate_name(side, n):
    """The crate of `side` with n tools (generate.py's naming)."""
    return f"{side}_{n}"


def counts_list(text):
    counts = sorted({int(x) for x in text.split(",")})
    if not counts or counts[0] < 1:
        raise argparse.ArgumentTypeError("tool counts, comma-separated, each at least 1: e.g. 1,100")
    return counts


def pair(text):
    a, b = (int(x) for x in text.split(","))
    if not 0 < a < b:
        raise argparse.ArgumentTypeError("two counts, the first smaller: e.g. 200,1200")
    return a, b


def options():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5,
                    help="measured builds per side, for the scratch build and for the rebuild (default 5)")
    ap.add_argument("--tools", type=counts_list, default=[1, 100],
                    help="tools per crate, one or more counts (default 1,100: the builds and binaries are "
                         "measured at each, and the difference is what each tool adds; calls are measured "
                         "at the largest)")
    ap.add_argument("--calls", type=pair, default=(200, 1200),
                    help="the two numbers of tools/call sent under callgrind (default 200,1200)")
    ap.add_argument("--call-rounds", type=int, default=3,
                    help="callgrind runs per side and call count; the median total is used (default 3)")
    ap.add_argument("--passes", type=pair, default=(2, 12),
                    help="the two numbers of conversion passes under callgrind (default 2,12)")
    ap.add_argument("--sections", default="build,size,call,convert",
                    help="which measurements, comma-separated (default: all of build,size,call,convert)")
    ap.add_argument("--scratch", default=os.path.join(REPO, "target", "rmcp-compare"),
                    help="where the crates and their target directory go (default target/rmcp-compare)")
    ap.add_argument("--tooldef-rev", metavar="REV",
                    help="measure tooldef as committed at REV (extracted with git archive) instead of "
                         "the working tree")
    ap.add_argument("--keep-incremental", action="store_true",
                    help="keep the dev profile's incremental data at the end (deleted by default)")
    return ap.parse_args()


def run(command, env=None, cwd=None, check=True, capture=True):
    done = subprocess.run(command, env=env, cwd=cwd, text=True,
                          stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.PIPE if capture else None)
    if check and done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stdout or ''}{done.stderr or ''}")
    return done


def tree_hash(*dirs):
    """SHA-256 of every file under dirs (outside target/), to notice edits during the run."""
    digest = hashlib.sha256()
    for top in dirs:
        for root, subdirs, files in os.walk(top):
            subdirs[:] = sorted(d for d in subdirs if d not in ("target", ".git"))
            for name in sorted(files):
                path = os.path.join(root, name)
                digest.update(path.encode())
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()[:16]


def first_line(command):
    try:
        return run(command, check=False).stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        return "unavailable"


def conditions(tooldef_root, python):
    git = ["git", "-C", REPO]
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "commit": run(git + ["rev-parse", "--short", "HEAD"], check=False).stdout.strip(),
        "tooldef_source": tooldef_root,
        "uncommitted_in_runtime_macros": run(
            git + ["status", "--porcelain", "--", "runtime", "macros", "Cargo.toml", "Cargo.lock"],
            check=False).stdout.split("\n")[:-1],
        "rustc": first_line(["rustc", "-V"]),
        "cargo": first_line(["cargo", "-V"]),
        "python": f"{python} {sys.version.split()[0]}",
        "valgrind": first_line(["valgrind", "--version"]),
        "cpus": os.cpu_count(),
        "loadavg_start": os.getloadavg(),
    }


def cargo(env, crate_dir, *args):
    """Runs cargo in crate_dir; returns (cpu seconds, wall seconds, crates compiled)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = run(["cargo", *args], env=env, cwd=crate_dir)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    compiled = re.findall(r"^\s*Compiling (\S+) v", done.stderr, re.M)
    return cpu, wall, compiled


def build_once(env, crates, side, kind, warnings):
    """One measured build of the crate `side` (a crate name): kind "scratch" (clean -p, build) or
    "touch" (touch main.rs, build). A build that compiled anything but the crate itself (tooldef's
    sources changed under the run) is done again, and said."""
    crate_dir = os.path.join(crates, side)
    for attempt in range(3):
        if kind == "scratch":
            run(["cargo", "clean", "--offline", "--profile", "dev", "-p", side], env=env, cwd=crate_dir)
        else:
            os.utime(os.path.join(crate_dir, "src", "main.rs"))
        cpu, wall, compiled = cargo(env, crate_dir, "build", "--offline")
        if compiled == [side]:
            return cpu, wall
        warnings.append(f"{kind} build of {side} compiled {compiled}: done again")
        log(warnings[-1])
    sys.exit(f"{side}: a {kind} build kept compiling other crates than itself")


def measure_builds(env, crates, n, repeats, results, warnings):
    """The builds of the three crates of n tools, into results (keyed by side)."""
    for kind in ("scratch", "touch"):
        for side in SIDES:  # warm-up, not counted
            log(f"{kind} build, warm-up: {crate_name(side, n)}")
            build_once(env, crates, crate_name(side, n), kind, warnings)
        cpu = {side: [] for side in SIDES}
        wall = {side: [] for side in SIDES}
        for i in range(repeats):
            for side in rotation(i):
                c, w = build_once(env, crates, crate_name(side, n), kind, warnings)
                cpu[side].append(round(c, 3))
                wall[side].append(round(w, 3))
                log(f"{kind} build {i + 1}/{repeats}: {crate_name(side, n)} cpu {c:.2f} s, wall {w:.2f} s")
        results[f"{kind}_cpu_s"] = cpu
        results[f"{kind}_wall_s"] = wall


def measure_sizes(env, crates, scratch, n, results):
    results["binary_bytes"] = {}
    os.makedirs(os.path.join(scratch, "bin"), exist_ok=True)
    for side in SIDES:
        name = crate_name(side, n)
        log(f"release build: {name}")
        run(["cargo", "build", "--offline", "--release"], env=env, cwd=os.path.join(crates, name))
        built = os.path.join(env["CARGO_TARGET_DIR"], "release", name)
        stripped = os.path.join(scratch, "bin", f"{name}.stripped")
        shutil.copyfile(built, stripped)
        run(["strip", "--strip-all", stripped])
        results["binary_bytes"][side] = {"unstripped": os.path.getsize(built),
                                         "stripped": os.path.getsize(stripped)}


def callgrind_total(path):
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    sys.exit(f"no total in {path}")


def measure_calls(env, scratch, counts, tools, rounds, results):
    """Instructions per tools/call: per side, the median total at each call count over `rounds`
    rounds (the servers are multi-threaded: a run's total moves by about 1% with the scheduling),
    differenced."""
    cg_dir = os.path.join(scratch, "callgrind")
    os.makedirs(cg_dir, exist_ok=True)
    results["call_instructions"] = {}
    for side in SIDES:  # the binaries must be there even when "size" was not asked for
        run(["cargo", "build", "--offline", "--release"], env=env,
            cwd=os.path.join(scratch, "crates", crate_name(side, tools)))
    totals = {side: [[], []] for side in SIDES}
    for r in range(rounds):
        # Every side at N1 in the round's order, then every side at N2 in the reverse order.
        order = rotation(r)
        for side, k in [(side, 0) for side in order] + [(side, 1) for side in order[::-1]]:
            count = counts[k]
            out = os.path.join(cg_dir, f"{side}.{count}.{r}.out")
            log(f"callgrind {r + 1}/{rounds}: {side}, {count} tools/call")
            binary = os.path.join(env["CARGO_TARGET_DIR"], "release", crate_name(side, tools))
            run([sys.executable, os.path.join(HERE, "mcp_driver.py"), str(count), "--tools", str(tools), "--",
                 "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary])
            totals[side][k].append(callgrind_total(out))
    for side in SIDES:
        small, large = totals[side]
        per_call = (statistics.median(large) - statistics.median(small)) / (counts[1] - counts[0])
        per_round = [(b - a) / (counts[1] - counts[0]) for a, b in zip(small, large)]
        results["call_instructions"][side] = {"totals": dict(zip(map(str, counts), totals[side])),
                                              "per_call": per_call, "per_call_by_round": per_round}


def measure_conversion(env, scratch, passes, python, results):
    cg_dir = os.path.join(scratch, "callgrind")
    os.makedirs(cg_dir, exist_ok=True)
    log("release build: convert_tooldef")
    run(["cargo", "build", "--offline", "--release"], env=env, cwd=os.path.join(scratch, "crates", "convert_tooldef"))
    with open(CORPUS) as f:
        tools = len(json.load(f)["tools"])
    binary = os.path.join(env["CARGO_TARGET_DIR"], "release", "convert_tooldef")
    py_env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    runs = {
        "tooldef_pipeline": lambda n, out: ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                            binary, CORPUS, "convert", str(n)],
        "naive_pipeline": lambda n, out: ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                          python, os.path.join(HERE, "naive_driver.py"), CORPUS, "pipeline", str(n)],
        "tooldef_floor": lambda n, out: ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                         binary, CORPUS, "floor", str(n)],
        "tooldef_memory": lambda n, out: ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                          binary, CORPUS, "memory", str(n)],
        "naive_convert_only": lambda n, out: ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                              python, os.path.join(HERE, "naive_driver.py"), CORPUS, "convert", str(n)],
        "naive_floor": lambda n, out: ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                       python, os.path.join(HERE, "naive_driver.py"), CORPUS, "floor", str(n)],
    }
    results["convert_tools"] = tools
    results["convert_instructions"] = {}
    for label, command_for in runs.items():  # tooldef and CPython alternate
        log(f"callgrind: {label}, {passes[0]} and {passes[1]} passes")
        totals = []
        for n in passes:
            out = os.path.join(cg_dir, f"convert.{label}.{n}.out")
            subprocess.run(command_for(n, out), env=py_env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            totals.append(callgrind_total(out))
        per_pass = (totals[1] - totals[0]) / (passes[1] - passes[0])
        results["convert_instructions"][label] = {"totals": dict(zip(map(str, passes), totals)),
                                                  "per_pass": per_pass, "per_tool": per_pass / tools}


def fmt_s(x):
    return f"{x:.2f} s"


def fmt_mb(x):
    return f"{x / 1e6:.2f} MB"


def fmt_k(x):
    return f"{x / 1e3:.1f} k"


def table(results, c):
    rows = []
    repeats = c["repeats"]
    if "scratch_cpu_s" in results:
        for kind, what in (("scratch", "crate built from scratch (`cargo clean --profile dev -p`, `cargo build`), CPU"),
                           ("touch", "rebuild after touching `main.rs` (dev), CPU")):
            t, r, v = (statistics.median(results[f"{kind}_cpu_s"][s]) for s in SIDES)
            rows.append((f"{what}, median of {repeats}", fmt_s(t), fmt_s(r), t / r, fmt_s(v), t / v))
    if "binary_bytes" in results:
        t, r, v = (results["binary_bytes"][s]["stripped"] for s in SIDES)
        rows.append(("release binary, stripped", fmt_mb(t), fmt_mb(r), t / r, fmt_mb(v), t / v))
    if "call_instructions" in results:
        t, r, v = (results["call_instructions"][s]["per_call"] for s in SIDES)
        rows.append((f"instructions per MCP `tools/call` over stdio (rmcp: router in a field), "
                     f"median of {c['call_rounds']} runs",
                     fmt_k(t), fmt_k(r), t / r, fmt_k(v), t / v))
    if "convert_instructions" in results:
        ci = results["convert_instructions"]
        n = results["convert_tools"]
        rows.append((f"converting github-mcp-server's {n} tools for Chat, instructions per tool: "
                     "parse + convert + serialise, both sides (right: naive_converter.py, CPython)",
                     fmt_k(ci["tooldef_pipeline"]["per_tool"]), fmt_k(ci["naive_pipeline"]["per_tool"]),
                     ci["tooldef_pipeline"]["per_tool"] / ci["naive_pipeline"]["per_tool"], None, None))
        rows.append(("the same, right: the naive converter alone on the loaded list (its own driver's "
                     "measure; left unchanged: tooldef's parse + convert + serialise)",
                     fmt_k(ci["tooldef_pipeline"]["per_tool"]), fmt_k(ci["naive_convert_only"]["per_tool"]),
                     ci["tooldef_pipeline"]["per_tool"] / ci["naive_convert_only"]["per_tool"], None, None))
        rows.append(("floor, per tool: the corpus parsed and serialised, nothing converted (serde_json; "
                     "CPython's json)",
                     fmt_k(ci["tooldef_floor"]["per_tool"]), fmt_k(ci["naive_floor"]["per_tool"]),
                     ci["tooldef_floor"]["per_tool"] / ci["naive_floor"]["per_tool"], None, None))
        rows.append(("converting in memory, instructions per tool: the corpus parsed once, then only the "
                     "conversion (right: the naive converter alone on the loaded list)",
                     fmt_k(ci["tooldef_memory"]["per_tool"]), fmt_k(ci["naive_convert_only"]["per_tool"]),
                     ci["tooldef_memory"]["per_tool"] / ci["naive_convert_only"]["per_tool"], None, None))
    lines = ["| | tooldef | rmcp macros / naive converter | tooldef ÷ other "
             "| rmcp macros + jsonschema validation | tooldef ÷ that |", "|---|---|---|---|---|---|"]
    lines += [f"| {what} | {t} | {r} | **{ratio:.2f}×** | {v or '—'} | "
              f"{f'**{vratio:.2f}×**' if vratio else '—'} |" for what, t, r, ratio, v, vratio in rows]
    return "\n".join(lines)


def per_tool(by_count, counts):
    """What each tool adds, from the smallest and the largest count: (X(large) - X(small)) /
    (large - small), per side, for the builds and the binary; and the ratios the issue reads."""
    small, large = counts[0], counts[-1]
    a, b = by_count[str(small)], by_count[str(large)]
    rows = []
    measures = []
    if "scratch_cpu_s" in a and "scratch_cpu_s" in b:
        measures += [("scratch build, CPU", lambda r, s: statistics.median(r["scratch_cpu_s"][s]), 1e3, "ms"),
                     ("touch rebuild, CPU", lambda r, s: statistics.median(r["touch_cpu_s"][s]), 1e3, "ms")]
    if "binary_bytes" in a and "binary_bytes" in b:
        measures.append(("release binary, stripped", lambda r, s: r["binary_bytes"][s]["stripped"], 1e-3, "kB"))
    figures = {}
    for what, get, scale, unit in measures:
        added = {side: (get(b, side) - get(a, side)) / (large - small) * scale for side in SIDES}
        figures[what] = added
        t, r, v = (added[side] for side in SIDES)
        whole = fmt_mb if unit == "kB" else fmt_s

        def at(res):
            return " / ".join(whole(get(res, side)) for side in SIDES)
        rows.append(f"| {what} | {at(a)} | {at(b)} | {t:.1f} / {r:.1f} / {v:.1f} {unit} | "
                    f"**{t / r:.2f}×**; {t / v:.2f}× |")
    head = [f"| | {small} tool{'s' if small != 1 else ''}: tooldef / rmcp / rmcp + validation "
            f"| {large} tools: the same | "
            "per tool added: the same | per tool, tooldef ÷ rmcp; ÷ rmcp + validation |",
            "|---|---|---|---|---|"]
    return "\n".join(head + rows), figures


def verdict(results, figures):
    """Issue 35's acceptance, each line with the ratio it reads and whether it holds."""
    lines = []
    for what, added in figures.items():
        if what == "scratch build, CPU":
            continue
        ratio = added["tools_tooldef"] / added["tools_rmcp"]
        lines.append(f"per tool, {what}: {ratio:.2f}× rmcp's (at most 1.00×): "
                     f"{'holds' if ratio <= 1.0 else 'NOT MET'}")
    largest = results["largest"]
    for key, what in (("scratch_cpu_s", "scratch build, CPU"), ("touch_cpu_s", "touch rebuild, CPU"),
                      ("binary_bytes", "release binary, stripped")):
        if key not in largest:
            continue
        if key == "binary_bytes":
            t, v = (largest[key][s]["stripped"] for s in ("tools_tooldef", "tools_rmcp_validated"))
        else:
            t, v = (statistics.median(largest[key][s]) for s in ("tools_tooldef", "tools_rmcp_validated"))
        lines.append(f"{what}, {results['largest_count']} tools: {t / v:.2f}× rmcp + validation "
                     f"(at most 1.00×): {'holds' if t / v <= 1.0 else 'NOT MET'}")
    return "\n".join(lines)


def details(results):
    out = []
    for kind in ("scratch", "touch"):
        if f"{kind}_cpu_s" in results:
            for s in SIDES:
                out.append(f"{kind} {s}: cpu {results[f'{kind}_cpu_s'][s]} wall {results[f'{kind}_wall_s'][s]}"
                           f" (wall median {statistics.median(results[f'{kind}_wall_s'][s]):.2f} s)")
    if "binary_bytes" in results:
        out.append(f"binaries: {results['binary_bytes']}")
    if "call_instructions" in results:
        for s, v in results["call_instructions"].items():
            out.append(f"tools/call {s}: totals {v['totals']}, per call by round "
                       f"{[round(x / 1e3, 1) for x in v['per_call_by_round']]} k")
    if "convert_instructions" in results:
        for label, v in results["convert_instructions"].items():
            out.append(f"convert {label}: totals {v['totals']}, per pass {v['per_pass'] / 1e6:.2f} M, "
                       f"per tool {v['per_tool'] / 1e3:.1f} k")
    return "\n".join(out)


def delete_incremental(target):
    for profile in ("debug", "release"):
        path = os.path.join(target, profile, "incremental")
        if os.path.isdir(path):
            shutil.rmtree(path)


def du(path):
    done = run(["du", "-sb", path], check=False)
    return int(done.stdout.split()[0]) if done.returncode == 0 and done.stdout else 0


def main():
    o = options()
    sections = set(o.sections.split(","))
    started = time.perf_counter()
    scratch = os.path.abspath(o.scratch)
    crates = os.path.join(scratch, "crates")
    target = os.path.join(scratch, "target")
    os.makedirs(scratch, exist_ok=True)

    if o.tooldef_rev:
        rev = run(["git", "-C", REPO, "rev-parse", "--short", o.tooldef_rev]).stdout.strip()
        source = os.path.join(scratch, f"tooldef-{rev}")
        if not os.path.isdir(source):
            os.makedirs(source)
            archive = subprocess.Popen(["git", "-C", REPO, "archive", "--format=tar", rev], stdout=subprocess.PIPE)
            subprocess.run(["tar", "-x", "-C", source], stdin=archive.stdout, check=True)
            archive.wait()
    else:
        source = REPO
    runtime = os.path.join(source, "runtime")
    python = sys.executable
    c = conditions(runtime, python)
    c["repeats"] = o.repeats
    c["tools"] = o.tools
    largest = o.tools[-1]
    c["calls"] = o.calls
    c["passes"] = o.passes
    c["call_rounds"] = o.call_rounds
    c["disk_free_start"] = shutil.disk_usage(scratch).free
    watched = (os.path.join(source, "runtime"), os.path.join(source, "macros"))
    c["tooldef_tree_hash_start"] = tree_hash(*watched)
    log(f"tooldef from {runtime} (commit {c['commit']}, uncommitted: {c['uncommitted_in_runtime_macros'] or 'none'})")

    run([python, os.path.join(HERE, "generate.py"), crates, runtime, os.path.join(source, "Cargo.lock"),
         *map(str, o.tools)])
    env = dict(os.environ, CARGO_TARGET_DIR=target, CARGO_TERM_COLOR="never")
    env.pop("CARGO_BUILD_TARGET_DIR", None)

    log("dependencies (built once, not measured)")
    prep = time.perf_counter()
    for n in o.tools:
        for side in SIDES:
            crate_dir = os.path.join(crates, crate_name(side, n))
            if "build" in sections:
                run(["cargo", "build", "--offline"], env=env, cwd=crate_dir)
            if "size" in sections or ("call" in sections and n == largest):
                run(["cargo", "build", "--offline", "--release"], env=env, cwd=crate_dir)
    if "convert" in sections:
        run(["cargo", "build", "--offline", "--release"], env=env, cwd=os.path.join(crates, "convert_tooldef"))
    c["preparation_s"] = round(time.perf_counter() - prep, 1)

    results, warnings = {"by_count": {str(n): {} for n in o.tools}}, []
    measuring = time.perf_counter()
    # The release binaries first: touching main.rs for the rebuilds would make them stale.
    if "size" in sections:
        for n in o.tools:
            measure_sizes(env, crates, scratch, n, results["by_count"][str(n)])
    if "call" in sections:
        measure_calls(env, scratch, o.calls, largest, o.call_rounds, results)
    if "convert" in sections:
        measure_conversion(env, scratch, o.passes, python, results)
    if "build" in sections:
        for n in o.tools:
            measure_builds(env, crates, n, o.repeats, results["by_count"][str(n)], warnings)
    c["measuring_s"] = round(time.perf_counter() - measuring, 1)

    c["tooldef_tree_hash_end"] = tree_hash(*watched)
    if c["tooldef_tree_hash_end"] != c["tooldef_tree_hash_start"]:
        warnings.append("tooldef's sources (runtime/, macros/) changed during the run: "
                        "the figures may mix two versions")
    c["loadavg_end"] = os.getloadavg()
    c["target_bytes_before_cleanup"] = du(target)
    if not o.keep_incremental:
        delete_incremental(target)
    c["target_bytes_after_cleanup"] = du(target)
    c["disk_free_end"] = shutil.disk_usage(scratch).free
    c["total_s"] = round(time.perf_counter() - started, 1)

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    record = {"conditions": c, "results": results, "warnings": warnings}
    path = os.path.join(scratch, f"results-{stamp}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=2)

    print(f"tooldef vs rmcp's macros — {c['date']}, commit {c['commit']}, {c['rustc']}, "
          f"{c['cpus']} CPUs, load average {c['loadavg_start'][0]:.2f} at the start and "
          f"{c['loadavg_end'][0]:.2f} at the end")
    print(f"tooldef: {'as committed at ' + o.tooldef_rev if o.tooldef_rev else 'the working tree'} "
          f"({runtime}); uncommitted changes in the working tree's runtime/ and macros/: "
          f"{len(c['uncommitted_in_runtime_macros'])} files")
    print(f"{', '.join(map(str, o.tools))} tools; builds: {o.repeats} each after a warm-up; tools/call: {o.calls[0]} and "
          f"{o.calls[1]} calls, {o.call_rounds} rounds; conversion: {o.passes[0]} and {o.passes[1]} passes; {c['python']}; "
          f"sections: {o.sections}")
    at_largest = dict(results["by_count"][str(largest)], **{k: v for k, v in results.items() if k != "by_count"})
    print()
    print(f"{largest} tools:")
    print(table(at_largest, c))
    figures = {}
    if len(o.tools) > 1:
        text, figures = per_tool(results["by_count"], o.tools)
        print()
        print(f"What a crate pays once and what each tool adds ({o.tools[0]} and {largest} tools):")
        print(text)
    print()
    print(verdict({"largest": results["by_count"][str(largest)], "largest_count": largest}, figures))
    print()
    for n in o.tools:
        print(f"{n} tools:")
        print(details(results["by_count"][str(n)]))
    print(details({k: v for k, v in results.items() if k != "by_count"}))
    for warning in warnings:
        print(f"WARNING: {warning}")
    print(f"\ntime: {c['total_s']:.0f} s in all ({c['preparation_s']:.0f} s building dependencies, "
          f"{c['measuring_s']:.0f} s measuring); scratch target "
          f"{c['target_bytes_before_cleanup'] / 1e9:.2f} GB, "
          f"{c['target_bytes_after_cleanup'] / 1e9:.2f} GB after deleting incremental data; figures in {path}")


if __name__ == "__main__":
    main()
