//! The argument struct `#[tool]` writes reads what serde's derive reads, and refuses what it
//! refuses with the same words. Since issue 35 the macro writes that struct's `Deserialize`
//! itself, unless a parameter carries a `#[serde(…)]` (then serde's derive still does it), so
//! each case is read twice: by the generated struct and by a twin deriving `Deserialize` with the
//! attributes the generated struct had before.

use serde::Deserialize;
use serde_json::{Value, json};
use tooldef::{Tool, ToolError, ToolSet, tool};

/// How results are sorted.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, schemars::JsonSchema, tooldef::Portable)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Best first.
    Relevance,
    /// Newest first.
    Newest,
}

/// Search with every kind of field: required, a default written out, `Default`, optional, renamed.
#[allow(clippy::too_many_arguments)]
#[tool]
fn search(
    /// What to look for.
    query: String,
    /// The most results.
    #[arg(default = 20)]
    limit: u32,
    /// The order.
    order: Option<Order>,
    /// Whether archived ones count.
    include_archived: Option<bool>,
    /// A page token.
    #[arg(rename = "pageToken")]
    page_token: Option<String>,
    /// Tags to match.
    tags: Vec<String>,
    /// How many pages at most.
    #[arg(default)]
    pages: u8,
) -> String {
    format!("{query} {limit} {order:?} {include_archived:?} {page_token:?} {tags:?} {pages}")
}

/// The twin: what the generated struct was, serde's derive included.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Twin {
    query: String,
    #[serde(default = "twenty")]
    limit: u32,
    order: Option<Order>,
    include_archived: Option<bool>,
    #[serde(rename = "pageToken")]
    page_token: Option<String>,
    tags: Vec<String>,
    #[serde(default)]
    pages: u8,
}

fn twenty() -> u32 {
    20
}

/// A parameter with a `#[serde(…)]` keeps serde's derive, alias and all.
#[tool]
fn aliased(
    /// The city.
    #[serde(alias = "town")]
    city: String,
) -> String {
    city
}

fn read_generated(value: &Value) -> Result<String, String> {
    serde_json::from_value::<<Search as Tool>::Args>(value.clone())
        .map(|a| {
            format!(
                "{} {} {:?} {:?} {:?} {:?} {}",
                a.query, a.limit, a.order, a.include_archived, a.page_token, a.tags, a.pages
            )
        })
        .map_err(|e| e.to_string().replace("SearchArgs", "Twin"))
}

fn read_twin(value: &Value) -> Result<String, String> {
    serde_json::from_value::<Twin>(value.clone())
        .map(|a| {
            format!(
                "{} {} {:?} {:?} {:?} {:?} {}",
                a.query, a.limit, a.order, a.include_archived, a.page_token, a.tags, a.pages
            )
        })
        .map_err(|e| e.to_string())
}

#[test]
fn the_generated_struct_reads_and_refuses_as_serde_derive_does() {
    let cases = [
        json!({"query": "q", "tags": []}),
        json!({"query": "q", "limit": 3, "order": "newest", "include_archived": false,
               "pageToken": "p", "tags": ["a"]}),
        json!({"query": "q", "tags": [], "order": null, "include_archived": null}),
        json!({"tags": []}),
        json!({"query": "q"}),
        json!({"query": "q", "tags": [], "page_token": "p"}),
        json!({"query": "q", "tags": [], "extra": 1}),
        json!({"query": 5, "tags": []}),
        json!({"query": "q", "tags": [], "limit": -1}),
        json!({"query": "q", "tags": [], "limit": 3.5}),
        json!({"query": "q", "tags": [], "order": "oldest"}),
        json!({"query": "q", "tags": "a"}),
        json!({"query": "q", "tags": [], "pages": 300}),
        json!({"query": "q", "tags": [], "pages": 2}),
        json!("text"),
        json!(null),
        json!(7),
        json!({}),
    ];
    for value in cases {
        assert_eq!(read_generated(&value), read_twin(&value), "{value}");
    }
}

#[test]
fn a_key_given_twice_is_refused_as_serde_derive_does() {
    let text = r#"{"query": "a", "tags": [], "query": "b"}"#;
    let generated = serde_json::from_str::<<Search as Tool>::Args>(text)
        .err()
        .map(|e| e.to_string());
    let twin = serde_json::from_str::<Twin>(text)
        .err()
        .map(|e| e.to_string());
    assert_eq!(generated, twin);
}

/// The text of a tool's answer.
fn text(output: &tooldef::ToolOutput) -> String {
    match &output.content[..] {
        [tooldef::Content::Text(text)] => text.clone(),
        other => panic!("not one text block: {other:?}"),
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn through_a_tool_set_the_defaults_and_refusals_reach_the_call() {
    let tools = ToolSet::builder()
        .tool(Search)
        .tool(Aliased)
        .build()
        .unwrap();
    let output = block_on(tools.call("search", json!({"query": "q", "tags": ["x"]}))).unwrap();
    assert_eq!(
        text(&output),
        r#"q 20 None None None ["x"] 0"#,
        "the default written out, and `None` for the optional ones"
    );
    let refused = block_on(tools.call("search", json!({"tags": []})));
    let Err(ToolError::InvalidArguments { problems, .. }) = refused else {
        panic!("not refused: {refused:?}");
    };
    assert!(
        problems.iter().any(|p| p.message.contains("query")),
        "{problems:?}"
    );
    // serde's derive, kept for a `#[serde(alias)]`, still reads the alias.
    let output = block_on(tools.call("aliased", json!({"town": "Lyon"}))).unwrap();
    assert_eq!(text(&output), "Lyon");
}
