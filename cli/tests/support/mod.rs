//! Running the `tooldef` binary as a user does, shared by the CLI's test suites.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `command`, feeding `stdin` from a thread (a large input must not block on a full pipe
/// while the command writes).
pub fn run(mut command: Command, stdin: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tooldef starts");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("tooldef runs");
    writer.join().expect("the writer thread ends");
    output
}

/// What it printed on stdout.
pub fn stdout(output: &Output) -> &str {
    std::str::from_utf8(&output.stdout).expect("stdout is UTF-8")
}

/// What it printed on stderr.
pub fn stderr(output: &Output) -> &str {
    std::str::from_utf8(&output.stderr).expect("stderr is UTF-8")
}

/// Its exit status.
pub fn status(output: &Output) -> i32 {
    output.status.code().expect("tooldef exits, not killed")
}
