//! A tool whose author wrote its input schema (MCP SEP-1613), served by `McpServer` in process:
//! MCP clients list the schema as written, to the byte (`$schema`, `$defs`/`$ref`, an open
//! nested object, a root `title`, keywords no target knows), and calls are validated against
//! it, not against a closed copy. Listed and called with rmcp's client, as a client of
//! 2025-11-25 (`initialize`) and of 2026-07-28 (`server/discover`), and read off the wire as
//! raw JSON-RPC lines.

use std::sync::OnceLock;

use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tooldef::mcp::McpServer;
use tooldef::{CallContext, ContextError, ReturnValue, Target, Tool, ToolDefinition, ToolSet};

/// The schema as its author wrote it, as compact JSON text: what the wire must carry.
const WRITTEN: &str = concat!(
    r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","##,
    r##""title":"Shipping label","type":"object","##,
    r##""$defs":{"address":{"type":"object","description":"Where it goes.","##,
    r##""properties":{"street":{"type":"string","minLength":1},"city":{"type":"string"}},"##,
    r##""required":["street"]}},"##,
    r##""properties":{"name":{"type":"string","default":"resident"},"##,
    r##""address":{"$ref":"#/$defs/address"},"##,
    r##""weight_grams":{"type":"integer","exclusiveMinimum":0,"x-unit":"g"}},"##,
    r##""required":["address"],"additionalProperties":false}"##
);

/// Prints a shipping label; its schema is written by hand, so its `Tool` is too.
struct Label;

impl Tool for Label {
    type Args = Map<String, Value>;
    type Output = Map<String, Value>;
    const NAME: &'static str = "print_label";

    fn definition(&self) -> &'static ToolDefinition {
        static DEFINITION: OnceLock<ToolDefinition> = OnceLock::new();
        DEFINITION.get_or_init(|| {
            ToolDefinition::builder(Self::NAME)
                .description("Print a shipping label.")
                .input_schema(serde_json::from_str(WRITTEN).expect("WRITTEN is a schema"))
                .strict(false)
                .build()
        })
    }

    /// Gives back what it received, so that the test sees what validation let through.
    async fn call(
        &self,
        args: Map<String, Value>,
        _: CallContext,
    ) -> Result<Map<String, Value>, ContextError> {
        Ok(args)
    }

    fn output(output: Map<String, Value>) -> Result<ReturnValue, String> {
        Ok(ReturnValue::Json(Value::Object(output)))
    }
}

fn server() -> McpServer {
    McpServer::new(ToolSet::builder().tool(Label).build().unwrap())
}

/// A client that asks for `version`.
#[derive(Clone)]
struct AsksFor(ProtocolVersion);

impl ClientHandler for AsksFor {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(self.0.clone())
    }
}

async fn connect(version: ProtocolVersion) -> RunningService<RoleClient, AsksFor> {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server().serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let lifecycle = if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    };
    AsksFor(version)
        .serve_with_lifecycle(client_side, lifecycle)
        .await
        .expect("the client starts")
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect()
}

#[tokio::test]
async fn rmcp_s_client_lists_the_schema_as_written_and_calls_pass_what_it_allows() {
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let client = connect(version.clone()).await;
        let listed = client.list_all_tools().await.unwrap();
        assert_eq!(listed.len(), 1, "{version}");
        let schema = serde_json::to_string(&*listed[0].input_schema).unwrap();
        assert_eq!(schema, WRITTEN, "{version}");

        // The nested object is open as written: a key it does not name is accepted and reaches
        // the tool.
        let result = client
            .call_tool(
                CallToolRequestParams::new("print_label")
                    .with_arguments(object(json!({"address": {"street": "x", "zip": "1"}}))),
            )
            .await
            .unwrap();
        assert_ne!(result.is_error, Some(true), "{version}: {result:?}");
        assert_eq!(
            text_of(&result),
            r#"{"address":{"street":"x","zip":"1"}}"#,
            "{version}"
        );

        // What the schema refuses is refused with where and why, `$ref`s followed.
        for (arguments, expected) in [
            (
                json!({"address": {"street": 5}}),
                "at `/address/street`: expected `string`, got an integer (5)",
            ),
            (
                json!({"address": {"street": ""}}),
                "at `/address/street`: must be at least 1 character long",
            ),
            (
                json!({"address": {"city": "Lyon"}}),
                "the required argument `street` is missing",
            ),
            (
                json!({"address": {"street": "x"}, "weight_grams": 0}),
                "at `/weight_grams`: must be greater than 0",
            ),
            (
                json!({"address": {"street": "x"}, "colour": "red"}),
                "unknown property `colour`: remove it",
            ),
        ] {
            let result = client
                .call_tool(
                    CallToolRequestParams::new("print_label")
                        .with_arguments(object(arguments.clone())),
                )
                .await
                .unwrap();
            assert_eq!(result.is_error, Some(true), "{version} {arguments}");
            let text = text_of(&result);
            assert!(text.contains(expected), "{version} {arguments}: {text}");
        }
        client.cancel().await.unwrap();
    }
}

/// Reads lines from the server until the answer to request `id`.
async fn answer_to(
    lines: &mut tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    id: u64,
) -> String {
    loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server answers");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            return line;
        }
    }
}

#[tokio::test]
async fn the_wire_carries_the_written_text() {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server().serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_side);
    let mut lines = BufReader::new(read).lines();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}
    }});
    write
        .write_all(format!("{initialize}\n").as_bytes())
        .await
        .unwrap();
    answer_to(&mut lines, 1).await;
    write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .unwrap();
    write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n")
        .await
        .unwrap();
    let line = answer_to(&mut lines, 2).await;
    assert!(
        line.contains(&format!("\"inputSchema\":{WRITTEN}")),
        "the listed schema is not the written text:\n{line}\n{WRITTEN}"
    );
}

#[test]
fn the_other_targets_keep_their_own_rules_and_say_so() {
    let definition = Label.definition();
    for target in Target::ALL {
        let rendering = definition.render(target).unwrap();
        let schema = serde_json::to_string(rendering.tool.input_schema().unwrap()).unwrap();
        if target == Target::Mcp {
            assert_eq!(schema, WRITTEN);
            assert!(rendering.report.is_empty(), "{:?}", rendering.report);
            continue;
        }
        assert!(
            !schema.contains("$schema") && !schema.contains("$ref"),
            "{target}: {schema}"
        );
        let said: Vec<String> = rendering
            .report
            .changes()
            .iter()
            .map(|change| format!("{} {}", change.pointer, change.kind))
            .collect();
        assert!(
            said.iter().any(|c| c.contains("$schema")),
            "{target}: {said:#?}"
        );
        assert!(
            said.iter()
                .any(|c| c.starts_with("/properties/address ") && c.contains("#/$defs/address")),
            "{target}: {said:#?}"
        );
    }
}
