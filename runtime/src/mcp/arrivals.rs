//! `subscriptions/listen` streams that rmcp has acknowledged but not yet handed to the server.
//!
//! rmcp sends a stream's acknowledgment before it calls [`listen`](rmcp::ServerHandler::listen),
//! where the server learns the stream's sink. A client told that it listens may at once call a
//! tool that announces a change; sent in between, the notification would miss it. So the
//! server counts a stream as arriving when it accepts its filter, and a notification waits
//! (briefly) for the streams on their way before it picks whom to tell.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// How long a notification waits for streams on their way.
const WAIT: Duration = Duration::from_millis(250);

/// An acknowledged stream not handed over within this long never will be (its acknowledgment
/// could not be sent): it stops holding notifications up.
const GIVE_UP: Duration = Duration::from_secs(1);

#[derive(Default)]
pub(super) struct Arrivals {
    /// When each stream on its way was accepted, oldest first.
    pending: Mutex<VecDeque<Instant>>,
    arrived: Notify,
}

impl Arrivals {
    /// A stream's filter was accepted: it is on its way.
    pub(super) fn expect(&self) {
        self.lock().push_back(Instant::now());
    }

    /// A stream was handed over and is registered.
    pub(super) fn arrived(&self) {
        self.lock().pop_front();
        self.arrived.notify_waiters();
    }

    /// Returns when no stream is on its way, or after [`WAIT`].
    pub(super) async fn settled(&self) {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let notified = self.arrived.notified();
            tokio::pin!(notified);
            // Registered before the check, so that an arrival between the two is not missed.
            notified.as_mut().enable();
            {
                let mut pending = self.lock();
                pending.retain(|accepted| accepted.elapsed() < GIVE_UP);
                if pending.is_empty() {
                    return;
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return;
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Instant>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
