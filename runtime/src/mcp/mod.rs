//! Serving a [`ToolSet`] from an MCP server, with rmcp as the engine (feature `mcp`).
//!
//! ```no_run
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! use tooldef::{mcp::McpServer, tool, toolset};
//!
//! /// Add two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! let server = McpServer::new(toolset![Add].build()?).with_name("calculator", "1.0.0");
//! server.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```
//!
//! [`McpServer::serve_http`] serves it over Streamable HTTP (feature `http`). `McpServer` is an
//! rmcp [`ServerHandler`] too, for any transport rmcp serves
//! (`server.serve(transport)` with [`rmcp::ServiceExt`]).

mod admission;
mod arrivals;
mod asking;
mod envelope;
#[cfg(feature = "http")]
mod http;
mod notify;
mod offer;
mod round_trip;
mod serve;
mod sessions;
mod transport;

#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http::{HttpOptions, HttpOptionsError};
pub use round_trip::INPUT_WAIT;
pub use serve::ServeError;
pub use transport::{LineTransport, WireLimits, stdio};

// rmcp and axum are not re-exported: a `pub use rmcp;` here puts rmcp's items among those
// rustc shortens type names against, and every compile error of a user's crate then reads
// `HashMap<std::string::String, …>` instead of `HashMap<String, …>`. `serve_stdio` and
// `serve_http` make them unnecessary for a server; beyond that, depend on rmcp 3 and axum 0.8.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    CompleteRequestParams, CompleteResult, ContentBlock, CreateTaskResult, ErrorCode,
    GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, PromptsCapability, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, RequestMetaObject, ResourcesCapability, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, Tool as RmcpTool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
// Logging is deprecated by MCP 2026-07-28 (SEP-2577), and by rmcp with it; still used before.
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::SubscriptionFilter;
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::Value;

use crate::targets::{McpOutputRules, TargetTool};
use crate::{
    CallContext, CancellationToken, Content, Progress, ProgressUpdate, Target, ToolError,
    ToolOutput, ToolSet,
};

/// An MCP server whose tools are a [`ToolSet`]: `tools/list` and `tools/call` per the MCP
/// specification (2025-11-25, and 2026-07-28's stateless requests through rmcp). Cheap to
/// clone: keep a clone to [swap the tools](McpServer::replace_tools) while it serves.
///
/// Tools can report progress ([`Progress`]: `notifications/progress` when the
/// request carries a `progressToken`) and log to the client ([`ClientLog`](crate::ClientLog):
/// `notifications/message` at the level the client asked for with `logging/setLevel` or the
/// request's `_meta`); the server declares the `logging` capability. A tool never waits long on
/// its client: one that has not taken a notification within a second counts as gone, and the
/// call's later notifications are dropped.
///
/// A tool's output schema reaches each client in the form its protocol version takes
/// ([`McpOutputRules`]): as it is for MCP 2026-07-28, wrapped as `{"result": …}` when its root
/// is not an object for earlier clients, together with the structured content of its results.
///
/// # Prompts, resources and completion
///
/// The set's prompts (`#[prompt]`, [`ToolSetBuilder::prompt`](crate::ToolSetBuilder::prompt))
/// and resources (`#[resource]`, [`ToolSetBuilder::resource`](crate::ToolSetBuilder::resource))
/// are served beside the tools: `prompts/list` and `prompts/get`, `resources/list`,
/// `resources/templates/list`, `resources/read`, `resources/subscribe` and `unsubscribe`, and
/// `completion/complete` for their arguments; the capabilities are declared when the set has
/// them. Tell subscribed clients that a resource changed with
/// [`resource_updated`](McpServer::resource_updated) (a tool reaches the server through a
/// `State<McpServer>` parameter), and every client that the lists changed with
/// [`resources_changed`](McpServer::resources_changed) and
/// [`prompts_changed`](McpServer::prompts_changed).
///
/// A server that needs a `ServerHandler` of its own can still delegate to an `McpServer`:
/// [`list_tools_page`](McpServer::list_tools_page), [`call`](McpServer::call) and its
/// `ServerHandler` methods.
///
/// ```
/// use tooldef::mcp::McpServer;
/// use tooldef::{Target, ToolSet, tool};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = McpServer::new(ToolSet::builder().tool(Add).build()?)
///     .with_name("calculator", "1.0.0")
///     .with_instructions("Arithmetic, exactly.");
/// // What `tools/list` and `tools/call` answer, without a client:
/// let output = server.tools().call("add", r#"{"a": 2, "b": 3}"#).await?;
/// assert_eq!(output.to_text(), "5");
/// assert_eq!(server.tools().list(Target::Mcp)?[0]["name"], "add");
/// // Serve it: `server.serve_stdio().await?`, or `serve_http` with the `http` feature.
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    current: RwLock<Arc<Listing>>,
    generation: AtomicU64,
    page_size: usize,
    info: Implementation,
    instructions: Option<String>,
    /// Clients that finished initialising (MCP 2025-11-25 and earlier), to tell when the tools
    /// change; a closed one is dropped when the next one comes or when the tools change.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// The `subscriptions/listen` streams open now (MCP 2026-07-28, where the client asks for
    /// `tools/list_changed` this way), by a number of their own: two clients' requests may
    /// share a JSON-RPC id.
    listeners: Mutex<Vec<(u64, SubscriptionSink)>>,
    /// The number the next listener gets.
    next_listener: AtomicU64,
    /// The listeners acknowledged but not yet registered.
    arrivals: arrivals::Arrivals,
    /// The log level each client session asked for.
    log_levels: Arc<notify::SessionLevels>,
    /// The resources each client session subscribed to.
    subscriptions: offer::Subscriptions,
    /// Calls of MCP 2026-07-28 clients waiting for the answer to a question.
    round_trips: round_trip::RoundTrips,
    /// The tasks of `#[tool(task)]` tools (the `io.modelcontextprotocol/tasks` extension).
    tasks: TaskManager,
    /// How long a task and its result are kept.
    task_ttl: Duration,
    /// `tools/list`'s cache hints (MCP 2026-07-28, SEP-2549): how long a listing may be used
    /// without asking again, and by whom.
    list_ttl: Option<Duration>,
    cache_scope: CacheScope,
}

/// How long clients may use a `tools/list` answer without asking again, by default: a
/// [`ToolSet`] does not change unless [`McpServer::replace_tools`] swaps it, which tells the
/// clients that listen.
pub const LIST_TTL: Duration = Duration::from_secs(3600);

/// How long a task and its result are kept, by default.
pub const TASK_TTL: Duration = Duration::from_secs(300);

/// A tool set and its MCP rendering, made once per set.
struct Listing {
    tools: ToolSet,
    rendered: Result<Rendered, String>,
    /// The prompts, resources and templates, as rmcp's types.
    offer: Result<offer::Offer, String>,
    generation: u64,
}

/// The tools as each protocol version's clients see them ([`McpOutputRules`]).
struct Rendered {
    /// MCP 2026-07-28 and later: output schemas as they are.
    any_value: Arc<[RmcpTool]>,
    /// Earlier versions: an output schema whose root is not an object wrapped in `result`.
    object_only: Arc<[RmcpTool]>,
}

/// How long [`McpServer::replace_tools`] waits for one client to take its notification.
pub const NOTIFY_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// The request metadata (`_meta`) of the MCP request that made a call: take `State<McpRequestMeta>`.
#[derive(Debug, Clone, PartialEq)]
pub struct McpRequestMeta(pub serde_json::Map<String, Value>);

impl McpServer {
    /// A server for `tools`, listed 100 a page.
    ///
    /// ```
    /// use tooldef::mcp::McpServer;
    /// use tooldef::{tool, toolset};
    ///
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let server = McpServer::new(toolset![Add].build().unwrap());
    /// assert_eq!(server.tools().len(), 1);
    /// ```
    pub fn new(tools: ToolSet) -> McpServer {
        let info = Implementation::from_build_env();
        McpServer {
            inner: Arc::new(Inner {
                current: RwLock::new(Arc::new(Listing::new(tools, 0))),
                generation: AtomicU64::new(0),
                page_size: 100,
                info,
                instructions: None,
                peers: Mutex::new(Vec::new()),
                listeners: Mutex::new(Vec::new()),
                next_listener: AtomicU64::new(0),
                arrivals: arrivals::Arrivals::default(),
                log_levels: Arc::default(),
                subscriptions: offer::Subscriptions::default(),
                round_trips: round_trip::RoundTrips::default(),
                tasks: TaskManager::new(),
                task_ttl: TASK_TTL,
                list_ttl: Some(LIST_TTL),
                cache_scope: CacheScope::Public,
            }),
        }
    }

    /// The name and version the server gives in `initialize`.
    ///
    /// ```
    /// use tooldef::ToolSet;
    /// use tooldef::mcp::McpServer;
    /// use rmcp::ServerHandler as _;
    ///
    /// let server = McpServer::new(ToolSet::builder().build().unwrap()).with_name("travel", "1.2.0");
    /// let info = server.get_info().server_info;
    /// assert_eq!((info.name.as_str(), info.version.as_str()), ("travel", "1.2.0"));
    /// ```
    #[must_use]
    pub fn with_name(self, name: impl Into<String>, version: impl Into<String>) -> McpServer {
        self.rebuild(|inner| {
            inner.info.name = name.into();
            inner.info.version = version.into();
        })
    }

    /// Instructions for the client, sent in `initialize`.
    #[must_use]
    pub fn with_instructions(self, instructions: impl Into<String>) -> McpServer {
        self.rebuild(|inner| inner.instructions = Some(instructions.into()))
    }

    /// How many tools a `tools/list` page holds (at least 1; default 100).
    #[must_use]
    pub fn with_page_size(self, page_size: usize) -> McpServer {
        self.rebuild(|inner| inner.page_size = page_size.max(1))
    }

    /// The cache hints of `tools/list` (MCP 2026-07-28): clients and intermediaries may use a
    /// listing for `ttl` without asking again (`None`: no hint, ask each time), and `scope` says
    /// who may share it (`Public`, the default: every client of this server sees the same
    /// tools; `Private` for a server whose tools depend on who asks). The default `ttl` is
    /// [`LIST_TTL`].
    #[must_use]
    pub fn with_list_cache(self, ttl: Option<Duration>, scope: CacheScope) -> McpServer {
        self.rebuild(|inner| {
            inner.list_ttl = ttl;
            inner.cache_scope = scope;
        })
    }

    /// How long a task of a `#[tool(task)]` tool, and then its result, is kept for the client
    /// to poll (default [`TASK_TTL`]); a task still running after it fails.
    #[must_use]
    pub fn with_task_ttl(self, ttl: Duration) -> McpServer {
        self.rebuild(|inner| inner.task_ttl = ttl)
    }

    /// Configuration happens before serving, while this is the only handle.
    fn rebuild(self, change: impl FnOnce(&mut Inner)) -> McpServer {
        let mut inner = match Arc::try_unwrap(self.inner) {
            Ok(inner) => inner,
            Err(shared) => Inner {
                current: RwLock::new(shared.listing()),
                generation: AtomicU64::new(shared.generation.load(Ordering::SeqCst)),
                page_size: shared.page_size,
                info: shared.info.clone(),
                instructions: shared.instructions.clone(),
                peers: Mutex::new(Vec::new()),
                listeners: Mutex::new(Vec::new()),
                next_listener: AtomicU64::new(0),
                arrivals: arrivals::Arrivals::default(),
                log_levels: Arc::default(),
                subscriptions: offer::Subscriptions::default(),
                round_trips: round_trip::RoundTrips::default(),
                tasks: TaskManager::new(),
                task_ttl: shared.task_ttl,
                list_ttl: shared.list_ttl,
                cache_scope: shared.cache_scope,
            },
        };
        change(&mut inner);
        McpServer {
            inner: Arc::new(inner),
        }
    }

    /// The tools being served.
    pub fn tools(&self) -> ToolSet {
        self.inner.listing().tools.clone()
    }

    /// Serves `tools` from now on, and sends `notifications/tools/list_changed` to every
    /// connected client: those that initialised a session (MCP 2025-11-25 and earlier) and those
    /// listening for it on `subscriptions/listen` (MCP 2026-07-28). Cursors of earlier listings
    /// stop being valid. Clients are told all at once, each within [`NOTIFY_WITHIN`]: one that
    /// does not read cannot hold up the others.
    ///
    /// ```
    /// use tooldef::mcp::McpServer;
    /// use tooldef::{ToolSet, tool};
    ///
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// /// Subtract a number from another.
    /// #[tool]
    /// fn subtract(a: i64, b: i64) -> i64 {
    ///     a - b
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = McpServer::new(ToolSet::builder().tool(Add).build()?);
    /// // Keep a clone while the server serves (`server.clone().serve_stdio()` in a task, say),
    /// // and swap the tools when they change: every connected client is told.
    /// let handle = server.clone();
    /// handle.replace_tools(ToolSet::builder().tool(Add).tool(Subtract).build()?).await;
    /// assert_eq!(server.tools().len(), 2);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn replace_tools(&self, tools: ToolSet) {
        let generation = self.inner.generation.fetch_add(1, Ordering::SeqCst) + 1;
        *self
            .inner
            .current
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(Listing::new(tools, generation));
        self.tell_all(Change::Tools).await;
        let tools = self.tools();
        if tools.has_prompts() {
            self.tell_all(Change::Prompts).await;
        }
        if tools.has_resources() {
            self.tell_all(Change::Resources).await;
        }
    }
}

/// Telling clients what changed beside the tools.
impl McpServer {
    /// Sends `notifications/resources/updated` for `uri` to the clients subscribed to it: the
    /// sessions that sent `resources/subscribe` (MCP 2025-11-25 and earlier) and the
    /// `subscriptions/listen` streams that name it (MCP 2026-07-28). A tool reaches the server
    /// through a `State<McpServer>` parameter.
    pub async fn resource_updated(&self, uri: &str) {
        let sessions = self.inner.subscriptions.subscribers(uri);
        let sessions = sessions.iter().map(|peer| async move {
            let params = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
            let _ = tokio::time::timeout(NOTIFY_WITHIN, peer.notify_resource_updated(params)).await;
        });
        let listeners = self.listeners().await;
        // A stream that did not ask for this URI refuses it: rmcp filters by what it asked.
        let streams = listeners.iter().map(|sink| async move {
            let _ = tokio::time::timeout(NOTIFY_WITHIN, sink.notify_resource_updated(uri)).await;
        });
        futures_util::future::join(
            futures_util::future::join_all(sessions),
            futures_util::future::join_all(streams),
        )
        .await;
    }

    /// Sends `notifications/resources/list_changed` to every connected client: the resources
    /// the application reads from changed (a file appeared, say) although the set did not.
    pub async fn resources_changed(&self) {
        self.tell_all(Change::Resources).await;
    }

    /// Sends `notifications/prompts/list_changed` to every connected client.
    pub async fn prompts_changed(&self) {
        self.tell_all(Change::Prompts).await;
    }

    /// The `subscriptions/listen` streams open now, those on their way included.
    async fn listeners(&self) -> Vec<SubscriptionSink> {
        self.inner.arrivals.settled().await;
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(_, sink)| sink.clone())
            .collect()
    }

    fn peers(&self) -> Vec<Peer<RoleServer>> {
        let mut peers = self
            .inner
            .peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        peers.retain(|peer| !peer.is_transport_closed());
        peers.clone()
    }

    /// Tells every client of every protocol version of `changes`, all at once, each within
    /// [`NOTIFY_WITHIN`]: one that does not read cannot hold up the others.
    async fn tell_all(&self, change: Change) {
        let peers = self.peers();
        let listeners = self.listeners().await;
        let sessions = peers.iter().map(|peer| async move {
            let sent = match change {
                Change::Tools => peer.notify_tool_list_changed().await,
                Change::Prompts => peer.notify_prompt_list_changed().await,
                Change::Resources => peer.notify_resource_list_changed().await,
            };
            let _ = sent;
        });
        let streams = listeners.iter().map(|sink| async move {
            let _ = match change {
                Change::Tools => sink.notify_tool_list_changed().await,
                Change::Prompts => sink.notify_prompt_list_changed().await,
                Change::Resources => sink.notify_resource_list_changed().await,
            };
        });
        let sessions = sessions.map(|told| tokio::time::timeout(NOTIFY_WITHIN, told));
        let streams = streams.map(|told| tokio::time::timeout(NOTIFY_WITHIN, told));
        futures_util::future::join(
            futures_util::future::join_all(sessions),
            futures_util::future::join_all(streams),
        )
        .await;
    }

    /// The page of a listing the request's cursor names.
    fn page(
        &self,
        request: Option<PaginatedRequestParams>,
        listing: &Listing,
        len: usize,
    ) -> Result<offer::Page, ErrorData> {
        offer::Page::of(
            request.and_then(|r| r.cursor).as_deref(),
            listing.generation,
            len,
            self.inner.page_size,
        )
    }

    /// The page of a listing of the set's prompts, resources or templates (`items`) that the
    /// request's cursor names, with the cache hints.
    fn listed<L: Paged>(
        &self,
        request: Option<PaginatedRequestParams>,
        items: impl Fn(&offer::Offer) -> &[L::Item],
    ) -> Result<L, ErrorData> {
        let listing = self.inner.listing();
        let items = items(listing.offer()?);
        let page = self.page(request, &listing, items.len())?;
        let listed = L::page(items[page.start..page.end].to_vec(), page.next_cursor);
        Ok(self.cached(listed))
    }

    /// A listing with the server's cache hints (MCP 2026-07-28).
    fn cached<L: Paged>(&self, mut result: L) -> L {
        if let Some(ttl) = self.inner.list_ttl {
            result.set(
                u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
                self.inner.cache_scope,
            );
        }
        result
    }
}

/// What changed, for [`McpServer::tell_all`].
#[derive(Clone, Copy)]
enum Change {
    Tools,
    Prompts,
    Resources,
}

/// The listings: a page of items, a cursor to the next, cache hints.
trait Paged {
    type Item: Clone;
    fn page(items: Vec<Self::Item>, next_cursor: Option<String>) -> Self;
    fn set(&mut self, ttl_ms: u64, scope: CacheScope);
}

macro_rules! paged {
    ($($listing:ty: $item:ty),*) => {$(
        impl Paged for $listing {
            type Item = $item;

            fn page(items: Vec<$item>, next_cursor: Option<String>) -> Self {
                let mut page = <$listing>::with_all_items(items);
                page.next_cursor = next_cursor;
                page
            }

            fn set(&mut self, ttl_ms: u64, scope: CacheScope) {
                self.ttl_ms = Some(ttl_ms);
                self.cache_scope = Some(scope);
            }
        }
    )*};
}

paged!(
    ListToolsResult: RmcpTool,
    ListPromptsResult: rmcp::model::Prompt,
    ListResourcesResult: rmcp::model::Resource,
    ListResourceTemplatesResult: rmcp::model::ResourceTemplate
);

/// The context of a request for a prompt or a resource: its own and its cancellation.
fn request_context(server: &McpServer, mut context: RequestContext<RoleServer>) -> CallContext {
    own_context(server, &mut context).with_cancellation(context.ct)
}

/// What the server gives every tool call and every prompt, resource and completion request: the
/// request's id, and as state the client's peer, the server itself and the request's `_meta`.
/// [`supplies_per_call`] says which state, for [`ToolSetBuilder::build`](crate::ToolSetBuilder::build).
fn own_context(server: &McpServer, context: &mut RequestContext<RoleServer>) -> CallContext {
    let RequestMetaObject(meta) = std::mem::take(&mut context.meta);
    CallContext::new()
        .with_call_id(context.id.to_string())
        .with_state(context.peer.clone())
        .with_state(server.clone())
        .with_state(McpRequestMeta(meta.0))
}

/// Whether [`own_context`] gives every request state of this type, so that a tool set served
/// here need not have it.
pub(crate) fn supplies_per_call(id: std::any::TypeId) -> bool {
    use std::any::TypeId;
    [
        TypeId::of::<Peer<RoleServer>>(),
        TypeId::of::<McpServer>(),
        TypeId::of::<McpRequestMeta>(),
    ]
    .contains(&id)
}

impl Listing {
    fn offer(&self) -> Result<&offer::Offer, ErrorData> {
        self.offer
            .as_ref()
            .map_err(|reason| ErrorData::internal_error(reason.clone(), None))
    }
}

impl Inner {
    fn listing(&self) -> Arc<Listing> {
        Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Listing {
    fn new(tools: ToolSet, generation: u64) -> Listing {
        let rendered = tools
            .list(Target::Mcp)
            .map_err(|err| err.to_string())
            .and_then(|values| {
                Ok(Rendered {
                    any_value: rmcp_tools(&values, McpOutputRules::AnyValue)?,
                    object_only: rmcp_tools(&values, McpOutputRules::ObjectOnly)?,
                })
            });
        let offer = offer::Offer::of(&tools);
        Listing {
            tools,
            rendered,
            offer,
            generation,
        }
    }
}

/// The MCP renderings as rmcp's tools, with their output schemas as `rules` want them.
fn rmcp_tools(rendered: &[Value], rules: McpOutputRules) -> Result<Arc<[RmcpTool]>, String> {
    rendered
        .iter()
        .map(|value| {
            let mut value = value.clone();
            if let Some(Value::Object(schema)) = value.get_mut("outputSchema") {
                *schema = rules.output_schema(schema).into_owned();
            }
            serde_json::from_value::<RmcpTool>(value)
                .map_err(|err| format!("a tool definition rmcp cannot read: {err}"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Arc::from)
}

/// Whether the request is of MCP 2026-07-28 or later: the version its `_meta` names, else the
/// one its session negotiated.
fn is_2026_07_28_or_later(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The output rules of the request's protocol version; a session without one (rmcp's
/// `serve_directly` without the client's handshake) gets the earlier versions' rules, which
/// every client accepts.
fn output_rules(context: &RequestContext<RoleServer>) -> McpOutputRules {
    rules_of(is_2026_07_28_or_later(context))
}

fn rules_of(modern: bool) -> McpOutputRules {
    if modern {
        McpOutputRules::AnyValue
    } else {
        McpOutputRules::ObjectOnly
    }
}

/// A call's outcome as MCP wants it: the output's blocks, and structured content when the tool
/// has an output schema (with the same JSON as a text block, as the specification asks), as it
/// is: what MCP 2026-07-28 takes. [`McpServer::call`] wraps the structured content of a tool
/// whose output schema is not an object for earlier clients ([`McpOutputRules`]).
pub fn call_tool_result(output: ToolOutput) -> CallToolResult {
    let content = output
        .content
        .into_iter()
        .map(|block| match block {
            Content::Text(text) => ContentBlock::text(text),
            Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
            Content::Audio { data, mime_type } => ContentBlock::audio(data, mime_type),
            Content::ResourceLink(map) => passed_on("resource_link", map),
            Content::Resource(map) => passed_on("resource", map),
        })
        .collect();
    let mut result = CallToolResult::success(content);
    result.structured_content = output.structured;
    result
}

/// A failed call as MCP wants it: an unknown tool is a protocol error (-32602), everything else
/// a result with `isError: true` whose text the model reads to correct itself.
pub fn call_tool_error(error: ToolError) -> Result<CallToolResult, ErrorData> {
    match error {
        ToolError::UnknownTool { .. } => Err(ErrorData::invalid_params(error.to_string(), None)),
        other => Ok(CallToolResult::error(vec![ContentBlock::text(
            other.to_string(),
        )])),
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        // Declared for the clients of MCP 2025-11-25 and earlier, which show log messages.
        #[allow(deprecated)]
        let mut capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_tasks()
            .build();
        // Prompts, resources and completion are declared when the set has them.
        let tools = self.inner.listing().tools.clone();
        if tools.has_prompts() {
            let mut prompts = PromptsCapability::default();
            prompts.list_changed = Some(true);
            capabilities.prompts = Some(prompts);
        }
        if tools.has_resources() {
            let mut resources = ResourcesCapability::default();
            resources.list_changed = Some(true);
            resources.subscribe = Some(true);
            capabilities.resources = Some(resources);
        }
        if tools.has_prompts() || tools.resource_templates().next().is_some() {
            capabilities.completions = Some(serde_json::Map::new());
        }
        let config = ServerConfig::new(capabilities).with_server_info(self.inner.info.clone());
        match &self.inner.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut peers = self
            .inner
            .peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Sessions end without telling the handler: the closed ones go when a new one comes,
        // so a long-running HTTP server does not keep every client it ever had.
        peers.retain(|peer| !peer.is_transport_closed());
        peers.push(context.peer);
    }

    /// MCP 2026-07-28: a client hears of tool list changes on a `subscriptions/listen` stream,
    /// and only of what it asked for; `tools/list_changed` is what this server has to say.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // rmcp keeps what the capabilities declare (prompts and resources only when the set
        // has them); a resource subscription must name a resource the server can read.
        let mut accepted = requested.clone();
        if let Some(uris) = accepted.resource_subscriptions.as_mut() {
            let tools = self.inner.listing().tools.clone();
            uris.retain(|uri| offer::readable(&tools, uri));
        }
        self.inner.arrivals.expect();
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let number = self.inner.next_listener.fetch_add(1, Ordering::Relaxed);
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((number, context.sink().clone()));
        self.inner.arrivals.arrived();
        context.cancelled().await;
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(other, _)| *other != number);
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.list_tools_page(request, &context)
    }

    /// `logging/setLevel`: the least severe level of the messages tools send this session
    /// (all of them until a client asks). MCP 2026-07-28 has no sessions: the level travels in
    /// each request's `_meta`.
    #[allow(deprecated)] // rmcp's logging types, deprecated with MCP's logging (SEP-2577).
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let no_session = || {
            ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "logging/setLevel needs a session started with `initialize` (MCP 2025-11-25 and \
                 earlier); on MCP 2026-07-28, send the level in each request's `_meta` as \
                 `io.modelcontextprotocol/logLevel`",
                None,
            )
        };
        if is_2026_07_28_or_later(&context) {
            return Err(no_session());
        }
        self.inner
            .log_levels
            .set(&context.peer, request.level)
            .map_err(|sessions::NoSession| no_session())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.listed(request, |offer| &offer.prompts)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let tools = self.tools();
        let arguments = offer::prompt_arguments(request.arguments)?;
        let call = request_context(self, context);
        offer::get_prompt(&tools, &request.name, arguments, call)
            .await
            .map(GetPromptResponse::Complete)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.listed(request, |offer| &offer.resources)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.listed(request, |offer| &offer.templates)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let tools = self.tools();
        let call = request_context(self, context);
        offer::read_resource(&tools, &request.uri, call)
            .await
            .map(ReadResourceResponse::Complete)
    }

    /// `resources/subscribe` (MCP 2025-11-25 and earlier): the session hears of the resource
    /// through [`McpServer::resource_updated`].
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner
            .subscriptions
            .subscribe(&self.tools(), &context.peer, request.uri)
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner
            .subscriptions
            .unsubscribe(&context.peer, &request.uri)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let tools = self.tools();
        offer::complete(&tools, request, request_context(self, context)).await
    }

    /// The tool rmcp's Streamable HTTP server checks a call's `Mcp-Param-*` headers against
    /// (the `x-mcp-header` of `#[arg(header = "…")]`).
    fn get_tool(&self, name: &str) -> Option<RmcpTool> {
        let listing = self.inner.listing();
        let rendered = listing.rendered.as_ref().ok()?;
        // `list` renders every tool or none, in the set's order: the set's index finds it
        // without a scan.
        let position = listing.tools.position(name)?;
        rendered
            .any_value
            .get(position)
            .filter(|tool| tool.name == name)
            .cloned()
    }

    /// `tasks/get` (the `io.modelcontextprotocol/tasks` extension): where a task of a
    /// `#[tool(task)]` tool is, with its question while it waits for one and its result once done.
    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(
            self.inner.tasks.get_task(&request.task_id)?,
        ))
    }

    /// `tasks/update`: the client's answers to a task's questions.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner
            .tasks
            .update_task(&request.task_id, request.input_responses)
    }

    /// `tasks/cancel`: the tool's `CancellationToken` is cancelled, and the task ends
    /// `cancelled` without waiting for it.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.tasks.cancel_task(&request.task_id)
    }
}

/// A resource block as it was given: rmcp reads it back, or it is passed on in words.
fn passed_on(kind: &str, block: serde_json::Map<String, Value>) -> ContentBlock {
    let words = match kind {
        "resource_link" => Content::ResourceLink(block.clone()),
        _ => Content::Resource(block.clone()),
    }
    .to_text();
    let mut json = block;
    json.insert("type".to_owned(), Value::from(kind));
    serde_json::from_value(Value::Object(json)).unwrap_or_else(|_| ContentBlock::text(words))
}

/// For a `ServerHandler` of your own (with prompts or resources, say): delegate its `list_tools`
/// and `call_tool` to these, and keep the rest.
impl McpServer {
    /// A page of `tools/list`, with output schemas as the request's protocol version takes them
    /// ([`McpOutputRules`]).
    pub fn list_tools_page(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listing = self.inner.listing();
        let rendered = listing
            .rendered
            .as_ref()
            .map_err(|reason| ErrorData::internal_error(reason.clone(), None))?;
        let tools = match output_rules(context) {
            McpOutputRules::AnyValue => &rendered.any_value,
            McpOutputRules::ObjectOnly => &rendered.object_only,
        };
        let page = offer::Page::of(
            request.and_then(|r| r.cursor).as_deref(),
            listing.generation,
            tools.len(),
            self.inner.page_size,
        )?;
        let result = ListToolsResult::page(tools[page.start..page.end].to_vec(), page.next_cursor);
        Ok(self.cached(result))
    }

    /// `tools/call`: the call's context carries the request's id, cancellation, peer and
    /// `_meta`, a [`Progress`] that reports to the client when the request has a
    /// `progressToken`, a [`ClientLog`](crate::ClientLog) named after the tool, and an
    /// [`Elicit`](crate::Elicit) and a [`Sample`](crate::Sample) that ask the client's user and
    /// model in the way its protocol version does: `elicitation/create` and
    /// `sampling/createMessage` on a 2025-11-25 session, an `input_required` result and the
    /// client's retry for 2026-07-28 (see [`INPUT_WAIT`]), each only if the client declares
    /// the capability. A `#[tool(task)]` tool called by a client that declares the
    /// `io.modelcontextprotocol/tasks` extension runs as a task: the answer is the task, which
    /// the client polls (`tasks/get`), answers (`tasks/update`) and may cancel
    /// (`tasks/cancel`). The structured content is in the form the request's protocol version
    /// takes ([`McpOutputRules`]).
    pub async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tools = self.inner.listing().tools.clone();
        let mut context = context;
        let modern = is_2026_07_28_or_later(&context);
        let rules = rules_of(modern);
        let (progress, log) =
            notify::for_call(&context, modern, &self.inner.log_levels, &request.name);
        let takes = asking::ClientTakes::of(&context, modern);
        let base = own_context(self, &mut context)
            .with_progress(progress)
            .with_client_log(log);
        let name = request.name.to_string();
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        let as_task = tools
            .definition(&name)
            .is_some_and(|definition| definition.runs_as_task())
            && takes.tasks;
        if as_task {
            let task = self.start_task(tools, name, arguments, base, takes, rules);
            return Ok(CallToolResponse::Task(task));
        }
        if modern {
            let call = round_trip::Call {
                tools: tools.clone(),
                tool: name.clone(),
                arguments,
                context: base,
                takes,
                request_state: request.request_state,
                input_responses: request.input_responses,
            };
            return match self.inner.round_trips.round(call, context.ct).await {
                Ok(round_trip::Round::Done(outcome)) => {
                    finish(&tools, &name, rules, outcome).map(CallToolResponse::from)
                }
                Ok(round_trip::Round::Asks(asks)) => Ok(CallToolResponse::InputRequired(asks)),
                Err(error) => call_tool_error(error).map(CallToolResponse::from),
            };
        }
        let session = Arc::new(asking::Session(context.peer));
        let call = asking::install(base.with_cancellation(context.ct), session, takes);
        let outcome = tools.call_with(&name, arguments, call).await;
        finish(&tools, &name, rules, outcome).map(CallToolResponse::from)
    }

    /// Runs a call as a task of the `io.modelcontextprotocol/tasks` extension, through rmcp's
    /// `TaskManager`: its questions wait in `tasks/get` for `tasks/update`, its progress also
    /// becomes the task's status message (which a client polling the task sees when
    /// notifications cannot reach it), and `tasks/cancel` cancels its token.
    fn start_task(
        &self,
        tools: ToolSet,
        name: String,
        arguments: Value,
        base: CallContext,
        takes: asking::ClientTakes,
        rules: McpOutputRules,
    ) -> CreateTaskResult {
        let ttl = u64::try_from(self.inner.task_ttl.as_millis()).unwrap_or(u64::MAX);
        let options = TaskOptions::new()
            .with_ttl_ms(ttl)
            .with_poll_interval_ms(TASK_POLL_MS);
        let task = self.inner.tasks.spawn(options, move |task| {
            Box::pin(async move {
                let stop = CancellationToken::new();
                let notified = base.state::<Progress>().unwrap_or_default();
                let status = task.clone();
                let progress = Progress::new(move |update: ProgressUpdate| {
                    status.set_status_message(status_message(&update));
                    let notified = notified.clone();
                    async move {
                        notified
                            .report(update.progress, update.total, update.message.as_deref())
                            .await;
                    }
                });
                let call = base.with_cancellation(stop.clone()).with_progress(progress);
                let channel = Arc::new(asking::InTask::new(task.clone()));
                let call = asking::install(call, channel, takes);
                tokio::select! {
                    outcome = tools.call_with(&name, arguments, call) => {
                        finish(&tools, &name, rules, outcome).map_err(TaskExit::Error)
                    }
                    () = task.cancelled() => {
                        stop.cancel();
                        Err(TaskExit::Cancelled)
                    }
                }
            })
        });
        CreateTaskResult::new(task)
    }
}

/// How often a client is asked to poll a task, in milliseconds.
const TASK_POLL_MS: u64 = 500;

/// A progress update in words, for a task's status message.
fn status_message(update: &ProgressUpdate) -> String {
    match (&update.message, update.total) {
        (Some(message), _) => message.clone(),
        (None, Some(total)) => format!("{} of {total}", update.progress),
        (None, None) => update.progress.to_string(),
    }
}

/// A call's outcome as MCP answers it, the structured content in the form `rules` take.
fn finish(
    tools: &ToolSet,
    name: &str,
    rules: McpOutputRules,
    outcome: Result<ToolOutput, ToolError>,
) -> Result<CallToolResult, ErrorData> {
    match outcome {
        Ok(output) => {
            let mut result = call_tool_result(output);
            if let Some(value) = result.structured_content.take() {
                let schema = tools
                    .definition(name)
                    .and_then(|definition| definition.render(Target::Mcp).ok())
                    .and_then(|rendering| match &rendering.tool {
                        TargetTool::Mcp(tool) => tool.output_schema.as_ref(),
                        _ => None,
                    });
                result.structured_content = Some(rules.structured_content(schema, value));
            }
            Ok(result)
        }
        Err(error) => call_tool_error(error),
    }
}
