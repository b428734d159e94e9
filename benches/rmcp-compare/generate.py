#!/usr/bin/env python3
"""Generates the crates that benches/rmcp-compare/harness.py measures (issue 15).

- `tools_tooldef`: N `#[tool]` functions, listed in `toolset![…]`, served by
  `tooldef::mcp::McpServer::serve_stdio`, as the README and docs/MIGRATING_FROM_RMCP.md write it
  (the crate does not depend on rmcp itself; until 2026-11-28 it called rmcp's generic
  `ServiceExt::serve(tooldef::mcp::stdio())`, which makes the user's crate compile rmcp's service
  loop for the server, where `serve_stdio` has it compiled once in tooldef).
- `tools_rmcp`: the same N tools as methods of one struct under rmcp's `#[tool_router]`, each
  taking `Parameters<SearchNArgs>` (a `Deserialize + JsonSchema` struct), the router kept in a
  field (`#[tool_handler(router = self.tool_router)]`), served over `rmcp::transport::stdio()`.
- `tools_rmcp_validated`: `tools_rmcp` plus what tooldef does that rmcp does not: every call's
  arguments checked against the tool's input schema with `jsonschema` (formats asserted, the
  validators compiled once when the server starts), in a hand-written `call_tool`, as an rmcp
  user would add it to get tooldef's checks. The binary and build figures against it separate
  what validation costs from what tooldef's macros and runtime cost.
- `convert_tooldef`: parse + convert for Chat Completions + serialise a corpus of MCP tools,
  `passes` times (the same loop as runtime/examples/prof_convert.rs), for callgrind.

Every tool has the same four documented fields in both crates:
  query: String                 required
  limit: u32                    1..=100, default 20
  order: OrderN                 a per-tool enum of three documented variants, required
  include_archived: Option<bool> optional
and the same body (a `format!` of the four values) returning a `String`.

Each crate is its own workspace (so that features do not unify between them: `tools_rmcp` does not
get the `serde_json/preserve_order` that tooldef switches on) and starts from a copy of the main
workspace's Cargo.lock, so that both resolve to the versions the workspace uses. rmcp and
jsonschema are asked for at exactly the versions that lock file holds (`locked_version`), never at
a version written here: a pin by hand went stale when the workspace moved from rmcp 3.9 to 3.11,
and the harness stopped running.

Each of the three tool crates is written once per tool count N, named `tools_tooldef_N`,
`tools_rmcp_N` and `tools_rmcp_validated_N`, so that one target directory holds every count with
its dependencies built once: two counts (1 and 100) separate what a crate pays once from what
each tool adds.

usage: generate.py OUT_DIR TOOLDEF_RUNTIME_DIR LOCKFILE [N ...]   (default N: 100)
"""
import hashlib
import os
import shutil
import sys



def locked_version(lockfile, name):
    """The version of the package `name` in a Cargo.lock, as `=X.Y.Z` (exactly that one)."""
    versions = []
    with open(lockfile) as f:
        package = None
        for line in f:
            line = line.strip()
            if line == "[[package]]":
                package = None
            elif line.startswith("name = "):
                package = line.split("=", 1)[1].strip().strip('"')
            elif line.startswith("version = ") and package == name:
                versions.append(line.split("=", 1)[1].strip().strip('"'))
    if len(versions) != 1:
        sys.exit(f"generate.py: {lockfile} holds {len(versions)} versions of {name} "
                 f"({', '.join(versions) or 'none'}); expected one")
    return "=" + versions[0]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Leave an identical file alone: rewriting it would make cargo rebuild the crate.
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def crate(out, name, deps, main_rs, lockfile):
    root = os.path.join(out, name)
    write(os.path.join(root, "Cargo.toml"), f"""[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
{deps}
[workspace]
""")
    write(os.path.join(root, "src", "main.rs"), main_rs)
    # The lock file starts as a copy of tooldef's (cargo then adds the crate and drops what it does
    # not use); copied again when tooldef's changes, left alone otherwise.
    with open(lockfile, "rb") as f:
        source = hashlib.sha256(f.read()).hexdigest()
    marker = os.path.join(root, ".lock-source")
    if not os.path.exists(marker) or open(marker).read() != source:
        shutil.copyfile(lockfile, os.path.join(root, "Cargo.lock"))
        with open(marker, "w") as f:
            f.write(source)


ORDER_DOC = """/// How the records of tool {i} are ordered.
#[derive(Clone, Copy, Deserialize, JsonSchema{extra})]
#[serde(rename_all = "snake_case")]
pub enum Order{i} {{
    /// Best match first.
    Relevance,
    /// Most recently updated first.
    Newest,
    /// Least recently updated first.
    Oldest,
}}
"""

DOC_QUERY = "/// Words to look for in the records' titles and bodies."
DOC_LIMIT = "/// The most records to return."
DOC_ORDER = "/// The order of the records."
DOC_ARCHIVED = "/// Whether archived records are included too."
DOC_TOOL = "/// Search the records of collection {i} and summarise what was found."
BODY = ('format!("{{limit}} records of collection {i} for {{query:?}}, order {{}}, archived {{}}", '
        'order as u8, include_archived.unwrap_or(false))')


def tooldef_main(n):
    parts = [
        "//! Generated by benches/rmcp-compare/generate.py: do not edit.",
        "use schemars::JsonSchema;",
        "use serde::Deserialize;",
        "use tooldef::mcp::McpServer;",
        "use tooldef::{Portable, tool, toolset};",
        "",
    ]
    for i in range(n):
        parts.append(ORDER_DOC.format(i=i, extra=", Portable"))
        parts.append(f"""{DOC_TOOL.format(i=i)}
#[tool]
pub async fn search_{i}(
    {DOC_QUERY}
    query: String,
    {DOC_LIMIT}
    #[arg(default = 20)]
    #[schemars(range(min = 1, max = 100))]
    limit: u32,
    {DOC_ORDER}
    order: Order{i},
    {DOC_ARCHIVED}
    include_archived: Option<bool>,
) -> String {{
    {BODY.format(i=i)}
}}
""")
    names = ", ".join(f"Search{i}" for i in range(n))
    parts.append(f"""#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {{
    let tools = toolset![{names}].build()?;
    McpServer::new(tools)
        .with_name("tools_tooldef", "0.0.0")
        .serve_stdio()
        .await?;
    Ok(())
}}
""")
    return "\n".join(parts)


def rmcp_main(n, validated=False):
    parts = [
        "//! Generated by benches/rmcp-compare/generate.py: do not edit.",
        "use rmcp::handler::server::router::tool::ToolRouter;",
        "use rmcp::handler::server::wrapper::Parameters;",
        "use rmcp::schemars::{self, JsonSchema};",
        "use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};",
        "use serde::Deserialize;",
        "",
        "fn default_limit() -> u32 {",
        "    20",
        "}",
        "",
    ]
    for i in range(n):
        parts.append(ORDER_DOC.format(i=i, extra=""))
        parts.append(f"""/// The arguments of `search_{i}`.
#[derive(Deserialize, JsonSchema)]
pub struct Search{i}Args {{
    {DOC_QUERY}
    pub query: String,
    {DOC_LIMIT}
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: u32,
    {DOC_ORDER}
    pub order: Order{i},
    {DOC_ARCHIVED}
    pub include_archived: Option<bool>,
}}
""")
    if validated:
        parts.append(VALIDATED_SERVER)
    else:
        parts.append("""/// The server: its tools, and their router kept in a field (built once, not per request).
#[derive(Clone)]
pub struct Server {
    tool_router: ToolRouter<Server>,
}

#[tool_router]
impl Server {
    pub fn new() -> Self {
        Server {
            tool_router: Self::tool_router(),
        }
    }
""")
    for i in range(n):
        parts.append(f"""    {DOC_TOOL.format(i=i)}
    #[tool]
    pub async fn search_{i}(
        &self,
        Parameters(Search{i}Args {{ query, limit, order, include_archived }}): Parameters<Search{i}Args>,
    ) -> String {{
        {BODY.format(i=i)}
    }}
""")
    parts.append("""}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {""" + (VALIDATED_CALL if validated else "") + """}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Server::new()
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
""")
    return "\n".join(parts)


VALIDATED_SERVER = """/// The server: its tools, their router kept in a field, and each tool's argument validator
/// (compiled once, from the input schema rmcp shows the client).
#[derive(Clone)]
pub struct Server {
    tool_router: ToolRouter<Server>,
    validators: std::sync::Arc<std::collections::HashMap<String, jsonschema::Validator>>,
}

#[tool_router]
impl Server {
    pub fn new() -> Self {
        let tool_router = Self::tool_router();
        let validators = tool_router
            .list_all()
            .into_iter()
            .map(|tool| {
                let schema = serde_json::Value::Object((*tool.input_schema).clone());
                let validator = jsonschema::draft202012::options()
                    .should_validate_formats(true)
                    .build(&schema)
                    .expect("rmcp's input schemas are valid");
                (tool.name.to_string(), validator)
            })
            .collect();
        Server {
            tool_router,
            validators: std::sync::Arc::new(validators),
        }
    }
"""

VALIDATED_CALL = """
    async fn call_tool(
        &self,
        mut request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        // The arguments are checked against the schema the client was shown, as tooldef does.
        if let Some(validator) = self.validators.get(request.name.as_ref()) {
            let arguments = serde_json::Value::Object(request.arguments.take().unwrap_or_default());
            let problems: Vec<String> = if validator.is_valid(&arguments) {
                Vec::new()
            } else {
                validator
                    .iter_errors(&arguments)
                    .map(|error| format!("{}: {error}", error.instance_path()))
                    .collect()
            };
            if let serde_json::Value::Object(arguments) = arguments {
                request.arguments = Some(arguments);
            }
            if !problems.is_empty() {
                return Err(rmcp::ErrorData::invalid_params(problems.join("; "), None));
            }
        }
        let tcc = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        self.tool_router.call(tcc).await
    }
"""

CONVERT_MAIN = """//! Generated by benches/rmcp-compare/generate.py: do not edit.
//! `convert_tooldef CORPUS floor|convert|memory PASSES`: the loop of
//! runtime/examples/prof_convert.rs, one process, for callgrind (per pass = difference of two pass
//! counts). `memory`: the corpus parsed once, then only the conversion, its result dropped.
use std::hint::black_box;

use serde_json::Value;
use tooldef::Target;
use tooldef::convert::{ConvertOptions, convert};

fn main() {
    let mut args = std::env::args().skip(1);
    let corpus = args.next().expect("usage: convert_tooldef CORPUS floor|convert|memory PASSES");
    let mode = args.next().unwrap_or_else(|| "convert".to_owned());
    let passes: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let bytes = std::fs::read(&corpus).unwrap_or_else(|err| panic!("{corpus}: {err}"));
    let options = ConvertOptions::default();
    let mut written = 0;
    if mode == "memory" {
        let value: Value = serde_json::from_slice(&bytes).expect("the corpus is JSON");
        for _ in 0..passes {
            let converted = convert(black_box(&value), Target::ChatCompletions, &options)
                .expect("the corpus converts");
            written = black_box(converted).tools.len();
        }
        println!("{written}");
        return;
    }
    for _ in 0..passes {
        let value: Value = serde_json::from_slice(black_box(&bytes)).expect("the corpus is JSON");
        let out = match mode.as_str() {
            "floor" => serde_json::to_vec(&value),
            _ => {
                let converted = convert(&value, Target::ChatCompletions, &options)
                    .expect("the corpus converts");
                serde_json::to_vec(&converted.into_json())
            }
        };
        written = black_box(out.expect("JSON")).len();
    }
    println!("{written}");
}
"""


def main():
    out, runtime, lockfile = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    counts = [int(n) for n in sys.argv[4:]] or [100]
    rmcp = locked_version(lockfile, "rmcp")
    jsonschema = locked_version(lockfile, "jsonschema")
    for n in counts:
        tool_crates(out, runtime, lockfile, n, rmcp, jsonschema)
    crate(out, "convert_tooldef", f"""tooldef = {{ path = "{runtime}" }}
serde_json = "1"
""", CONVERT_MAIN, lockfile)


def tool_crates(out, runtime, lockfile, n, rmcp, jsonschema):
    """The three crates of n tools each."""
    tokio = 'tokio = { version = "1", features = ["rt-multi-thread", "macros", "io-std"] }'
    serde = 'serde = { version = "1", features = ["derive"] }'
    crate(out, f"tools_tooldef_{n}", f"""tooldef = {{ path = "{runtime}", features = ["mcp"] }}
schemars = "1"
{serde}
{tokio}
""", tooldef_main(n), lockfile)
    crate(out, f"tools_rmcp_{n}", f"""rmcp = {{ version = "{rmcp}", features = ["server", "macros", "transport-io"] }}
{serde}
{tokio}
""", rmcp_main(n), lockfile)
    crate(out, f"tools_rmcp_validated_{n}", f"""rmcp = {{ version = "{rmcp}", features = ["server", "macros", "transport-io"] }}
jsonschema = {{ version = "{jsonschema}", default-features = false }}
serde_json = "1"
{serde}
{tokio}
""", rmcp_main(n, validated=True), lockfile)


if __name__ == "__main__":
    main()
