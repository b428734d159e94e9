//! Serving an [`McpServer`] in one call, over stdio or over Streamable HTTP on an address, so
//! that a server needs neither rmcp nor axum as a dependency of its own (a second major version
//! of either, picked by hand, gives trait errors that do not say why).

use std::io;

use rmcp::ServiceExt;
use rmcp::service::{QuitReason, ServerInitializeError};

use super::McpServer;
#[cfg(feature = "http")]
use super::{HttpOptions, HttpOptionsError};

/// Why [`McpServer::serve_stdio`] or [`McpServer::serve_http`] stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client did not open an MCP session: it closed the connection first, or sent
    /// something other than `initialize`.
    #[error("the MCP session did not start: {0}")]
    Start(#[source] Box<ServerInitializeError>),
    /// The task serving the session panicked or was aborted.
    #[error("the MCP session's task ended abnormally: {0}")]
    Session(#[source] tokio::task::JoinError),
    /// The address could not be listened on (in use, not local, not resolvable).
    #[error("cannot listen on {address}: {source}; give another address or free that port")]
    Bind {
        /// The address as given.
        address: String,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// An HTTP option cannot work; the error says what to give instead.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    #[error(transparent)]
    Options(#[from] HttpOptionsError),
    /// Accepting connections failed.
    #[error("serving HTTP stopped: {0}")]
    Http(#[source] io::Error),
}

impl McpServer {
    /// Serves this server over this process's stdin and stdout (newline-delimited JSON-RPC,
    /// [`stdio`](super::stdio)'s transport) until the client closes the connection; what an
    /// MCP client that starts the server as a subprocess expects.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use tooldef::mcp::McpServer;
    /// use tooldef::{tool, toolset};
    ///
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// McpServer::new(toolset![Add].build()?)
    ///     .with_name("calculator", "1.0.0")
    ///     .serve_stdio()
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// Nothing but MCP may be written to stdout while it runs: log to stderr.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let running = self
            .serve(super::stdio())
            .await
            .map_err(|error| ServeError::Start(Box::new(error)))?;
        match running.waiting().await.map_err(ServeError::Session)? {
            QuitReason::JoinError(error) => Err(ServeError::Session(error)),
            // Closed by the client, or cancelled: the ends a server is for.
            _ => Ok(()),
        }
    }

    /// Serves this server over MCP's Streamable HTTP transport at `options`' endpoint
    /// (default `/mcp`) on `address`, until the options' [shutdown
    /// token](HttpOptions::shutdown_token) is cancelled (open streams and sessions are ended,
    /// connections drained) or the process ends. It is [`into_http_router`](Self::into_http_router)
    /// served by axum; use that to add layers or routes of your own.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use tooldef::mcp::{HttpOptions, McpServer};
    /// use tooldef::{tool, toolset};
    ///
    /// /// Add two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let options = HttpOptions::new().bearer_token(std::env::var("MCP_BEARER_TOKEN")?);
    /// McpServer::new(toolset![Add].build()?)
    ///     .serve_http("127.0.0.1:8000", options) // clients connect to http://127.0.0.1:8000/mcp
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub async fn serve_http(
        self,
        address: impl tokio::net::ToSocketAddrs + std::fmt::Display,
        options: HttpOptions,
    ) -> Result<(), ServeError> {
        let listener = tokio::net::TcpListener::bind(&address)
            .await
            .map_err(|source| ServeError::Bind {
                address: address.to_string(),
                source,
            })?;
        self.serve_http_on(listener, options).await
    }

    /// [`serve_http`](Self::serve_http) on a listener already bound: to learn the port when
    /// binding port 0, or to bind before dropping privileges.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use tooldef::mcp::{HttpOptions, McpServer};
    /// # let set = tooldef::ToolSet::builder().build()?;
    ///
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// eprintln!("serving at http://{}/mcp", listener.local_addr()?);
    /// McpServer::new(set).serve_http_on(listener, HttpOptions::new()).await?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub async fn serve_http_on(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
    ) -> Result<(), ServeError> {
        let shutdown = options.shutdown.clone();
        let router = self.into_http_router(options)?;
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await
            .map_err(ServeError::Http)
    }
}
