//! The server's process group. The server is started as the leader of a group of its own, so
//! that everything it starts (a wrapper's real server, a helper that inherited its stdout) can
//! be ended with it: killing the server alone leaves such a process running, holding the pipe.

use std::time::Duration;

/// How long the group has to exit after SIGTERM before it is killed.
const GRACE: Duration = Duration::from_millis(500);

/// How often the group, or the leader's exit, is looked at.
const POLL: Duration = Duration::from_millis(20);

/// A process group, ended when dropped if [`end`](Self::end) did not run to its end.
#[derive(Debug)]
pub struct ProcessGroup {
    /// The group's id: its leader's pid.
    id: libc::pid_t,
    ended: bool,
}

impl ProcessGroup {
    /// The group led by the child `pid`, started with `process_group(0)`; `None` for a pid that
    /// cannot be a group to signal (0 and 1 would signal this process's group or every process).
    pub fn led_by(pid: u32) -> Option<Self> {
        let id = libc::pid_t::try_from(pid).ok().filter(|&id| id > 1)?;
        Some(ProcessGroup { id, ended: false })
    }

    /// Sends `signal` to every process of the group; whether one was still there to get it.
    fn signal(&self, signal: libc::c_int) -> bool {
        // SAFETY: kill(2) takes any pid and signal number; a negative pid is a process group.
        unsafe { libc::kill(-self.id, signal) == 0 }
    }

    /// Ends the group: SIGTERM, [`GRACE`] to exit, then SIGKILL to whatever is left.
    pub async fn end(mut self) {
        if self.signal(libc::SIGTERM) {
            let until = tokio::time::Instant::now() + GRACE;
            // Signal 0 only asks whether the group still has a process.
            while self.signal(0) && tokio::time::Instant::now() < until {
                tokio::time::sleep(POLL).await;
            }
            self.signal(libc::SIGKILL);
        }
        // Only now: if this future is dropped half way, `drop` still kills the group.
        self.ended = true;
    }

    /// Resolves when the leader has exited, with how ("exited with status 1"). The leader is
    /// not reaped: rmcp's transport owns it and waits for it.
    pub async fn leader_exit(&self) -> String {
        loop {
            if let Some(how) = self.leader_exited() {
                return how;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    fn leader_exited(&self) -> Option<String> {
        // SAFETY: `siginfo_t` is plain data, for which all zeroes is a valid value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid(2) with WNOWAIT only reports; WNOHANG keeps it from blocking.
        let failed = unsafe {
            libc::waitid(
                libc::P_PID,
                self.id as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        } != 0;
        if failed {
            // ECHILD: already waited for, so it has exited.
            return Some("exited".to_owned());
        }
        // SAFETY: filled in by waitid for a child that exited, zero (as set above) otherwise.
        let (pid, status) = unsafe { (info.si_pid(), info.si_status()) };
        match info.si_code {
            _ if pid == 0 => None,
            libc::CLD_EXITED => Some(format!("exited with status {status}")),
            _ => Some(format!("was killed by signal {status}")),
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        // A path that did not end the group (a panic, a future given up half way): no grace,
        // but nothing left running.
        if !self.ended {
            self.signal(libc::SIGKILL);
        }
    }
}

/// Resolves when this process is asked to stop (Ctrl-C, SIGTERM), with the signal's number.
/// The server runs in a process group of its own, so the terminal's Ctrl-C no longer reaches
/// it: this process has to end it, and so must not simply die.
pub async fn stop_signal() -> i32 {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = async {
        match signal(SignalKind::interrupt()) {
            Ok(mut stream) => {
                stream.recv().await;
                libc::SIGINT
            }
            Err(_) => std::future::pending().await,
        }
    };
    let terminate = async {
        match signal(SignalKind::terminate()) {
            Ok(mut stream) => {
                stream.recv().await;
                libc::SIGTERM
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        number = interrupt => number,
        number = terminate => number,
    }
}
