//! The user's side: the browser of the authorization code grant ([`UserAgent`], [`Redirect`]),
//! what it brings back ([`Callback`]), and the time spent waiting for the person at it
//! ([`UserTime`]), which callers leave out of their own time limits.

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::sync::watch;
use tokio::time::Instant;

/// The user's browser, for the authorization code grant: it is given the authorization URL and
/// comes back to the redirect URI with the code.
pub trait UserAgent: Send + Sync {
    /// Starts listening for the redirect; `previous` is the redirect URI a kept registration
    /// was made with, to be reused when it can be (some servers match it exactly). `Err` says
    /// why no browser can be used.
    fn listen<'a>(
        &'a self,
        previous: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, String>>;
}

/// A redirect URI being listened on.
pub trait Redirect: Send {
    /// The URI the authorization server sends the browser back to.
    fn uri(&self) -> &str;
    /// Sends the user to `authorization_url` and waits for the redirect carrying `state`;
    /// others are answered and ignored. `Err` says why none came (a refusal, a timeout).
    fn visit(
        self: Box<Self>,
        authorization_url: String,
        state: String,
    ) -> BoxFuture<'static, Result<Callback, String>>;
}

/// What the authorization server sent back to the redirect URI.
#[derive(Clone, PartialEq, Eq)]
pub struct Callback {
    /// The authorization code.
    pub code: String,
    /// The `state`, as sent.
    pub state: String,
    /// The `iss` parameter (RFC 9207), when the server sends one.
    pub issuer: Option<String>,
}

/// The code is a credential: never printed.
impl fmt::Debug for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callback")
            .field("code", &"<redacted>")
            .field("issuer", &self.issuer)
            .finish()
    }
}

/// The time spent waiting for the user in the browser, which a caller's own time limit leaves
/// out: a person signing in is not a server that does not answer.
#[derive(Clone)]
pub struct UserTime {
    /// Time spent in finished waits, and the start of the one going on.
    state: watch::Sender<(Duration, Option<Instant>)>,
}

impl Default for UserTime {
    fn default() -> UserTime {
        UserTime {
            state: watch::Sender::new((Duration::ZERO, None)),
        }
    }
}

impl UserTime {
    /// The time spent waiting for the user so far, and whether a wait is going on.
    pub fn spent(&self) -> (Duration, bool) {
        let (done, since) = *self.state.borrow();
        match since {
            Some(since) => (done + since.elapsed(), true),
            None => (done, false),
        }
    }

    /// Resolves when a wait starts or ends.
    pub async fn changed(&self) {
        let mut receiver = self.state.subscribe();
        // The sender lives in `self`, so the channel never closes under this wait.
        let _ = receiver.changed().await;
    }

    pub(super) fn begin(&self) {
        self.state
            .send_modify(|(_, since)| *since = Some(Instant::now()));
    }

    pub(super) fn end(&self) {
        self.state.send_modify(|(done, since)| {
            if let Some(since) = since.take() {
                *done += since.elapsed();
            }
        });
    }
}

/// Ends a wait for the user however the wait ends.
pub(super) struct Waiting<'a>(pub(super) &'a UserTime);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}
