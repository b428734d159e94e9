//! A server started as a child process for a test, serving over HTTP at the address it prints
//! on stderr (the `mcp_server` example with `--http 127.0.0.1:0`, a hostile test server with
//! `--http`): started, its URL read, and killed when the test is done with it, whether the
//! test passed or panicked.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a server has to say where it serves; it takes milliseconds once built.
const START: Duration = Duration::from_secs(60);

/// A server running as a child process; killed (and reaped) when dropped.
pub struct Served {
    child: Child,
    url: String,
    /// Everything it wrote on stderr so far.
    log: Arc<Mutex<String>>,
}

impl Served {
    /// Starts `command` and waits for the first URL (`http://…`) on its stderr, which is kept
    /// being read (so the server never blocks on a full pipe) into [`log`](Self::log).
    pub fn start(mut command: Command) -> Served {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("{command:?} starts: {err}"));
        let stderr = child.stderr.take().expect("stderr is piped");
        let log = Arc::new(Mutex::new(String::new()));
        let (found, url) = mpsc::channel();
        let kept = Arc::clone(&log);
        std::thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                // Into the log before the URL is handed over: a test that reads the log as soon
                // as it has the URL must find the line that gave it.
                {
                    let mut log = kept
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    log.push_str(&line);
                    log.push('\n');
                }
                if let Some(at) = line.find("http://") {
                    let url: String = line[at..].split_whitespace().next().unwrap_or("").into();
                    if let Some(found) = found.take() {
                        let _ = found.send(url);
                    }
                }
            }
        });
        let mut served = Served {
            child,
            url: String::new(),
            log,
        };
        match url.recv_timeout(START) {
            Ok(url) => served.url = url,
            Err(_) => panic!(
                "{command:?} did not say where it serves within {START:?} (exit: {:?}); stderr:\n{}",
                served.child.try_wait(),
                served.log()
            ),
        }
        served
    }

    /// The `mcp_server` example serving Streamable HTTP on a free port, with `args` after
    /// `--http 127.0.0.1:0`.
    pub fn example(args: &[&str]) -> Served {
        let mut command = Command::new(crate::mcp_server_example());
        command.args(["--http", "127.0.0.1:0"]).args(args);
        Served::start(command)
    }

    /// The URL it printed, e.g. `http://127.0.0.1:43125/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `http://HOST:PORT`, without the path.
    pub fn origin(&self) -> &str {
        let after_scheme = "http://".len();
        let end = self.url[after_scheme..]
            .find('/')
            .map_or(self.url.len(), |at| at + after_scheme);
        &self.url[..end]
    }

    /// What it wrote on stderr so far.
    pub fn log(&self) -> String {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Whether it is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
