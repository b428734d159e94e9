//! Injected context: tool parameters that are not arguments, in the spirit of axum's extractors.
//!
//! A parameter of type [`State<T>`], [`CallContext`], [`CancellationToken`],
//! [`Progress`](crate::Progress) or [`ClientLog`](crate::ClientLog), or any parameter marked
//! `#[context]` whose type implements [`FromCallContext`], is filled from the call's context
//! rather than from the model's arguments, and does not appear in the schema.

use std::any::{Any, TypeId, type_name};
use std::fmt;
use std::sync::{Arc, OnceLock};

pub use tokio_util::sync::CancellationToken;

/// What a call carries besides its arguments: application state and per-call metadata.
///
/// Cheap to clone (reference-counted).
///
/// A tool takes it as a parameter to learn its call's id, find state by type or watch for
/// cancellation; a caller makes one to give a call its id and state of its own.
///
/// ```
/// use tooldef::{CallContext, ToolSet, tool};
///
/// /// Say which call this is.
/// #[tool]
/// fn whoami(call: CallContext) -> String {
///     format!("call {}", call.call_id().unwrap_or("without an id"))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = ToolSet::builder().tool(Whoami).build()?;
/// let call = CallContext::new().with_call_id("call_7").with_state(42_u32);
/// assert_eq!(call.state::<u32>(), Some(42));
/// let output = tools.call_with("whoami", "{}", call).await?;
/// assert_eq!(output.to_text(), "call call_7");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct CallContext {
    call_id: Option<Arc<str>>,
    /// State given to this context, which wins over `shared`.
    state: Arc<StateMap>,
    /// The state of the tool set a call runs in: every call shares it rather than copying it.
    shared: Option<Arc<StateMap>>,
    /// Made on first use and shared by every clone of this context, so that the tool's clone and
    /// the tool set's (which cancels on timeout) hold the same token, and a call whose tool never
    /// asks for one does not pay for it.
    cancellation: Arc<OnceLock<CancellationToken>>,
}

/// Application state by type. Cloning clones the `Arc`s, not the values. A list, not a hash
/// map: a context holds a few types, which a scan finds sooner than SipHash hashes one.
#[derive(Default, Clone)]
struct StateMap(Vec<(TypeId, Arc<dyn Any + Send + Sync>)>);

impl StateMap {
    fn get(&self, id: TypeId) -> Option<&Arc<dyn Any + Send + Sync>> {
        self.0.iter().find(|(k, _)| *k == id).map(|(_, v)| v)
    }

    /// Adds a value, replacing one of the same type.
    fn insert(&mut self, id: TypeId, value: Arc<dyn Any + Send + Sync>) {
        match self.0.iter_mut().find(|(k, _)| *k == id) {
            Some((_, old)) => *old = value,
            None => self.0.push((id, value)),
        }
    }

    /// Adds every value of `other`, which wins where both have one type.
    fn extend(&mut self, other: &StateMap) {
        for (id, value) in &other.0 {
            self.insert(*id, Arc::clone(value));
        }
    }
}

impl CallContext {
    /// A context with no state and no call id.
    pub fn new() -> CallContext {
        CallContext::default()
    }

    /// Adds application state, reachable from tools through [`State<T>`]. A value of the same
    /// type given before is replaced.
    #[must_use]
    pub fn with_state<T: Clone + Send + Sync + 'static>(mut self, value: T) -> CallContext {
        Arc::make_mut(&mut self.state).insert(TypeId::of::<T>(), Arc::new(value));
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
        let shared = match (&self.shared, &call.shared) {
            // The usual case, a tool set's context and a call's: nothing is copied.
            (None, None) => Arc::clone(&self.state),
            _ => {
                let mut flat = StateMap::default();
                for layer in [&self.shared, &Some(Arc::clone(&self.state)), &call.shared]
                    .into_iter()
                    .flatten()
                {
                    flat.extend(layer);
                }
                Arc::new(flat)
            }
        };
        CallContext {
            call_id: call.call_id,
            state: call.state,
            shared: Some(shared),
            cancellation: call.cancellation,
        }
    }

    /// The id of this tool call, when the caller gave one.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// Whether state of this type was given.
    pub(crate) fn has_state(&self, id: TypeId) -> bool {
        self.state.get(id).is_some()
            || self
                .shared
                .as_ref()
                .is_some_and(|shared| shared.get(id).is_some())
    }

    /// The state of type `T`, when it was given.
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        let id = TypeId::of::<T>();
        self.state
            .get(id)
            .or_else(|| self.shared.as_ref().and_then(|shared| shared.get(id)))
            .and_then(|value| value.downcast_ref::<T>())
            .cloned()
    }
}

impl fmt::Debug for CallContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallContext")
            .field("call_id", &self.call_id)
            .field(
                "state_types",
                &(self.state.0.len() + self.shared.as_ref().map_or(0, |s| s.0.len())),
            )
            .finish()
    }
}

/// Application state of type `T`, injected into a tool parameter: `State(db): State<Db>`.
///
/// The state is given to the tool set once
/// ([`ToolSetBuilder::state`](crate::ToolSetBuilder::state)) or to one call
/// ([`CallContext::with_state`]), and found by its type; each call gets a clone, so keep what is
/// large or shared behind an `Arc`.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use tooldef::{State, ToolSet, tool};
///
/// #[derive(Clone, Default)]
/// struct Visits(Arc<AtomicU64>);
///
/// /// Count a visit.
/// #[tool]
/// fn visit(State(visits): State<Visits>) -> u64 {
///     visits.0.fetch_add(1, Ordering::SeqCst) + 1
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let visits = Visits::default();
/// let tools = ToolSet::builder().tool(Visit).state(visits.clone()).build()?;
/// tools.call("visit", "{}").await?;
/// assert_eq!(tools.call("visit", "{}").await?.to_text(), "2");
/// assert_eq!(visits.0.load(Ordering::SeqCst), 2);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct State<T>(pub T);

/// A type a tool parameter can be filled with from the [`CallContext`].
///
/// Implement it for context of your own, and mark the parameter `#[context]`: like an axum
/// extractor, it is made from the call's context and is not an argument the model sends.
///
/// ```
/// use tooldef::{CallContext, ContextError, FromCallContext, ToolError, ToolSet, tool};
///
/// #[derive(Clone)]
/// struct Session {
///     user: String,
/// }
///
/// /// The user a call is made for.
/// struct User(String);
///
/// impl FromCallContext for User {
///     fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
///         let session = context.state::<Session>();
///         session.map(|session| User(session.user)).ok_or_else(|| ContextError::Other("no session".into()))
///     }
/// }
///
/// /// Greet the user.
/// #[tool]
/// fn hello(#[context] user: User) -> String {
///     format!("hello, {}", user.0)
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = ToolSet::builder().tool(Hello).build()?;
/// let call = CallContext::new().with_state(Session { user: "ada".into() });
/// assert_eq!(tools.call_with("hello", "{}", call).await?.to_text(), "hello, ada");
/// // Without a session the server is at fault, not the model, and the error says so.
/// let error = tools.call("hello", "{}").await.unwrap_err();
/// assert!(matches!(error, ToolError::Unavailable { .. }));
/// # Ok(())
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not injected context, and the parameter is taken as context",
    label = "taken as context by its type's name",
    note = "`#[tool]` takes a parameter as context when it is marked `#[context]` or its type is named `State<…>`, `CallContext`, `CancellationToken`, `Progress`, `ClientLog`, `Elicit` or `Sample`; for an argument of a type of yours so named, import it under another name (`use crate::audio::Sample as AudioSample;`), and for context of your own, implement `FromCallContext`"
)]
pub trait FromCallContext: Sized {
    /// Extracts the value, or says what is missing.
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError>;

    /// The application state this parameter needs, which [`ToolSetBuilder::build`] checks was
    /// given to the builder (with [`state`](crate::ToolSetBuilder::state), or declared
    /// per call with [`state_per_call`](crate::ToolSetBuilder::state_per_call)), so that a
    /// missing `.state(…)` is an error at start-up rather than a failure of every call.
    /// `State<T>` needs a `T`; an extractor of yours that reads state can say so:
    ///
    /// ```
    /// use tooldef::{CallContext, ContextError, FromCallContext, NeededState};
    ///
    /// #[derive(Clone)]
    /// struct Pool;
    /// struct Connection;
    ///
    /// impl FromCallContext for Connection {
    ///     fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
    ///         context.state::<Pool>().map(|_pool| Connection).ok_or(
    ///             ContextError::MissingState { type_name: std::any::type_name::<Pool>() },
    ///         )
    ///     }
    ///
    ///     fn needed_state() -> Option<NeededState> {
    ///         Some(NeededState::of::<Pool>())
    ///     }
    /// }
    /// ```
    ///
    /// [`ToolSetBuilder::build`]: crate::ToolSetBuilder::build
    fn needed_state() -> Option<NeededState> {
        None
    }
}

/// A type of application state that a tool, prompt or resource needs (see
/// [`FromCallContext::needed_state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NeededState {
    id: TypeId,
    name: &'static str,
}

impl NeededState {
    /// State of type `T`.
    pub fn of<T: 'static>() -> NeededState {
        NeededState {
            id: TypeId::of::<T>(),
            name: type_name::<T>(),
        }
    }

    /// The type's name, as `std::any::type_name` gives it.
    pub fn type_name(&self) -> &'static str {
        self.name
    }

    pub(crate) fn id(&self) -> TypeId {
        self.id
    }
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

    fn needed_state() -> Option<NeededState> {
        Some(NeededState::of::<T>())
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
        "the server has no state of type `{type_name}`: give it to the tool set with `ToolSetBuilder::state`, or to the call with `CallContext::with_state`"
    )]
    MissingState {
        /// The missing state's type.
        type_name: &'static str,
    },
    /// A custom extractor failed.
    #[error("{0}")]
    Other(String),
}
