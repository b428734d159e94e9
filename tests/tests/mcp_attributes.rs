//! What a tool says to MCP clients alone: `#[tool(icon, meta, task)]` and `#[arg(header)]`, in
//! the MCP rendering, and gone (with the report saying so) from every other target's.

use std::sync::Arc;

use serde_json::{Value, json};
use tooldef::convert::{ConvertOptions, convert};
use tooldef::report::{ChangeKind, Report};
use tooldef::{Target, Tool, tool, tools};
use tooldef_tests::{input_changes_at, input_schema_in};

/// Look up the weather.
#[tool(
    read_only,
    icon = "https://example.com/weather.png",
    icon(src = "data:image/svg+xml;base64,PHN2Zy8+", mime_type = "image/svg+xml", sizes = "48x48 any", theme = "dark"),
    meta(version = 2, "com.example/tags" = ["weather", "forecast"], "com.example/limits" = {"perMinute": 60, beta: true}),
    task
)]
fn weather(
    /// The city.
    city: String,
    /// Which data centre answers.
    #[arg(header = "Region")]
    region: String,
    /// Days ahead.
    #[arg(header = "X-Days", default = 3)]
    days: u32,
) -> String {
    format!("{city} {region} {days}")
}

/// A tool with nothing MCP-only.
#[tool]
fn plain(text: String) -> String {
    text
}

#[test]
fn the_mcp_rendering_has_icons_meta_and_the_header_keyword() {
    let rendering = Weather.definition().render(Target::Mcp).unwrap();
    assert_eq!(
        rendering.to_json(),
        json!({
            "name": "weather",
            "description": "Look up the weather.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "city": {"description": "The city.", "type": "string"},
                    "region": {
                        "description": "Which data centre answers.",
                        "type": "string",
                        "x-mcp-header": "Region"
                    },
                    "days": {
                        "description": "Days ahead. Default: 3.",
                        "type": "integer",
                        "format": "uint32",
                        "minimum": 0,
                        "default": 3,
                        "x-mcp-header": "X-Days"
                    }
                },
                "required": ["city", "region"],
                "additionalProperties": false
            },
            "outputSchema": {"type": "string"},
            "annotations": {"readOnlyHint": true},
            "icons": [
                {"src": "https://example.com/weather.png"},
                {
                    "src": "data:image/svg+xml;base64,PHN2Zy8+",
                    "mimeType": "image/svg+xml",
                    "sizes": ["48x48", "any"],
                    "theme": "dark"
                }
            ],
            "_meta": {
                "version": 2,
                "com.example/tags": ["weather", "forecast"],
                "com.example/limits": {"perMinute": 60, "beta": true}
            }
        })
    );
    // The keyword is MCP's own: nothing to report.
    assert!(!rendering.report.changes().iter().any(
        |c| matches!(&c.kind, ChangeKind::Removed { keyword, .. } if keyword == "x-mcp-header")
    ));
}

/// The pointers at which `report` says `x-mcp-header` was removed.
fn header_removals(report: &Report) -> Vec<&str> {
    report
        .changes()
        .iter()
        .filter(
            |c| matches!(&c.kind, ChangeKind::Removed { keyword, .. } if keyword == "x-mcp-header"),
        )
        .map(|c| c.pointer.as_str())
        .collect()
}

fn mentions_header(value: &Value) -> bool {
    value.to_string().contains("x-mcp-header") || value.to_string().contains("Mcp-Param")
}

#[test]
fn every_other_target_drops_the_header_keyword_and_reports_it() {
    for target in Target::ALL.into_iter().filter(|t| *t != Target::Mcp) {
        let rendering = Weather.definition().render(target).unwrap();
        let json = rendering.to_json();
        assert!(!mentions_header(&json), "{target}: {json}");
        assert!(
            json.get("icons").is_none() && json.get("_meta").is_none(),
            "{target}"
        );
        assert_eq!(
            header_removals(&rendering.report),
            ["/properties/region", "/properties/days"],
            "{target}"
        );
        let change = input_changes_at(&rendering.report, "/properties/region")
            .find(|kind| matches!(kind, ChangeKind::Removed { .. }))
            .unwrap();
        assert_eq!(
            change.to_string(),
            "`x-mcp-header` removed: it is an MCP transport hint (MCP clients send the argument \
             in an `Mcp-Param-…` HTTP header too), meaningless to this provider",
        );
        // Nothing else about the property changes: the description is not given the keyword.
        let schema = input_schema_in(&json, target).unwrap();
        assert_eq!(
            schema["properties"]["region"]["description"], "Which data centre answers.",
            "{target}"
        );
    }
    // Strict where it was: the keyword is gone before the strict checks.
    let anthropic = Weather.definition().render(Target::Anthropic).unwrap();
    let chat = Weather
        .definition()
        .render(Target::ChatCompletions)
        .unwrap();
    assert_eq!(chat.to_json()["function"]["strict"], true);
    assert!(
        anthropic
            .report
            .not_strict()
            .all(|c| c.pointer != "/properties/region"),
        "{:?}",
        anthropic.report
    );
}

#[test]
fn runs_as_task_is_carried() {
    assert!(Weather.definition().runs_as_task());
    assert!(!Plain.definition().runs_as_task());
    assert!(Plain.definition().icons().is_none() && Plain.definition().meta().is_none());
    let built = tooldef::ToolDefinition::builder("t")
        .runs_as_task(true)
        .build();
    assert!(built.runs_as_task());
    assert!(!tooldef::ToolDefinition::builder("t").build().runs_as_task());
}

struct Archive;

#[tools]
impl Archive {
    /// Export the archive.
    #[tool(
        task = true,
        icon = "https://example.com/export.svg",
        meta(owner = "archive-team")
    )]
    async fn export(
        &self,
        /// The tenant.
        #[arg(header = "Tenant")]
        tenant: String,
    ) -> String {
        tenant
    }

    /// Count the entries.
    #[tool(task = false)]
    fn count(&self) -> u64 {
        0
    }
}

#[test]
fn methods_take_the_same_attributes() {
    let export = ArchiveExport(Arc::new(Archive));
    assert!(export.definition().runs_as_task());
    assert!(!ArchiveCount(Arc::new(Archive)).definition().runs_as_task());
    let mcp = export.definition().to_json(Target::Mcp).unwrap();
    assert_eq!(
        mcp["icons"],
        json!([{"src": "https://example.com/export.svg"}])
    );
    assert_eq!(mcp["_meta"], json!({"owner": "archive-team"}));
    assert_eq!(
        mcp["inputSchema"]["properties"]["tenant"]["x-mcp-header"],
        "Tenant"
    );
    let gemini = export.definition().render(Target::Gemini).unwrap();
    assert!(!mentions_header(&gemini.to_json()));
    assert_eq!(header_removals(&gemini.report), ["/properties/tenant"]);
}

#[test]
fn a_foreign_tool_with_header_keywords_keeps_them_for_mcp_only() {
    let foreign = json!({
        "name": "fetch_rows",
        "description": "Fetch rows.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "tenant": {"type": "string", "x-mcp-header": "Tenant"},
                "filter": {
                    "type": "object",
                    "properties": {"shard": {"type": "integer", "x-mcp-header": "Shard"}},
                    "required": ["shard"]
                }
            },
            "required": ["tenant", "filter"]
        }
    });
    for target in Target::ALL {
        let conversion = convert(&foreign, target, &ConvertOptions::default()).unwrap();
        let converted = &conversion.tools[0];
        let json = converted.to_json();
        if target == Target::Mcp {
            let schema = input_schema_in(&json, target).unwrap();
            assert_eq!(schema["properties"]["tenant"]["x-mcp-header"], "Tenant");
            assert_eq!(
                schema["properties"]["filter"]["properties"]["shard"]["x-mcp-header"],
                "Shard"
            );
            assert!(header_removals(&converted.rendering.report).is_empty());
        } else {
            assert!(!mentions_header(&json), "{target}: {json}");
            assert_eq!(
                header_removals(&converted.rendering.report),
                ["/properties/tenant", "/properties/filter/properties/shard"],
                "{target}"
            );
        }
    }
}

/// Tag things.
#[tool]
fn tagged(tag: Option<String>) -> String {
    tag.unwrap_or_default()
}

/// Why `#[arg(header)]` refuses an `Option`: its MCP rendering's `type` is a list, and MCP
/// clients (rmcp's `validate_param_header_annotations`) take `x-mcp-header` only beside a
/// `type` that is the one string `string`, `integer` or `boolean`.
#[test]
fn an_option_renders_a_type_list_for_mcp() {
    let mcp = Tagged.definition().to_json(Target::Mcp).unwrap();
    assert_eq!(
        mcp["inputSchema"]["properties"]["tag"]["type"],
        json!(["string", "null"])
    );
}
