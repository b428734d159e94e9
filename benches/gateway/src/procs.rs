//! The benchmark's child processes (the scripted upstream and the gateway): started, waited for
//! until they say where they listen, drained of their output, and stopped when dropped (on
//! success, on error and on panic); and what `/proc` says of a process: its CPU time and its
//! memory.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a child gets to say where it listens (the gateway first starts its MCP servers).
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a child gets to stop after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(3);
/// How many of a child's last output lines are kept, to show when something fails.
const KEPT_LINES: usize = 40;

/// Proxies would put a third process between the benchmark and its local servers.
const PROXY_VARIABLES: [&str; 6] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];

/// A running child process, stopped when dropped.
pub struct Child {
    name: &'static str,
    process: std::process::Child,
    /// Its last lines of output.
    pub output: Arc<Mutex<VecDeque<String>>>,
}

impl Child {
    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.process.id()
    }

    /// Its last lines of output, for an error message.
    pub fn last_output(&self) -> String {
        let lines = self.output.lock().unwrap_or_else(|e| e.into_inner());
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// SIGTERM (so that the gateway stops its MCP server), then SIGKILL if it lingers.
    fn stop(&mut self) {
        if matches!(self.process.try_wait(), Ok(Some(_))) {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + STOP_GRACE;
        while Instant::now() < deadline {
            if matches!(self.process.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!(
            "gateway-bench: {} did not stop on SIGTERM; killing it",
            self.name
        );
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts `command` with the stream `read` (its stdout or stderr) piped, and waits for a line
/// containing `marker`; returns the child and what follows the marker on that line. The stream
/// keeps being drained (its last lines kept) so that the child never blocks writing to it.
pub fn start(
    name: &'static str,
    mut command: Command,
    marker: &'static str,
    read_stderr: bool,
) -> Result<(Child, String), String> {
    for variable in PROXY_VARIABLES {
        command.env_remove(variable);
    }
    command.stdin(Stdio::null());
    if read_stderr {
        command.stdout(Stdio::null()).stderr(Stdio::piped());
    } else {
        command.stdout(Stdio::piped()).stderr(Stdio::inherit());
    }
    let mut process = command
        .spawn()
        .map_err(|err| format!("cannot start {name} ({command:?}): {err}"))?;
    let stream: Box<dyn Read + Send> = if read_stderr {
        Box::new(process.stderr.take().expect("piped"))
    } else {
        Box::new(process.stdout.take().expect("piped"))
    };
    let output = Arc::new(Mutex::new(VecDeque::new()));
    let child = Child {
        name,
        process,
        output: output.clone(),
    };
    let (found, ready) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut found = Some(found);
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if let Some(at) = line.find(marker)
                && let Some(found) = found.take()
            {
                let _ = found.send(line[at + marker.len()..].trim().to_owned());
            }
            let mut kept = output.lock().unwrap_or_else(|e| e.into_inner());
            if kept.len() == KEPT_LINES {
                kept.pop_front();
            }
            kept.push_back(line);
        }
    });
    match ready.recv_timeout(READY_TIMEOUT) {
        Ok(rest) => Ok((child, rest)),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!(
            "{name} did not say `{marker}` within {} s; its last output:\n{}",
            READY_TIMEOUT.as_secs(),
            child.last_output()
        )),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(format!(
            "{name} stopped before saying `{marker}`; its last output:\n{}",
            child.last_output()
        )),
    }
}

/// A program next to this one (`target/release/NAME` for `target/release/gateway-bench`).
pub fn sibling(bin_dir: &Path, name: &str) -> Result<String, String> {
    let path = bin_dir.join(name);
    if !path.is_file() {
        return Err(format!(
            "{} is missing: build it with `cargo build --release -p tooldef-cli -p tooldef-scripted-upstream -p tooldef-gateway-bench`",
            path.display()
        ));
    }
    Ok(path.to_string_lossy().into_owned())
}

/// Clock ticks per second, the unit of `/proc/PID/stat`'s times.
pub fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse::<f64>().ok())
        .unwrap_or(100.0)
}

/// A process's CPU time so far (user and system, its own threads), in clock ticks.
pub fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|err| format!("cannot read /proc/{pid}/stat: {err}"))?;
    // The command name, in parentheses, may hold spaces: count fields after its end. Field 3
    // (the state) is the first after it; utime and stime are fields 14 and 15.
    let after = stat
        .rfind(')')
        .map(|at| &stat[at + 1..])
        .ok_or("unreadable /proc/PID/stat")?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| -> Result<u64, String> {
        fields
            .get(n - 3)
            .and_then(|value| value.parse().ok())
            .ok_or_else(|| format!("unreadable field {n} of /proc/{pid}/stat"))
    };
    Ok(field(14)? + field(15)?)
}

/// A process's resident memory now and at its peak (`VmRSS`, `VmHWM`), in KiB.
pub fn memory_kib(pid: u32) -> Result<(u64, u64), String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|err| format!("cannot read /proc/{pid}/status: {err}"))?;
    let field = |name: &str| -> Result<u64, String> {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .ok_or_else(|| format!("no {name} in /proc/{pid}/status"))
    };
    Ok((field("VmRSS:")?, field("VmHWM:")?))
}
