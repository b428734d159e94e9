//! Injected context: tool parameters that are not arguments, in the spirit of axum's extractors.
//!
//! A parameter of type [`State<T>`], [`CallContext`], [`CancellationToken`],
//! [`Progress`](crate::Progress) or [`ClientLog`](crate::ClientLog), or any parameter marked
//! `#[context]` whose type implements [`FromCallContext`], is filled from the call's context
//! rather than from the model's arguments, and does not appear in the schema.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

pub use tokio_util::sync::CancellationToken;

/// What a call carries besides its arguments: application state and per-call metadata.
///
/// Cheap to clone (reference-counted).
#[derive(Clone, Default)]
pub struct CallContext {
    call_id: Option<Arc<str>>,
    state: Arc<StateMap>,
    /// Made on first use and shared by every clone of this context, so that the tool's clone and
    /// the tool set's (which cancels on timeout) hold the same token, and a call whose tool never
    /// asks for one does not pay for it.
    cancellation: Arc<OnceLock<CancellationToken>>,
}

/// Application state by type. Cloning clones the `Arc`s, not the values.
#[derive(Default, Clone)]
struct StateMap(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl CallContext {
    /// A context with no state and no call id.
    pub fn new() -> CallContext {
        CallContext::default()
    }

    /// Adds application state, reachable from tools through [`State<T>`]. A value of the same
    /// type given before is replaced.
    #[must_use]
    pub fn with_state<T: Clone + Send + Sync + 'static>(mut self, value: T) -> CallContext {
        Arc::make_mut(&mut self.state)
            .0
            .insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// Sets the id the model gave this tool call (Chat Completions `tool_calls[].id`, Responses
    /// `call_id`, MCP request id).
    #[must_use]
    pub fn with_call_id(mut self, call_id: impl Into<Arc<str>>) -> CallContext {
        self.call_id = Some(call_id.into());
        self
    }

    /// Sets the token that tells the tool to stop (cancelled when the call times out, or when
    /// the client cancels the request).
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> CallContext {
        self.cancellation = Arc::new(OnceLock::from(token));
        self
    }

    /// The token that says this call should stop.
    pub fn cancellation(&self) -> &CancellationToken {
        self.cancellation.get_or_init(CancellationToken::new)
    }

    /// Cancels the call's token, if anything took it (a token nobody holds needs no telling).
    pub(crate) fn cancel(&self) {
        if let Some(token) = self.cancellation.get() {
            token.cancel();
        }
    }

    /// This context's state plus `call`'s call id, cancellation and state (which wins where both
    /// have a value of one type).
    pub(crate) fn merge_call(&self, call: CallContext) -> CallContext {
        let mut state = (*self.state).clone();
        state
            .0
            .extend(call.state.0.iter().map(|(k, v)| (*k, Arc::clone(v))));
        CallContext {
            call_id: call.call_id,
            state: Arc::new(state),
            cancellation: call.cancellation,
        }
    }

    /// The id of this tool call, when the caller gave one.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// The state of type `T`, when it was given.
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.state
            .0
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
            .cloned()
    }
}

impl fmt::Debug for CallContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallContext")
            .field("call_id", &self.call_id)
            .field("state_types", &self.state.0.len())
            .finish()
    }
}

/// Application state of type `T`, injected into a tool parameter: `State(db): State<Db>`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct State<T>(pub T);

/// A type a tool parameter can be filled with from the [`CallContext`].
pub trait FromCallContext: Sized {
    /// Extracts the value, or says what is missing.
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError>;
}

impl<T: Clone + Send + Sync + 'static> FromCallContext for State<T> {
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
        context
            .state::<T>()
            .map(State)
            .ok_or(ContextError::MissingState {
                type_name: type_name::<T>(),
            })
    }
}

impl FromCallContext for CancellationToken {
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
        Ok(context.cancellation().clone())
    }
}

impl FromCallContext for CallContext {
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
        Ok(context.clone())
    }
}

/// Why a context parameter could not be filled. This is the server's mistake, not the model's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContextError {
    /// A tool takes `State<T>` but no `T` was given to the call's context.
    #[error(
        "the server has no state of type `{type_name}`: give it with `CallContext::with_state`"
    )]
    MissingState {
        /// The missing state's type.
        type_name: &'static str,
    },
    /// A custom extractor failed.
    #[error("{0}")]
    Other(String),
}
