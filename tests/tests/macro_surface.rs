//! What `#[tool]` makes of what a user writes: names, docs, renames, defaults, optional
//! parameters, the whole-struct form, annotations, and the function left callable.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooldef::{
    Args, CallContext, ContextError, FromCallContext, Portable, State, Target, Tool, tool,
};

fn canonical<T: Tool>(tool: &T) -> Value {
    serde_json::to_value(tool.definition().input_schema()).unwrap()
}

/// Add two numbers.
#[tool]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

#[test]
fn parameters_become_properties_in_order_with_their_docs() {
    let schema = canonical(&Add);
    assert_eq!(schema["type"], "object");
    assert_eq!(
        schema["properties"]["a"]["description"],
        "The first addend."
    );
    assert_eq!(
        schema["properties"]["b"]["description"],
        "The second addend."
    );
    assert_eq!(schema["required"], json!(["a", "b"]));
    assert_eq!(Add.definition().name(), "add");
    assert_eq!(Add.definition().description(), Some("Add two numbers."));
    assert_eq!(<Add as Tool>::NAME, "add");
    // No generated text leaks into the schema: the tool's description is the function's doc.
    assert!(schema.get("description").is_none());
    assert!(schema.get("title").is_none());
    assert!(schema.get("$schema").is_none());
}

#[test]
fn the_function_stays_callable_and_the_tool_calls_it() {
    assert_eq!(add(2, 3), 5);
    let args: AddArgs = serde_json::from_value(json!({"a": 2, "b": 40})).unwrap();
    let output = block_on(Add.call(args, CallContext::new())).unwrap();
    assert_eq!(output, 42);
}

/// Look up a word.
///
/// Uses the built-in dictionary.
///
/// # Arguments
///
/// * `word` - The word to look up,
///   in any case.
/// * `lang` - An ISO 639-1 language code.
///
/// # Errors
///
/// None; unknown words give an empty list.
#[tool(name = "define", title = "Dictionary", read_only, open_world = false)]
async fn lookup(word: String, #[arg(default = "en".to_owned())] lang: String) -> Vec<String> {
    vec![format!("{word} ({lang})")]
}

#[test]
fn rustdoc_arguments_section_documents_parameters_and_leaves_the_description() {
    let definition = Lookup.definition();
    assert_eq!(definition.name(), "define");
    assert_eq!(definition.title(), Some("Dictionary"));
    assert_eq!(
        definition.description(),
        Some(
            "Look up a word.\n\nUses the built-in dictionary.\n\n# Errors\n\nNone; unknown words give an empty list."
        )
    );
    let schema = canonical(&Lookup);
    assert_eq!(
        schema["properties"]["word"]["description"],
        "The word to look up, in any case."
    );
    assert_eq!(
        schema["properties"]["lang"]["description"],
        "An ISO 639-1 language code."
    );
    assert_eq!(schema["properties"]["lang"]["default"], "en");
    assert_eq!(schema["required"], json!(["word"]));
    let hints = definition.annotations();
    assert_eq!(hints.read_only_hint, Some(true));
    assert_eq!(hints.open_world_hint, Some(false));
    assert_eq!(hints.destructive_hint, None);
    let args: LookupArgs = serde_json::from_value(json!({"word": "Tee"})).unwrap();
    assert_eq!(
        block_on(Lookup.call(args, CallContext::new())).unwrap(),
        ["Tee (en)"]
    );
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "lowercase")]
enum Order {
    Asc,
    Desc,
}

/// Sort numbers.
#[tool(description = "Sort a list of numbers.")]
fn sort(
    #[arg(description = "The numbers.")] mut values: Vec<f64>,
    #[arg(rename = "sortOrder", default = Order::Asc)] order: Order,
    #[arg(default)] dedupe: bool,
    /// Keep at most this many.
    limit: Option<u32>,
    #[arg(default = 1.5)] r#type: f64,
) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    if order == Order::Desc {
        values.reverse();
    }
    if dedupe {
        values.dedup();
    }
    let _ = r#type;
    values.truncate(limit.map_or(usize::MAX, |l| l as usize));
    values
}

#[test]
fn renames_defaults_options_and_raw_identifiers() {
    let definition = Sort.definition();
    assert_eq!(definition.description(), Some("Sort a list of numbers."));
    let schema = canonical(&Sort);
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["values", "sortOrder", "dedupe", "limit", "type"]);
    assert_eq!(
        schema["properties"]["values"]["description"],
        "The numbers."
    );
    assert_eq!(schema["properties"]["sortOrder"]["default"], "asc");
    assert_eq!(schema["properties"]["dedupe"]["default"], false);
    assert_eq!(schema["properties"]["type"]["default"], 1.5);
    // Only the parameters without a default and not `Option` are required.
    assert_eq!(schema["required"], json!(["values"]));

    // Absent defaulted and optional parameters take their defaults.
    let args: SortArgs = serde_json::from_value(json!({"values": [3.0, 1.0, 3.0]})).unwrap();
    assert_eq!(args.order, Order::Asc);
    assert!(!args.dedupe);
    assert_eq!(args.limit, None);
    assert_eq!(args.r#type, 1.5);
    assert_eq!(
        block_on(Sort.call(args, CallContext::new())).unwrap(),
        [1.0, 3.0, 3.0]
    );

    let args: SortArgs = serde_json::from_value(
        json!({"values": [3.0, 1.0, 3.0], "sortOrder": "desc", "dedupe": true, "limit": 1}),
    )
    .unwrap();
    assert_eq!(
        block_on(Sort.call(args, CallContext::new())).unwrap(),
        [3.0]
    );

    // Unknown arguments are refused, as the schema's `additionalProperties: false` says.
    let err = serde_json::from_value::<SortArgs>(json!({"values": [], "order": "desc"}))
        .err()
        .expect("an unknown field is refused")
        .to_string();
    assert!(err.contains("unknown field `order`"), "{err}");
}

/// Search query.
#[derive(Debug, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "camelCase")]
struct Query {
    /// Words to search for.
    search_text: String,
    /// Results per page.
    #[serde(default = "ten")]
    page_size: u32,
    #[serde(skip)]
    #[allow(dead_code)]
    internal: u8,
    /// How to match.
    #[serde(default)]
    mode: Mode,
}

fn ten() -> u32 {
    10
}

/// How to match.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Mode {
    /// Any word.
    #[default]
    AnyWord,
    /// Words within a distance.
    Near {
        /// At most this many words apart.
        distance: u8,
    },
}

/// Search the index.
#[tool]
async fn search(Args(query): Args<Query>) -> String {
    let mode = match query.mode {
        Mode::AnyWord => "any".to_owned(),
        Mode::Near { distance } => format!("near {distance}"),
    };
    format!("{} / {} / {mode}", query.search_text, query.page_size)
}

#[test]
fn whole_struct_form_honours_serde_attributes() {
    let schema = canonical(&Search);
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["searchText", "pageSize", "mode"]);
    assert_eq!(schema["properties"]["pageSize"]["default"], 10);
    assert_eq!(schema["required"], json!(["searchText"]));
    let args: Query = serde_json::from_value(json!({"searchText": "rust"})).unwrap();
    assert_eq!(
        block_on(Search.call(args, CallContext::new())).unwrap(),
        "rust / 10 / any"
    );
    // The function itself still takes `Args<Query>`.
    let direct = block_on(search(Args(Query {
        search_text: "x".into(),
        page_size: 1,
        internal: 0,
        mode: Mode::AnyWord,
    })));
    assert_eq!(direct, "x / 1 / any");
}

/// Say hello.
#[tool]
fn hello() {}

#[test]
fn a_tool_without_parameters_takes_an_empty_object() {
    let schema = canonical(&Hello);
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"], json!({}));
    let args: HelloArgs = serde_json::from_value(json!({})).unwrap();
    block_on(Hello.call(args, CallContext::new())).unwrap();
    let gemini = Hello.definition().to_json(Target::Gemini).unwrap();
    assert!(gemini.get("parameters").is_none(), "{gemini}");
}

/// A structured result.
#[derive(Serialize, JsonSchema)]
struct Stats {
    /// How many.
    count: u32,
}

/// Count things.
#[tool]
fn count() -> Stats {
    Stats { count: 1 }
}

/// Count things, fallibly.
#[tool]
fn try_count() -> Result<Stats, std::io::Error> {
    Ok(Stats { count: 1 })
}

/// Count things as text.
#[tool]
fn count_text() -> String {
    "1".into()
}

#[derive(Serialize)]
struct NoSchema;

/// Return something without a schema.
#[tool]
fn opaque() -> Option<Box<NoSchema>> {
    None
}

#[test]
fn output_schemas_come_from_the_return_type() {
    for definition in [Count.definition(), TryCount.definition()] {
        let output =
            serde_json::to_value(definition.output_schema().expect("output schema")).unwrap();
        assert_eq!(output["type"], "object");
        assert_eq!(output["properties"]["count"]["description"], "How many.");
        let mcp = definition.to_json(Target::Mcp).unwrap();
        assert_eq!(mcp["outputSchema"]["type"], "object");
    }
    // Any root: a string's schema is kept, and MCP shows it as it is (the 2026-07-28 form; the
    // MCP server wraps it for earlier clients).
    let text = CountText
        .definition()
        .output_schema()
        .expect("output schema");
    assert_eq!(text.get("type"), Some(&serde_json::json!("string")));
    let mcp = CountText.definition().to_json(Target::Mcp).unwrap();
    assert_eq!(mcp["outputSchema"], serde_json::json!({"type": "string"}));
    // A type without a schema gives none.
    assert!(Opaque.definition().output_schema().is_none());
    let _ = opaque();
}

/// A crate renamed by the user still works with `crate = "…"`.
mod renamed {
    use tooldef as td;

    /// Ping.
    #[td::tool(crate = "td")]
    pub fn ping() -> &'static str {
        "pong"
    }
}

#[test]
fn crate_path_can_be_given() {
    assert_eq!(renamed::Ping.definition().name(), "ping");
}

#[derive(Clone)]
struct Greeting(String);

/// Greet someone.
#[tool]
fn greet(
    /// Who to greet.
    name: String,
    State(greeting): State<Greeting>,
    call: CallContext,
    #[context] call_id: CallIdOrNone,
) -> String {
    format!(
        "{}, {name}! ({:?}, {})",
        greeting.0,
        call.call_id(),
        call_id.0
    )
}

/// A custom extractor.
struct CallIdOrNone(String);

impl FromCallContext for CallIdOrNone {
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
        Ok(CallIdOrNone(context.call_id().unwrap_or("none").to_owned()))
    }
}

#[test]
fn context_parameters_are_filled_from_the_call_context_and_not_in_the_schema() {
    let schema = canonical(&Greet);
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["name"]);
    let context = CallContext::new()
        .with_state(Greeting("Hello".into()))
        .with_call_id("call_42");
    let args: GreetArgs = serde_json::from_value(json!({"name": "Ada"})).unwrap();
    assert_eq!(
        block_on(Greet.call(args, context)).unwrap(),
        "Hello, Ada! (Some(\"call_42\"), call_42)"
    );
    // Missing state is the server's mistake, reported as such.
    let args: GreetArgs = serde_json::from_value(json!({"name": "Ada"})).unwrap();
    let err = block_on(Greet.call(args, CallContext::new())).unwrap_err();
    assert!(err.to_string().contains("Greeting"), "{err}");
}

/// List the items of a page.
#[tool]
fn list_items(
    /// Results per page.
    #[arg(deprecated = "use `limit` instead")]
    page_size: Option<u32>,
    /// At most this many.
    limit: Option<u32>,
    /// Include archived items.
    #[arg(deprecated, default)]
    archived: bool,
) -> u32 {
    let _ = archived;
    page_size.or(limit).unwrap_or(10)
}

/// The input schema as `target` renders it.
fn parameters(tool: &impl Tool, target: Target) -> Value {
    let json = tool.definition().to_json(target).unwrap();
    tooldef_tests::input_schema_in(&json, target)
        .cloned()
        .unwrap_or(Value::Null)
}

#[test]
fn deprecated_parameters_say_so_in_every_target() {
    let schema = canonical(&ListItems);
    let page_size = &schema["properties"]["page_size"];
    assert_eq!(page_size["deprecated"], true);
    assert_eq!(
        page_size["description"],
        "Results per page. Deprecated. Use `limit` instead."
    );
    assert_eq!(schema["properties"]["archived"]["deprecated"], true);
    assert_eq!(
        schema["properties"]["archived"]["description"],
        "Include archived items."
    );
    assert!(schema["properties"]["limit"].get("deprecated").is_none());

    // MCP carries JSON Schema's keyword as it is.
    let mcp = parameters(&ListItems, Target::Mcp);
    assert_eq!(mcp["properties"]["archived"]["deprecated"], true);
    assert_eq!(mcp["properties"]["page_size"]["deprecated"], true);

    // Every other target says it in the description, once, whether or not it keeps the keyword.
    for target in Target::ALL {
        let properties = &parameters(&ListItems, target)["properties"];
        for (name, said) in [
            (
                "page_size",
                "Results per page. Deprecated. Use `limit` instead.",
            ),
            ("archived", "Include archived items. Deprecated."),
        ] {
            let property = &properties[name];
            let description = property["description"].as_str().unwrap_or_default();
            let keyword = property.get("deprecated") == Some(&Value::Bool(true));
            assert!(
                keyword || description.starts_with(said),
                "{target:?} loses that `{name}` is deprecated: {property}"
            );
            assert_eq!(
                description.matches("Deprecated.").count(),
                usize::from(!keyword || name == "page_size"),
                "{target:?}: {property}"
            );
        }
        assert!(
            !properties["limit"]["description"]
                .as_str()
                .unwrap_or_default()
                .contains("Deprecated"),
            "{target:?}"
        );
    }
    assert_eq!(
        block_on(ListItems.call(
            serde_json::from_value(json!({"page_size": 5})).unwrap(),
            CallContext::new()
        ))
        .unwrap(),
        5
    );
}

/// Polls a future that never waits (the tools here do no I/O).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the tool's future waited"),
    }
}
