//! Serving a [`ToolSet`] from an MCP server, with rmcp as the engine (feature `mcp`).
//!
//! ```no_run
//! # #[cfg(feature = "mcp")]
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! use rmcp::ServiceExt;
//! use tooldef::{mcp::McpServer, tool, toolset};
//!
//! /// Add two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! let server = McpServer::new(toolset![Add].build()?).with_name("calculator", "1.0.0");
//! let running = server.serve(tooldef::mcp::stdio()).await?;
//! running.waiting().await?;
//! # Ok(())
//! # }
//! ```

mod admission;
mod envelope;
mod transport;

pub use transport::{LineTransport, WireLimits, stdio};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, RequestMetaObject, ServerCapabilities, ServerConfig,
    Tool as RmcpTool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::Value;

use crate::{CallContext, Content, Target, ToolError, ToolOutput, ToolSet};

/// An MCP server whose tools are a [`ToolSet`]: `tools/list` and `tools/call` per the MCP
/// specification (2025-11-25). Cheap to clone: keep a clone to [swap the tools](McpServer::replace_tools)
/// while it serves.
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
    /// Clients that finished initialising, to tell when the tools change.
    peers: Mutex<Vec<Peer<RoleServer>>>,
}

/// A tool set and its MCP rendering, made once per set.
struct Listing {
    tools: ToolSet,
    rendered: Result<Arc<[RmcpTool]>, String>,
    generation: u64,
}

/// The request metadata (`_meta`) of the MCP request that made a call: take `State<McpRequestMeta>`.
#[derive(Debug, Clone, PartialEq)]
pub struct McpRequestMeta(pub serde_json::Map<String, Value>);

impl McpServer {
    /// A server for `tools`, listed 100 a page.
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
            }),
        }
    }

    /// The name and version the server gives in `initialize`.
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
    /// connected client. Cursors of earlier listings stop being valid.
    pub async fn replace_tools(&self, tools: ToolSet) {
        let generation = self.inner.generation.fetch_add(1, Ordering::SeqCst) + 1;
        *self
            .inner
            .current
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(Listing::new(tools, generation));
        let peers: Vec<Peer<RoleServer>> = self
            .inner
            .peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for peer in peers {
            // A client that has gone away cannot be told; the others still are.
            let _ = peer.notify_tool_list_changed().await;
        }
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
                values
                    .iter()
                    .map(|value| {
                        serde_json::from_value::<RmcpTool>(value.clone())
                            .map_err(|err| format!("a tool definition rmcp cannot read: {err}"))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Arc::from)
            });
        Listing {
            tools,
            rendered,
            generation,
        }
    }
}

/// Cursors are opaque to clients: `<generation>.<offset>`, in hex, so that a cursor from before a
/// swap of the tools is refused rather than silently paging through another list.
fn cursor(generation: u64, offset: usize) -> String {
    format!("{generation:x}.{offset:x}")
}

fn parse_cursor(cursor: &str) -> Option<(u64, usize)> {
    let (generation, offset) = cursor.split_once('.')?;
    Some((
        u64::from_str_radix(generation, 16).ok()?,
        usize::from_str_radix(offset, 16).ok()?,
    ))
}

/// A call's outcome as MCP wants it: the output's blocks, and structured content when the tool
/// has an output schema (with the same JSON as a text block, as the specification asks).
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
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let config = ServerConfig::new(capabilities).with_server_info(self.inner.info.clone());
        match &self.inner.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.inner
            .peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(context.peer);
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.list_tools_page(request)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context)
            .await
            .map(CallToolResponse::from)
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
    /// A page of `tools/list`.
    pub fn list_tools_page(
        &self,
        request: Option<PaginatedRequestParams>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listing = self.inner.listing();
        let tools = listing
            .rendered
            .as_ref()
            .map_err(|reason| ErrorData::internal_error(reason.clone(), None))?;
        let offset = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(given) => match parse_cursor(&given) {
                Some((generation, offset))
                    if generation == listing.generation && offset <= tools.len() =>
                {
                    offset
                }
                _ => {
                    return Err(ErrorData::invalid_params(
                        "this cursor is not valid (the tool list may have changed): list the tools again from the start",
                        None,
                    ));
                }
            },
        };
        let end = (offset + self.inner.page_size).min(tools.len());
        let mut result = ListToolsResult::with_all_items(tools[offset..end].to_vec());
        result.next_cursor = (end < tools.len()).then(|| cursor(listing.generation, end));
        Ok(result)
    }

    /// `tools/call`: the call's context carries the request's id, cancellation, peer and `_meta`.
    pub async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let tools = self.inner.listing().tools.clone();
        let RequestMetaObject(meta) = context.meta;
        let call = CallContext::new()
            .with_call_id(context.id.to_string())
            .with_cancellation(context.ct.clone())
            .with_state(context.peer.clone())
            .with_state(McpRequestMeta(meta.0));
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        match tools.call_with(&request.name, arguments, call).await {
            Ok(output) => Ok(call_tool_result(output)),
            Err(error) => call_tool_error(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_garbage() {
        assert_eq!(parse_cursor(&cursor(3, 200)), Some((3, 200)));
        assert_eq!(parse_cursor("nonsense"), None);
        assert_eq!(parse_cursor("1.zz"), None);
    }
}
