//! Why a command failed, and its exit status.

use std::process::ExitCode;

/// A failed command: a one-line message for stderr and an exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The message, without the `tooldef: ` prefix.
    pub message: String,
    /// The exit status.
    pub status: u8,
}

impl Failure {
    /// A usage or input error: exit status 2.
    pub fn input(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            status: 2,
        }
    }

    /// Rejected tools: exit status 1.
    pub fn rejected(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            status: 1,
        }
    }

    /// This process was asked to stop by `signal` while it drove a server, and then did what
    /// `ended` says (`` `COMMAND` was shut down``): the exit status a shell gives a command that
    /// signal ends, 128 + its number.
    pub fn stopped(signal: i32, ended: &str) -> Self {
        let name = match signal {
            libc::SIGINT => "SIGINT".to_owned(),
            libc::SIGTERM => "SIGTERM".to_owned(),
            other => format!("signal {other}"),
        };
        Failure {
            message: format!("stopped by {name}; {ended}"),
            status: u8::try_from(128 + signal).unwrap_or(u8::MAX),
        }
    }

    /// Prints the message on stderr and returns the exit status.
    pub fn report(&self) -> ExitCode {
        // One line: a multi-line cause (a server's error, say) is folded.
        let message = self
            .message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        eprintln!("tooldef: {message}");
        ExitCode::from(self.status)
    }
}
