//! `corpus-mcp-server FILE [--limit N]`: an MCP server over stdio that lists the tools of a
//! `tools/list` JSON file (`{"tools": [...]}`, such as
//! `tests/fixtures/corpus/github-mcp-server.tools.json`), the first `N` of them with `--limit`,
//! and answers any call of a listed tool with one text block echoing its arguments. It gives the
//! gateway benchmark real servers' tools to inject, with no work behind them. With `--grow`, a
//! call of a tool also adds a copy of it, `NAME_again`, and says so with
//! `notifications/tools/list_changed` (for the gateway's test of servers whose tools change).
//! With `--ttl-ms N`, its listings say they are fresh for N ms (MCP 2026-07-28's `ttlMs`), and
//! `--grow` announces nothing: a client learns of the new tool by listing again when it is stale.

use std::process::ExitCode;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

const USAGE: &str = "usage: corpus-mcp-server FILE [--limit N] [--grow] [--ttl-ms N]

  FILE       a tools/list result: {\"tools\": [...]}
  --limit N  serve only the first N tools
  --grow     a call of a tool adds NAME_again and announces tools/list_changed
  --ttl-ms N listings are fresh for N ms (ttlMs); --grow then announces nothing";

/// The server: the file's tools, listed in one page.
#[derive(Clone)]
struct CorpusServer {
    tools: Arc<std::sync::RwLock<Vec<Tool>>>,
    grow: bool,
    ttl_ms: Option<u64>,
}

impl CorpusServer {
    fn tools(&self) -> std::sync::RwLockReadGuard<'_, Vec<Tool>> {
        self.tools.read().unwrap_or_else(|e| e.into_inner())
    }
}

impl ServerHandler for CorpusServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(
            "corpus-mcp-server",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listed = ListToolsResult::with_all_items(self.tools().to_vec());
        Ok(match self.ttl_ms {
            Some(ttl_ms) => listed.with_ttl_ms(ttl_ms),
            None => listed,
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(called) = self
            .tools()
            .iter()
            .find(|tool| tool.name == request.name)
            .cloned()
        else {
            return Err(ErrorData::invalid_params(
                format!("there is no tool named `{}`", request.name),
                None,
            ));
        };
        if self.grow {
            let mut copy = called;
            copy.name = format!("{}_again", request.name).into();
            let added = {
                let mut tools = self.tools.write().unwrap_or_else(|e| e.into_inner());
                let new = !tools.iter().any(|tool| tool.name == copy.name);
                if new {
                    tools.push(copy);
                }
                new
            };
            if added && self.ttl_ms.is_none() {
                let _ = context.peer.notify_tool_list_changed().await;
            }
        }
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        let text = format!("{} called with {arguments}", request.name);
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// The file's tools, the first `limit` of them.
fn read_tools(path: &str, limit: Option<usize>) -> Result<Vec<Tool>, String> {
    let text = std::fs::read_to_string(path).map_err(|err| format!("cannot read {path}: {err}"))?;
    let mut listed: Value =
        serde_json::from_str(&text).map_err(|err| format!("{path} is not JSON: {err}"))?;
    let tools = match listed.get_mut("tools").map(Value::take) {
        Some(Value::Array(tools)) => tools,
        _ => return Err(format!("{path} has no `tools` array")),
    };
    let limit = limit.unwrap_or(tools.len());
    tools
        .into_iter()
        .take(limit)
        .enumerate()
        .map(|(i, tool)| {
            serde_json::from_value(tool).map_err(|err| format!("{path}: tool {i}: {err}"))
        })
        .collect()
}

/// What the command line asks for.
struct Args {
    file: String,
    limit: Option<usize>,
    grow: bool,
    ttl_ms: Option<u64>,
}

/// The arguments, or `None` for `--help`.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut file = None;
    let mut limit = None;
    let mut grow = false;
    let mut ttl_ms = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--grow" => grow = true,
            "--limit" | "--ttl-ms" => {
                let value = args.next().ok_or(format!("{arg} needs a number"))?;
                let number: u64 = value
                    .parse()
                    .map_err(|_| format!("{arg} {value}: not a number"))?;
                if arg == "--limit" {
                    limit = Some(number as usize);
                } else {
                    ttl_ms = Some(number);
                }
            }
            _ if file.is_none() && !arg.starts_with('-') => file = Some(arg),
            _ => return Err(format!("unexpected argument `{arg}`")),
        }
    }
    Ok(Some(Args {
        file: file.ok_or("no FILE given")?,
        limit,
        grow,
        ttl_ms,
    }))
}

fn main() -> ExitCode {
    let Args {
        file,
        limit,
        grow,
        ttl_ms,
    } = match parse_args(std::env::args().skip(1)) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("corpus-mcp-server: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let tools = match read_tools(&file, limit) {
        Ok(tools) => tools,
        Err(message) => {
            eprintln!("corpus-mcp-server: {message}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("corpus-mcp-server: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let server = CorpusServer {
        tools: Arc::new(std::sync::RwLock::new(tools)),
        grow,
        ttl_ms,
    };
    let served = runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|err| err.to_string())?;
        running.waiting().await.map_err(|err| err.to_string())
    });
    match served {
        Ok(_) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("corpus-mcp-server: {message}");
            ExitCode::FAILURE
        }
    }
}
