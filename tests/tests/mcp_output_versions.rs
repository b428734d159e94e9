//! Output schemas of any root (a `Vec`, a `String`, a number, an `Option`…), as each MCP protocol
//! version's clients get them: as they are for 2026-07-28 (SEP-2106), wrapped as `{"result": …}`
//! for 2025-11-25 and earlier. rmcp's client negotiates each version with an in-process
//! `McpServer`; whatever the version, the structured content of every result must validate
//! against the tool's listed `outputSchema` (the MCP Python SDK refuses a result that does not),
//! and the text block carries the value as the tool returned it.

use std::collections::HashMap;

use rmcp::model::{
    CallToolRequestParams, ClientConfig, ContentBlock, ProtocolVersion, Tool as RmcpTool,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use tooldef::mcp::McpServer;
use tooldef::{Target, Tool, ToolSet, tool};

/// Word counts.
#[derive(Serialize, JsonSchema)]
pub struct Stats {
    /// How many words.
    pub words: u32,
}

/// A shape, with its measurements.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// Its radius.
        radius: f64,
    },
    /// A square.
    Square {
        /// Its side.
        side: f64,
    },
}

/// A node of a tree, for a recursive output type behind an array root.
#[derive(Serialize, JsonSchema)]
pub struct Node {
    /// The node's name.
    pub name: String,
    /// Its children.
    pub children: Vec<Node>,
}

/// List some names.
#[tool]
fn list_names() -> Vec<String> {
    vec!["Ada".into(), "Grace".into()]
}

/// Greet someone.
#[tool]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Count the words of a text.
#[tool]
fn count_words(
    /// The text.
    text: String,
) -> u32 {
    u32::try_from(text.split_whitespace().count()).unwrap_or(u32::MAX)
}

/// Word statistics of a text.
#[tool]
fn text_stats(
    /// The text.
    text: String,
) -> Stats {
    Stats {
        words: u32::try_from(text.split_whitespace().count()).unwrap_or(u32::MAX),
    }
}

/// Word statistics, if the text has any words.
#[tool]
fn maybe_stats(
    /// The text.
    text: String,
) -> Option<Stats> {
    let words = u32::try_from(text.split_whitespace().count()).unwrap_or(u32::MAX);
    (words > 0).then_some(Stats { words })
}

/// A shape of a given size.
#[tool]
fn make_shape(
    /// Its size.
    size: f64,
) -> Shape {
    if size > 1.0 {
        Shape::Square { side: size }
    } else {
        Shape::Circle { radius: size }
    }
}

/// A small forest.
#[tool]
fn forest() -> Vec<Node> {
    vec![Node {
        name: "root".into(),
        children: vec![Node {
            name: "leaf".into(),
            children: Vec::new(),
        }],
    }]
}

/// Do nothing.
#[tool]
fn nothing() {}

/// Greet someone, in text only (as rmcp's `#[tool]` returning a `String` does).
#[tool(output_schema = false)]
fn greet_text(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

fn tools() -> ToolSet {
    tooldef::toolset![
        ListNames, Greet, CountWords, TextStats, MaybeStats, MakeShape, Forest, Nothing, GreetText
    ]
    .build()
    .unwrap()
}

/// Every tool with the arguments of its calls, and the value each call returns.
fn calls() -> Vec<(&'static str, Value, Value)> {
    vec![
        ("list_names", json!({}), json!(["Ada", "Grace"])),
        ("greet", json!({"name": "Ada"}), json!("Hello, Ada!")),
        ("count_words", json!({"text": "a b c"}), json!(3)),
        ("text_stats", json!({"text": "a b"}), json!({"words": 2})),
        ("maybe_stats", json!({"text": "a"}), json!({"words": 1})),
        ("maybe_stats", json!({"text": " "}), Value::Null),
        (
            "make_shape",
            json!({"size": 2.0}),
            json!({"kind": "square", "side": 2.0}),
        ),
        (
            "forest",
            json!({}),
            json!([{"name": "root", "children": [{"name": "leaf", "children": []}]}]),
        ),
    ]
}

/// A client of the handshake era that asks for `version`.
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
        if let Ok(running) = McpServer::new(tools()).serve(server_side).await {
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
    let client = AsksFor(version.clone())
        .serve_with_lifecycle(client_side, lifecycle)
        .await
        .expect("the client starts");
    assert_eq!(client.peer_info().unwrap().protocol_version, version);
    client
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .build(schema)
        .unwrap_or_else(|err| panic!("not a valid schema: {err}\n{schema}"))
}

fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect()
}

/// Lists and calls every tool as a client of `version`; returns the listed output schemas.
async fn exercise(version: ProtocolVersion) -> HashMap<String, Value> {
    let client = connect(version.clone()).await;
    let listed: Vec<RmcpTool> = client.list_all_tools().await.unwrap();
    let schemas: HashMap<String, Value> = listed
        .iter()
        .filter_map(|tool| {
            let schema = tool.output_schema.as_ref()?;
            Some((tool.name.to_string(), Value::Object((**schema).clone())))
        })
        .collect();
    let wrapped = !version.as_str().starts_with("2026");
    for (name, arguments, value) in calls() {
        let Value::Object(arguments) = arguments else {
            unreachable!()
        };
        let result = client
            .call_tool(CallToolRequestParams::new(name).with_arguments(arguments))
            .await
            .unwrap();
        assert_ne!(result.is_error, Some(true), "{version} {name}: {result:?}");
        let schema = &schemas[name];
        let structured = result
            .structured_content
            .unwrap_or_else(|| panic!("{version} {name}: no structured content"));
        // The Python SDK's rule, for every version.
        let problems: Vec<String> = validator(schema)
            .iter_errors(&structured)
            .map(|e| e.to_string())
            .collect();
        assert!(
            problems.is_empty(),
            "{version} {name}: {structured} against {schema}: {problems:?}"
        );
        // The definition's schema, as `Target::Mcp` renders it, decides: a root that is not
        // `"type": "object"` is wrapped for the clients of 2025 (`maybe_stats`' `anyOf` of an
        // object and `null` too; `make_shape`'s `oneOf` of objects is an object root).
        let as_is = &tools()
            .definition(name)
            .unwrap()
            .to_json(Target::Mcp)
            .unwrap()["outputSchema"];
        let wraps = wrapped && as_is["type"] != "object";
        if wrapped {
            assert_eq!(schema["type"], "object", "{version} {name}: {schema}");
        } else {
            assert_eq!(schema, as_is, "{version} {name}");
        }
        if wraps {
            assert_eq!(
                schema["properties"]["result"]["type"], as_is["type"],
                "{name}"
            );
        }
        let expected = if wraps {
            json!({"result": value})
        } else {
            value.clone()
        };
        assert_eq!(structured, expected, "{version} {name}");
        // The text carries the value itself, unwrapped; a string is its own text.
        let text = text_of(&result.content);
        match &value {
            Value::String(s) => assert_eq!(&text, s, "{version} {name}"),
            other => assert_eq!(
                serde_json::from_str::<Value>(&text).unwrap(),
                *other,
                "{version} {name}"
            ),
        }
    }
    assert!(!schemas.contains_key("nothing"), "`()` promises nothing");
    // `output_schema = false`: no schema, and the result is its text alone, for every version.
    assert!(
        !schemas.contains_key("greet_text"),
        "{:?}",
        schemas.get("greet_text")
    );
    let mut arguments = serde_json::Map::new();
    arguments.insert("name".into(), json!("Ada"));
    let result = client
        .call_tool(CallToolRequestParams::new("greet_text").with_arguments(arguments))
        .await
        .unwrap();
    assert_eq!(result.structured_content, None, "{version}");
    assert_eq!(text_of(&result.content), "Hello, Ada!");
    client.cancel().await.unwrap();
    schemas
}

#[tokio::test]
async fn clients_of_2025_get_object_schemas_and_wrapped_values() {
    for version in [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25] {
        let schemas = exercise(version).await;
        assert_eq!(
            schemas["list_names"],
            json!({
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"type": "string"}}},
                "required": ["result"],
                "x-fastmcp-wrap-result": true
            })
        );
        // Already objects: as they are.
        assert_eq!(
            schemas["text_stats"]["properties"]["words"]["type"],
            "integer"
        );
        assert_eq!(schemas["make_shape"]["type"], "object");
        assert!(schemas["make_shape"].get("x-fastmcp-wrap-result").is_none());
        // The definitions of a recursive type stay reachable from the new root.
        assert!(
            schemas["forest"]["$defs"]["Node"].is_object(),
            "{}",
            schemas["forest"]
        );
    }
}

#[tokio::test]
async fn clients_of_2026_07_28_get_schemas_and_values_as_they_are() {
    let schemas = exercise(ProtocolVersion::V_2026_07_28).await;
    assert_eq!(
        schemas["list_names"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(schemas["greet"], json!({"type": "string"}));
    assert_eq!(schemas["count_words"]["type"], "integer");
}

/// `Target::Mcp`, what `tooldef convert`, the showcase and the snapshots show, is the tool's
/// definition: its output schema as it is, the 2026-07-28 form; `ToolSet` calls give the value
/// as the tool returned it, and the runtime's own output checks are against that schema.
#[tokio::test]
async fn the_definition_and_tool_set_calls_keep_the_value_as_it_is() {
    let rendered = ListNames.definition().to_json(Target::Mcp).unwrap();
    assert_eq!(
        rendered["outputSchema"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert!(Nothing.definition().output_schema().is_none());
    let output = tools()
        .call("count_words", r#"{"text": "one two"}"#)
        .await
        .unwrap();
    assert_eq!(output.structured, Some(json!(2)));
    assert_eq!(output.to_text(), "2");
}
