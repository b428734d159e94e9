//! What the server keeps per client session of MCP 2025-11-25 and earlier: the log level a
//! client set, the resources it subscribed to.
//!
//! rmcp gives a session no identity of its own; its handshake record (the client's
//! `initialize` params, which rmcp keeps in one `Arc` per session once the handshake is done)
//! stands for it. An entry holds that `Arc`, so its address cannot be reused by another
//! session while the entry lives; entries of sessions whose connection closed are dropped
//! whenever one is changed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::InitializeRequestParams;
use rmcp::{Peer, RoleServer};

/// A value per session.
pub(super) struct Sessions<T> {
    by_session: Mutex<HashMap<usize, Session<T>>>,
}

impl<T> Default for Sessions<T> {
    fn default() -> Self {
        Sessions {
            by_session: Mutex::default(),
        }
    }
}

struct Session<T> {
    /// Keeps the key's address from being reused.
    _handshake: Arc<InitializeRequestParams>,
    peer: Peer<RoleServer>,
    value: T,
}

/// The client did not go through `initialize`: it has no session to keep anything in.
pub(super) struct NoSession;

impl<T> Sessions<T> {
    /// Changes the value of `peer`'s session, starting from `new()` the first time.
    pub(super) fn update(
        &self,
        peer: &Peer<RoleServer>,
        new: impl FnOnce() -> T,
        change: impl FnOnce(&mut T),
    ) -> Result<(), NoSession> {
        let handshake = peer.peer_info().ok_or(NoSession)?;
        let mut sessions = self
            .by_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|_, session| !session.peer.is_transport_closed());
        let session = sessions.entry(key(&handshake)).or_insert_with(|| Session {
            _handshake: Arc::clone(&handshake),
            peer: peer.clone(),
            value: new(),
        });
        change(&mut session.value);
        Ok(())
    }

    /// What `read` finds in `peer`'s session, if it has a value.
    pub(super) fn get<R>(&self, peer: &Peer<RoleServer>, read: impl FnOnce(&T) -> R) -> Option<R> {
        let handshake = peer.peer_info()?;
        let sessions = self
            .by_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        sessions
            .get(&key(&handshake))
            .map(|session| read(&session.value))
    }

    /// The open sessions whose value `select` takes.
    pub(super) fn peers(&self, select: impl Fn(&T) -> bool) -> Vec<Peer<RoleServer>> {
        let sessions = self
            .by_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        sessions
            .values()
            .filter(|session| !session.peer.is_transport_closed() && select(&session.value))
            .map(|session| session.peer.clone())
            .collect()
    }
}

fn key(handshake: &Arc<InitializeRequestParams>) -> usize {
    Arc::as_ptr(handshake) as usize
}
