//! `tooldef list` and `tooldef call` against MCP servers that misbehave at `tools/list`
//! (`tests/hostile/servers/`, Python 3 with the standard library): paging for ever or in a
//! loop, results that are not `tools/list` results, invalid tools among valid ones, and a
//! grandchild process holding the server's stdout.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const SERVERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/hostile/servers");

/// How long any run may take before the test gives up on it: far beyond what each should take.
const HANG: Duration = Duration::from_secs(120);

/// A finished `tooldef` run.
struct Run {
    status: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
    /// The peak resident memory of `tooldef` (and of the server it waited for), in KiB.
    max_rss_kib: i64,
}

impl Run {
    /// The last line of stderr: the error, when there is one.
    fn last_line(&self) -> &str {
        self.stderr.lines().last().unwrap_or_default()
    }
}

/// `tooldef ARGS -- python3 -B SCRIPT SCRIPT_ARGS` with `env`, waited for with wait4(2) to
/// have its peak memory.
#[expect(
    clippy::zombie_processes,
    reason = "reaped with wait4(2), which std's `wait` does not give the peak memory of"
)]
fn tooldef(args: &[&str], script: &str, script_args: &[&str], env: &[(&str, &str)]) -> Run {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args(args)
        // `-B`: no `__pycache__` left in the source tree.
        .args(["--", "python3", "-B", &format!("{SERVERS}/{script}")])
        .args(script_args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tooldef starts");
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = reader(Box::new(child.stdout.take().expect("piped")));
    let stderr = reader(Box::new(child.stderr.take().expect("piped")));
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let (status, usage) = loop {
        let mut status = 0;
        // SAFETY: all zeroes is a valid `rusage`; wait4 fills it in for the child it reaps.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 on this test's own child, not blocking.
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(reaped >= 0, "wait4 failed");
        if reaped == pid {
            break (status, usage);
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tooldef {args:?} on {script} did not end within {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = started.elapsed();
    assert!(libc::WIFEXITED(status), "tooldef was killed: {status}");
    Run {
        status: libc::WEXITSTATUS(status),
        stdout: stdout.join().expect("stdout read"),
        stderr: stderr.join().expect("stderr read"),
        elapsed,
        max_rss_kib: usage.ru_maxrss,
    }
}

/// `tooldef list --to chat ARGS -- python3 -B SCRIPT`.
fn list(args: &[&str], script: &str) -> Run {
    let mut all = vec!["list", "--to", "chat", "--timeout", "60"];
    all.extend_from_slice(args);
    tooldef(&all, script, &[], &[])
}

/// The command as `tooldef` shows it in messages.
fn shown(script: &str) -> String {
    format!("python3 -B {SERVERS}/{script}")
}

/// The names of the tools printed on stdout (as a Chat Completions array).
fn printed_names(run: &Run) -> Vec<String> {
    let tools: Vec<Value> = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|err| panic!("stdout is not JSON ({err}): {}", run.stdout));
    tools
        .iter()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn a_server_that_pages_for_ever_is_stopped_at_the_page_limit_quickly_and_in_little_memory() {
    let run = list(&[], "pages_forever.py");
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.last_line(),
        format!(
            "tooldef: `{}` did not list its tools: it was still paging after 1000 pages of \
             `tools/list` (--max-pages 1000): raise --max-pages if the server really has that \
             many pages; otherwise its pagination never ends, which is a bug in the server",
            shown("pages_forever.py")
        )
    );
    // Its --timeout is 60 s: the limit stops it long before.
    assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
    assert!(
        run.max_rss_kib < 200 * 1024,
        "peak memory {} KiB",
        run.max_rss_kib
    );

    // A lower page limit is followed.
    let run = list(&["--max-pages", "3"], "pages_forever.py");
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.last_line()
            .ends_with("it was still paging after 3 pages of `tools/list` (--max-pages 3): raise --max-pages if the server really has that many pages; otherwise its pagination never ends, which is a bug in the server"),
        "{}",
        run.last_line()
    );
}

#[test]
fn the_tool_and_size_limits_stop_a_listing_and_say_which() {
    let run = list(&["--max-tools", "12"], "pages_forever.py");
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.last_line(),
        format!(
            "tooldef: `{}` did not list its tools: it listed more than 12 tools by page 3 \
             (--max-tools 12): raise --max-tools if the server really has that many",
            shown("pages_forever.py")
        )
    );

    // About 5 KiB a page: 1 MiB is passed after some 200 pages.
    let run = list(&["--max-list-mib", "1"], "pages_forever.py");
    assert_eq!(run.status, 2, "{}", run.stderr);
    let prefix = format!(
        "tooldef: `{}` did not list its tools: its `tools/list` results came to more than 1 MiB \
         of JSON by page ",
        shown("pages_forever.py")
    );
    let line = run.last_line();
    assert!(
        line.starts_with(&prefix)
            && line.ends_with(
                " (--max-list-mib 1): raise --max-list-mib if the server really lists that much"
            ),
        "{line}"
    );
}

#[test]
fn a_cursor_given_again_is_a_loop_reported_at_once() {
    let run = list(&[], "cursor_loop.py");
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.last_line(),
        format!(
            "tooldef: `{}` did not list its tools: page 4 of its `tools/list` gave the cursor \
             `a` that page 1 gave already: its pagination loops, which is a bug in the server",
            shown("cursor_loop.py")
        )
    );
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
}

#[test]
fn a_result_that_is_not_a_tools_list_result_says_what_it_is() {
    let cases = [
        (
            "result_not_object.py",
            "its `tools/list` result (page 1) is not an object (got an array); an MCP server \
             answers `{\"tools\": [...]}`",
        ),
        (
            "tools_missing.py",
            "its `tools/list` result (page 1) has no `tools` array; an MCP server answers \
             `{\"tools\": [...]}`",
        ),
        (
            "tools_not_array.py",
            "its `tools/list` result (page 1) has a `tools` that is not an array (got an \
             object); an MCP server answers `{\"tools\": [...]}`",
        ),
    ];
    for (script, reason) in cases {
        for command in ["list", "call"] {
            let args: &[&str] = match command {
                "list" => &["list", "--to", "chat"],
                _ => &["call", "--to", "chat", "--tool", "echo"],
            };
            let run = tooldef(args, script, &[], &[]);
            assert_eq!(run.status, 2, "{script} {command}: {}", run.stderr);
            assert!(run.stdout.is_empty(), "{script} {command}");
            assert_eq!(
                run.last_line(),
                format!(
                    "tooldef: `{}` did not list its tools: {reason}",
                    shown(script)
                ),
                "{script} {command}"
            );
        }
    }
}

/// The stderr lines `invalid_tools.py`'s invalid tools give, in order.
const INVALID: [&str; 3] = [
    "tool #1: rejected: it has no `name`",
    "bad_schema: rejected: its `inputSchema` is not a JSON object",
    "tool #3: rejected: its `name` is not a string",
];

#[test]
fn invalid_tools_fail_the_listing_naming_each() {
    let run = list(&[], "invalid_tools.py");
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    let rejected: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains(": rejected: "))
        .collect();
    assert_eq!(rejected, INVALID, "{}", run.stderr);
    assert_eq!(
        run.last_line(),
        "tooldef: 3 tools cannot be converted for OpenAI Chat Completions: tool #1, bad_schema, \
         tool #3 (see above; --lenient skips them)"
    );
}

#[test]
fn lenient_skips_invalid_tools_and_converts_the_others() {
    let run = list(&["--lenient"], "invalid_tools.py");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(printed_names(&run), ["echo", "add"]);
    let rejected: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains(": rejected: "))
        .collect();
    assert_eq!(rejected, INVALID, "{}", run.stderr);
}

#[test]
fn call_reaches_a_valid_tool_beside_invalid_ones() {
    let run = tooldef(
        &[
            "call",
            "--to",
            "chat",
            "--tool",
            "echo",
            "--arguments",
            r#"{"text": "still here"}"#,
        ],
        "invalid_tools.py",
        &[],
        &[],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let result: Value = serde_json::from_str(&run.stdout).expect("the result is JSON");
    assert_eq!(result["content"][0]["text"], "still here");
    // Only the called tool is reported on: the invalid ones beside it are not named.
    assert!(!run.stderr.contains(": rejected: "), "{}", run.stderr);

    // The invalid tool itself cannot be called, and says why.
    let run = tooldef(
        &["call", "--to", "chat", "--tool", "bad_schema"],
        "invalid_tools.py",
        &[],
        &[],
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert_eq!(
        run.last_line(),
        "tooldef: `bad_schema` cannot be converted for OpenAI Chat Completions, so its model \
         cannot call it: its `inputSchema` is not a JSON object"
    );
}

/// A file for the grandchild's pid, and the grandchild killed at the end whatever happened.
struct Grandchild {
    file: PathBuf,
}

impl Grandchild {
    fn new(name: &str) -> Self {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tooldef-cli-misbehaving");
        std::fs::create_dir_all(&dir).expect("the temporary directory can be made");
        let file = dir.join(format!("{}-{name}.pid", std::process::id()));
        let _ = std::fs::remove_file(&file);
        Grandchild { file }
    }

    fn pid(&self) -> libc::pid_t {
        let text = std::fs::read_to_string(&self.file).expect("the server wrote the pid");
        text.trim().parse().expect("a pid")
    }

    /// Whether it still runs: a zombie waiting to be reaped by whoever inherited it does not.
    fn running(&self) -> bool {
        let pid = self.pid();
        // SAFETY: signal 0 only checks that the process exists.
        let exists = unsafe { libc::kill(pid, 0) } == 0;
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            // The state follows the command in parentheses, which may hold spaces.
            .and_then(|stat| {
                stat.rsplit_once(')')
                    .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            })
            .unwrap_or(false);
        exists && !zombie
    }

    /// Waits up to `within` for it to be gone.
    fn gone_within(&self, within: Duration) -> bool {
        let until = Instant::now() + within;
        while self.running() {
            if Instant::now() > until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }
}

impl Drop for Grandchild {
    fn drop(&mut self) {
        if let Ok(text) = std::fs::read_to_string(&self.file) {
            if let Ok(pid) = text.trim().parse::<libc::pid_t>() {
                // SAFETY: kill(2) on the pid the test server started; harmless if gone.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            let _ = std::fs::remove_file(&self.file);
        }
    }
}

#[test]
fn a_grandchild_holding_the_server_s_stdout_is_ended_with_it() {
    let grandchild = Grandchild::new("serve");
    let file = grandchild.file.to_str().expect("a UTF-8 path").to_owned();
    let run = tooldef(
        &["list", "--to", "chat"],
        "grandchild.py",
        &["serve"],
        &[("TOOLDEF_TEST_PID_FILE", &file)],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(printed_names(&run), ["echo"]);
    assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
    assert!(
        grandchild.gone_within(Duration::from_secs(1)),
        "the grandchild {} still runs",
        grandchild.pid()
    );
}

#[test]
fn a_server_that_exits_leaving_its_stdout_open_does_not_hang_the_command() {
    let grandchild = Grandchild::new("exit");
    let file = grandchild.file.to_str().expect("a UTF-8 path").to_owned();
    let run = tooldef(
        &["list", "--to", "chat", "--timeout", "60"],
        "grandchild.py",
        &["exit"],
        &[("TOOLDEF_TEST_PID_FILE", &file)],
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.last_line(),
        format!(
            "tooldef: `{} exit` exited with status 0 before answering `tools/list`, leaving a \
             process it started holding its stdout open; that process was ended too",
            shown("grandchild.py")
        )
    );
    // Its --timeout is 60 s: the exit is noticed at once.
    assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
    assert!(
        grandchild.gone_within(Duration::from_secs(1)),
        "the grandchild {} still runs",
        grandchild.pid()
    );
}
