//! The newest tool fields of each provider, rendered from one definition (issue 33): example
//! arguments (Anthropic `input_examples`, MCP's schema `examples`, words elsewhere), output
//! schemas (MCP `outputSchema`, Responses `output_schema`, Gemini `response` /
//! `responseJsonSchema`), deferred loading (Responses and Anthropic `defer_loading`, Anthropic's
//! one loaded tool), Anthropic's `cache_control` on the last tool, foreign tools' examples read
//! back, and a structured result checked against its output schema in debug builds.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};
use tooldef::convert::{ConvertOptions, convert};
use tooldef::report::ChangeKind;
use tooldef::targets::{CacheControl, CacheTtl};
use tooldef::{
    BuildError, CallContext, ContextError, ReturnValue, Target, Tool, ToolDefinition, ToolError,
    ToolSet, tool,
};

/// Why the report says `keyword` was removed, if it does.
fn removed(report: &tooldef::report::Report, keyword: &str) -> Option<String> {
    report.changes().iter().find_map(|c| match &c.kind {
        ChangeKind::Removed { keyword: k, why } if k == keyword => Some(why.clone()),
        _ => None,
    })
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// A forecast.
#[derive(Serialize, JsonSchema)]
struct Weather {
    /// Degrees Celsius.
    high: i32,
    /// What the sky does.
    sky: String,
}

/// The forecast for a city.
#[tool]
fn forecast(city: String) -> Weather {
    Weather {
        high: 20,
        sky: format!("clear over {city}"),
    }
}

#[test]
fn the_output_schema_goes_to_every_target_that_takes_one() {
    let definition = Forecast.definition();
    let mcp = definition.to_json(Target::Mcp).unwrap();
    assert_eq!(mcp["outputSchema"]["properties"]["high"]["type"], "integer");
    let responses = definition.to_json(Target::Responses).unwrap();
    assert_eq!(
        responses["output_schema"]["properties"]["sky"]["type"], "string",
        "{responses}"
    );
    // Gemini's OpenAPI subset for `response`, JSON Schema for `responseJsonSchema`.
    let gemini = definition.to_json(Target::Gemini).unwrap();
    assert_eq!(gemini["response"]["properties"]["high"]["type"], "integer");
    assert!(gemini.get("responseJsonSchema").is_none());
    let gemini_json = definition.to_json(Target::GeminiJsonSchema).unwrap();
    assert_eq!(
        gemini_json["responseJsonSchema"]["required"],
        json!(["high", "sky"])
    );
    assert!(gemini_json.get("response").is_none());
    // No field for it in Chat Completions or Anthropic.
    for target in [Target::ChatCompletions, Target::Anthropic] {
        let text = definition.to_json(target).unwrap().to_string();
        assert!(!text.contains("Degrees Celsius"), "{target}: {text}");
    }
}

/// Greets.
#[tool]
fn greet(name: String) -> Vec<String> {
    vec![format!("Hello, {name}")]
}

#[test]
fn an_output_schema_of_any_root_reaches_responses_and_gemini() {
    let definition = Greet.definition();
    let responses = definition.to_json(Target::Responses).unwrap();
    assert_eq!(responses["output_schema"]["type"], "array", "{responses}");
    assert_eq!(responses["output_schema"]["items"]["type"], "string");
    let gemini = definition.to_json(Target::Gemini).unwrap();
    assert_eq!(gemini["response"]["type"], "array", "{gemini}");
    let gemini_json = definition.to_json(Target::GeminiJsonSchema).unwrap();
    assert_eq!(gemini_json["responseJsonSchema"]["type"], "array");
    // An object result is left open: a result may carry more than its schema lists.
    let forecast = Forecast.definition().to_json(Target::Responses).unwrap();
    assert!(
        forecast["output_schema"]
            .get("additionalProperties")
            .is_none(),
        "{forecast}"
    );
}

/// Looks a file up.
#[tool(strict = false)]
fn lookup(#[schemars(regex(pattern = r"^[a-z]+$"))] key: String) -> String {
    key
}

fn with_examples(name: &'static str, examples: &[Value]) -> ToolDefinition {
    let mut builder = ToolDefinition::builder(name)
        .description("Look a key up.")
        .input_schema(schemars::json_schema!({
            "type": "object",
            "properties": {
                "key": {"type": "string", "pattern": "^[a-z]+$"},
                "limit": {"type": "integer", "minimum": 1, "default": 10}
            },
            "required": ["key"]
        }));
    for example in examples {
        builder = builder.example(object(example.clone()));
    }
    builder.build()
}

#[test]
fn examples_reach_each_target_its_own_way() {
    let examples = [json!({"key": "alpha"}), json!({"key": "beta", "limit": 3})];
    let definition = with_examples("look_up", &examples);
    assert_eq!(definition.examples().len(), 2);
    let anthropic = definition.to_json(Target::Anthropic).unwrap();
    assert_eq!(anthropic["input_examples"], json!(examples));
    let mcp = definition.to_json(Target::Mcp).unwrap();
    assert_eq!(mcp["inputSchema"]["examples"], json!(examples));
    assert_eq!(mcp["description"], "Look a key up.");
    for target in [
        Target::ChatCompletions,
        Target::Responses,
        Target::Gemini,
        Target::GeminiJsonSchema,
    ] {
        let rendering = definition.render(target).unwrap();
        let json = rendering.to_json();
        let description = match target {
            Target::ChatCompletions => &json["function"]["description"],
            _ => &json["description"],
        };
        assert_eq!(
            description,
            "Look a key up.\n\nExamples of arguments:\n{\"key\":\"alpha\"}\n{\"key\":\"beta\",\"limit\":3}",
            "{target}"
        );
        assert!(!json.to_string().contains("input_examples"), "{target}");
        let said = rendering.report.changes().iter().any(|c| {
            matches!(&c.kind, ChangeKind::Described { keywords, .. } if keywords == &["examples"])
        });
        assert!(said, "{target}: {:?}", rendering.report);
    }
    // A tool without examples renders as before: no field, no words.
    let plain = with_examples("plain", &[]);
    assert!(
        plain
            .to_json(Target::Anthropic)
            .unwrap()
            .get("input_examples")
            .is_none()
    );
    assert!(
        plain.to_json(Target::Mcp).unwrap()["inputSchema"]
            .get("examples")
            .is_none()
    );
}

#[test]
fn examples_that_do_not_fit_openai_s_description_limit_are_left_out_and_said() {
    // 1,024 characters at most: the long description leaves room for the first example only.
    let long = "a".repeat(900);
    let definition = ToolDefinition::builder("look_up")
        .description(long.clone())
        .example(object(json!({"key": "alpha"})))
        .example(object(json!({"key": "x".repeat(200)})))
        .build();
    let rendering = definition.render(Target::ChatCompletions).unwrap();
    let description = rendering.to_json()["function"]["description"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(description.chars().count() <= 1024, "{}", description.len());
    assert!(
        description.ends_with("{\"key\":\"alpha\"}"),
        "{description}"
    );
    let left_out = removed(&rendering.report, "examples");
    assert_eq!(
        left_out.as_deref(),
        Some(
            "1 of 2 examples left out: with them the description would pass the target's 1024 characters"
        )
    );
    // Gemini has no such limit: both are there.
    let gemini = definition.to_json(Target::Gemini).unwrap();
    assert!(
        gemini["description"]
            .as_str()
            .unwrap()
            .contains(&"x".repeat(200))
    );
}

/// A hand-written tool whose examples are given to its definition's builder.
struct LookUp(&'static [&'static str]);

impl Tool for LookUp {
    type Args = Map<String, Value>;
    type Output = String;
    const NAME: &'static str = "look_up";

    fn definition(&self) -> &'static ToolDefinition {
        static GOOD: OnceLock<ToolDefinition> = OnceLock::new();
        static BAD: OnceLock<ToolDefinition> = OnceLock::new();
        let cell = if self.0.len() == 1 { &GOOD } else { &BAD };
        cell.get_or_init(|| {
            let examples: Vec<Value> = self
                .0
                .iter()
                .map(|e| serde_json::from_str(e).unwrap())
                .collect();
            with_examples("look_up", &examples)
        })
    }

    async fn call(&self, _: Map<String, Value>, _: CallContext) -> Result<String, ContextError> {
        Ok("found".to_owned())
    }

    fn output(output: String) -> Result<ReturnValue, String> {
        Ok(ReturnValue::Json(Value::String(output)))
    }
}

#[test]
fn a_set_refuses_an_example_its_tool_s_schema_refuses() {
    assert!(
        ToolSet::builder()
            .tool(LookUp(&[r#"{"key": "alpha"}"#]))
            .build()
            .is_ok()
    );
    let error = ToolSet::builder()
        .tool(LookUp(&[
            r#"{"key": "alpha"}"#,
            r#"{"key": "Beta", "limit": 0}"#,
        ]))
        .build()
        .err()
        .expect("refused");
    let BuildError::InvalidExample {
        tool,
        example,
        problems,
        ..
    } = &error
    else {
        panic!("{error}")
    };
    assert_eq!((tool.as_str(), *example), ("look_up", 2));
    let pointers: Vec<&str> = problems.iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(pointers, ["/key", "/limit"], "{error}");
    let message = error.to_string();
    assert!(
        message.starts_with(
            "example 2 of the tool `look_up` breaks the tool's own schema: {\"key\":\"Beta\",\"limit\":0}\n- "
        ),
        "{message}"
    );
    assert!(message.contains("^[a-z]+$"), "{message}");
    assert!(
        message.ends_with("correct the example, or the schema."),
        "{message}"
    );
}

#[test]
fn a_deferred_tool_says_so_where_the_target_takes_it() {
    let definition = ToolDefinition::builder("archive")
        .description("Archive a thread.")
        .defer_loading(true)
        .build();
    assert!(definition.defer_loading());
    assert_eq!(
        definition.to_json(Target::Responses).unwrap()["defer_loading"],
        true
    );
    assert_eq!(
        definition.to_json(Target::Anthropic).unwrap()["defer_loading"],
        true
    );
    for target in [
        Target::Mcp,
        Target::ChatCompletions,
        Target::Gemini,
        Target::GeminiJsonSchema,
    ] {
        let json = definition.to_json(target).unwrap().to_string();
        assert!(!json.contains("defer_loading"), "{target}: {json}");
    }
}

#[test]
fn a_deferred_set_keeps_one_anthropic_tool_loaded_and_caches_the_last() {
    let tools = ToolSet::builder()
        .tool(Forecast)
        .tool(Lookup)
        .defer_loading(true)
        .anthropic_cache(CacheControl {
            ttl: Some(CacheTtl::OneHour),
        })
        .build()
        .unwrap();
    let responses = tools.list(Target::Responses).unwrap();
    assert!(responses.iter().all(|t| t["defer_loading"] == true));
    assert!(responses.iter().all(|t| t.get("cache_control").is_none()));
    let listing = tools.listing(Target::Anthropic);
    assert_eq!(listing.loaded_anyway.as_deref(), Some("forecast"));
    assert!(listing.tools[0].get("defer_loading").is_none());
    assert_eq!(listing.tools[1]["defer_loading"], true);
    assert!(listing.tools[0].get("cache_control").is_none());
    assert_eq!(
        listing.tools[1]["cache_control"],
        json!({"type": "ephemeral", "ttl": "1h"})
    );
    // Not deferred, not cached: as before.
    let plain = ToolSet::builder()
        .tool(Forecast)
        .tool(Lookup)
        .build()
        .unwrap();
    let listed = plain.list(Target::Anthropic).unwrap();
    assert!(
        listed
            .iter()
            .all(|t| t.get("defer_loading").is_none() && t.get("cache_control").is_none())
    );
    assert_eq!(plain.listing(Target::Anthropic).loaded_anyway, None);
}

#[test]
fn a_foreign_tool_s_examples_are_read_from_its_schema_its_meta_or_itself() {
    let listed = json!([
        {"name": "in_schema", "description": "Look up.", "inputSchema": {
            "type": "object", "properties": {"q": {"type": "string"}},
            "examples": [{"q": "a"}, {"q": "b"}]}},
        {"name": "in_meta", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            "_meta": {"examples": [{"q": "c"}]}},
        {"name": "top_level", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            "examples": [{"q": "d"}, {"q": 5}]},
    ]);
    let anthropic = convert(&listed, Target::Anthropic, &ConvertOptions::default()).unwrap();
    let examples: Vec<Value> = anthropic
        .tools
        .iter()
        .map(|t| t.to_json()["input_examples"].clone())
        .collect();
    assert_eq!(
        examples,
        [
            json!([{"q": "a"}, {"q": "b"}]),
            json!([{"q": "c"}]),
            json!([{"q": "d"}])
        ]
    );
    // The schema's own `examples` went to `input_examples`, not into the schema's words.
    let first = anthropic.tools[0].to_json();
    assert!(first["input_schema"].get("examples").is_none(), "{first}");
    // The example the schema refuses is left out, with why.
    let why = removed(&anthropic.tools[2].rendering.report, "examples").expect("reported");
    assert!(
        why.starts_with("example 2 breaks the tool's own schema (at `/q`"),
        "{why}"
    );
    // Converting tooldef's own MCP rendering gives the examples back.
    let mcp = convert(&listed, Target::Mcp, &ConvertOptions::default()).unwrap();
    let again = convert(
        &Value::Array(mcp.to_json()),
        Target::Anthropic,
        &ConvertOptions::default(),
    )
    .unwrap();
    assert_eq!(again.to_json(), anthropic.to_json());
}

#[test]
fn a_converted_batch_may_be_deferred_with_one_anthropic_tool_loaded() {
    let listed = json!([
        {"name": "a", "description": "A.", "inputSchema": {"type": "object"}},
        {"name": "b", "description": "B.", "inputSchema": {"type": "object"}},
    ]);
    let options = ConvertOptions {
        defer_loading: true,
        ..ConvertOptions::default()
    };
    let responses = convert(&listed, Target::Responses, &options)
        .unwrap()
        .to_json();
    assert!(responses.iter().all(|t| t["defer_loading"] == true));
    let anthropic = convert(&listed, Target::Anthropic, &options).unwrap();
    let json = anthropic.to_json();
    assert!(json[0].get("defer_loading").is_none());
    assert_eq!(json[1]["defer_loading"], true);
    assert!(removed(&anthropic.tools[0].rendering.report, "defer_loading").is_some());
}

/// A reading whose `Serialize` writes a string where its schema says a number.
#[derive(Serialize, JsonSchema)]
struct Reading {
    #[serde(serialize_with = "as_text")]
    value: u32,
}

fn as_text<S: serde::Serializer>(value: &u32, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&value.to_string())
}

/// Reads a sensor.
#[tool]
fn read_sensor() -> Reading {
    Reading { value: 7 }
}

#[tokio::test]
async fn a_result_off_its_output_schema_is_caught_in_debug_builds() {
    let tools = ToolSet::builder().tool(ReadSensor).build().unwrap();
    let outcome = tools.call("read_sensor", "{}").await;
    if cfg!(debug_assertions) {
        let Err(ToolError::Failed { message, .. }) = &outcome else {
            panic!("{outcome:?}")
        };
        assert!(
            message.starts_with("its result does not match its own output schema (at `/value`: "),
            "{message}"
        );
        assert!(
            message.contains("not caused by your arguments"),
            "{message}"
        );
    } else {
        assert!(
            outcome.is_ok(),
            "release builds leave the check to the client"
        );
    }
}
