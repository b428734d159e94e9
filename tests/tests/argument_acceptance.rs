//! What the schema allows, the call accepts: one test per runtime finding of issue 11, each of
//! which failed before its fix. The schema-driven property suite (`schema_properties.rs`) finds
//! this class of bug by itself; these pin the individual cases with their exact messages.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooldef::{Args, BuildError, Target, Tool, ToolError, ToolSet, tool};

/// Echo the numbers received.
#[tool]
fn numbers(
    /// A byte.
    byte: u8,
    /// A signed 64-bit integer.
    big: i64,
    /// An unsigned 64-bit integer.
    unsigned: u64,
    /// A 32-bit float.
    ratio: f32,
    /// Small integers.
    list: Vec<u16>,
    /// Maybe an integer.
    maybe: Option<u32>,
) -> Value {
    json!({"byte": byte, "big": big, "unsigned": unsigned, "ratio": ratio, "list": list, "maybe": maybe})
}

/// Count to a number. Serde alone enforces this schema: the fast path.
#[tool]
fn count(
    /// Where to stop.
    n: u32,
) -> u32 {
    n
}

/// Count to a number, validated first (the bound makes serde alone not enough).
#[tool]
fn count_checked(
    /// Where to stop.
    #[schemars(range(max = 1000))]
    n: u32,
) -> u32 {
    n
}

/// Move by an offset.
#[tool]
fn shift(
    /// How far, either way.
    by: i32,
) -> i32 {
    by
}

/// Statistics of a sample.
#[derive(Serialize, JsonSchema)]
struct Stats {
    /// The sum.
    sum: f64,
}

/// Sum numbers.
#[tool(type_name = "StatsTool")]
fn stats(
    /// The numbers.
    numbers: Vec<f64>,
) -> Stats {
    Stats {
        sum: numbers.iter().sum::<f64>() / if numbers.is_empty() { 0.0 } else { 1.0 },
    }
}

/// A page request whose `size` defaults to `Some(10)`.
#[derive(Deserialize, JsonSchema, tooldef::Portable)]
#[serde(default)]
struct Page {
    /// How many.
    size: Option<u32>,
}

impl Default for Page {
    fn default() -> Self {
        Page { size: Some(10) }
    }
}

/// List a page.
#[tool(type_name = "PageTool")]
fn page(Args(page): Args<Page>) -> String {
    format!("{:?}", page.size)
}

/// Book a table.
#[tool]
fn book_table(
    /// When.
    time: chrono::NaiveTime,
    /// When, with the day.
    at: chrono::NaiveDateTime,
) -> String {
    format!("{at} {time}")
}

/// Ping a host.
#[tool]
fn ping(
    /// Its address.
    address: std::net::IpAddr,
) -> String {
    address.to_string()
}

/// Mix a drink.
#[tool]
fn mix(
    /// How strong.
    #[arg(default = 0.1)]
    strength: f32,
) -> f32 {
    strength
}

/// A size.
#[derive(Deserialize, JsonSchema, tooldef::Portable)]
#[serde(rename_all = "lowercase")]
enum Size {
    Small,
    /// The usual.
    Medium,
    Large,
}

/// Order a coffee.
#[tool]
fn order(
    /// The size.
    size: Size,
) -> String {
    let _ = size;
    String::new()
}

/// A tree of numbers.
#[derive(Deserialize, Serialize, JsonSchema, tooldef::Portable)]
struct Tree {
    /// The value here.
    value: i32,
    /// The subtrees.
    children: Vec<Tree>,
}

/// Measure a tree.
#[tool]
fn depth(
    /// The tree.
    tree: Tree,
) -> usize {
    fn depth(tree: &Tree) -> usize {
        1 + tree.children.iter().map(depth).max().unwrap_or(0)
    }
    depth(&tree)
}

fn tools() -> ToolSet {
    ToolSet::builder()
        .tool(Numbers)
        .tool(Count)
        .tool(CountChecked)
        .tool(Shift)
        .tool(StatsTool)
        .tool(BookTable)
        .tool(Mix)
        .tool(Ping)
        .tool(Order)
        .tool(Depth)
        .build()
        .expect("distinct names")
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(future)
}

/// The structured value a call returned (JSON text of its one block).
fn call(tools: &ToolSet, name: &str, arguments: &str) -> Result<Value, ToolError> {
    block_on(tools.call(name, arguments)).map(|output| {
        output.structured.clone().unwrap_or_else(|| {
            let text = output.to_text();
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        })
    })
}

/// The one problem of a refused call, as (pointer, message).
fn refusal(tools: &ToolSet, name: &str, arguments: &str) -> (String, String) {
    match call(tools, name, arguments) {
        Err(ToolError::InvalidArguments { problems, .. }) if problems.len() == 1 => {
            (problems[0].pointer.clone(), problems[0].message.clone())
        }
        other => panic!("{name} {arguments}: expected one problem, got {other:?}"),
    }
}

const NUMBERS: &str =
    r#"{"byte": 3, "big": -2, "unsigned": 7, "ratio": 0.5, "list": [1, 2], "maybe": 4}"#;

fn numbers_with(key: &str, value: &str) -> String {
    let mut arguments: serde_json::Map<String, Value> = serde_json::from_str(NUMBERS).unwrap();
    arguments.insert(key.to_owned(), Value::Null);
    serde_json::to_string(&arguments)
        .unwrap()
        .replace(&format!("\"{key}\":null"), &format!("\"{key}\":{value}"))
}

#[test]
fn integer_valued_floats_are_integers_at_every_depth() {
    let tools = tools();
    let sent = r#"{"byte": 3.0, "big": -2.0, "unsigned": 1e3, "ratio": 0.5, "list": [1.0, 2], "maybe": 4.0}"#;
    assert_eq!(
        call(&tools, "numbers", sent).unwrap(),
        json!({"byte": 3, "big": -2, "unsigned": 1000, "ratio": 0.5, "list": [1, 2], "maybe": 4})
    );
    // As a parsed value (MCP) too, and on the fast path.
    let value: Value = serde_json::from_str(sent).unwrap();
    assert!(block_on(tools.call("numbers", value)).is_ok());
    assert_eq!(call(&tools, "count", r#"{"n": 3.0}"#).unwrap(), json!(3));
    // A fraction is still refused, in the schema's words.
    let (pointer, message) = refusal(&tools, "count", r#"{"n": 3.5}"#);
    assert_eq!(pointer, "/n");
    assert_eq!(message, "expected `integer`, got a number (3.5)");
}

#[test]
fn f32_out_of_range_is_refused_with_its_range() {
    let tools = tools();
    let (pointer, message) = refusal(&tools, "numbers", &numbers_with("ratio", "1e39"));
    assert_eq!(pointer, "/ratio");
    assert_eq!(
        message,
        "must be between -3.4028235e38 and 3.4028235e38 (a 32-bit float), got 1e+39"
    );
    // `f32::MAX` in its shortest spelling, which is a little above `f32::MAX as f64`.
    assert!(call(&tools, "numbers", &numbers_with("ratio", "3.4028235e38")).is_ok());
}

#[test]
fn sixty_four_bit_integers_out_of_range_say_their_range() {
    let tools = tools();
    let (pointer, message) = refusal(
        &tools,
        "numbers",
        &numbers_with("big", "9223372036854775808"),
    );
    assert_eq!(pointer, "/big");
    assert_eq!(
        message,
        "must be between -9223372036854775808 and 9223372036854775807 (a 64-bit integer), got \
         9223372036854775808"
    );
    let (pointer, message) = refusal(
        &tools,
        "numbers",
        &numbers_with("unsigned", "18446744073709551616"),
    );
    assert_eq!(pointer, "/unsigned");
    assert!(
        message.starts_with(
            "must be between 0 and 18446744073709551615 (an unsigned 64-bit integer), got "
        ),
        "{message}"
    );
    // The extremes themselves are accepted.
    let extremes = numbers_with("big", "-9223372036854775808")
        .replace("\"unsigned\":7", "\"unsigned\":18446744073709551615");
    assert_eq!(
        call(&tools, "numbers", &extremes).unwrap()["unsigned"],
        json!(u64::MAX)
    );
}

#[test]
fn thirty_two_bit_ranges_are_unsaid_but_enforced_by_name() {
    let tools = tools();
    // The schema says only what a model must know: never negative for a `u32`, nothing for an
    // `i32` (their full ranges read as limits, and are none a model plans around). MCP keeps
    // schemars' format beside it, an annotation there.
    let count = Count.definition().to_json(Target::Mcp).unwrap();
    assert_eq!(
        count["inputSchema"]["properties"]["n"],
        json!({"type": "integer", "description": "Where to stop.", "format": "uint32", "minimum": 0})
    );
    let count = Count.definition().to_json(Target::Anthropic).unwrap();
    assert_eq!(
        count["input_schema"]["properties"]["n"],
        json!({"type": "integer", "description": "Where to stop.", "minimum": 0})
    );
    let shift = Shift.definition().to_json(Target::ChatCompletions).unwrap();
    assert_eq!(
        shift["function"]["parameters"]["properties"]["by"],
        json!({"type": "integer", "description": "How far, either way."})
    );
    // Beyond the type, the call is refused at the argument, with the range: on the path serde
    // alone checks (`count`) and on the validated one (`shift`).
    assert_eq!(
        refusal(&tools, "count", r#"{"n": 5000000000}"#),
        (
            "/n".to_owned(),
            "must be between 0 and 4294967295 (an unsigned 32-bit integer), got 5000000000"
                .to_owned()
        )
    );
    assert_eq!(
        refusal(&tools, "count", r#"{"n": -1}"#),
        ("/n".to_owned(), "must be at least 0, got -1".to_owned())
    );
    assert_eq!(
        refusal(&tools, "shift", r#"{"by": -2147483649}"#),
        (
            "/by".to_owned(),
            "must be between -2147483648 and 2147483647 (a 32-bit integer), got -2147483649"
                .to_owned()
        )
    );
    // A bound of its own is said, and wins over the type's range.
    assert_eq!(
        refusal(&tools, "count_checked", r#"{"n": 5000000000}"#),
        (
            "/n".to_owned(),
            "must be at most 1000, got 5000000000".to_owned()
        )
    );
    // The extremes themselves are accepted.
    assert_eq!(
        call(&tools, "count", r#"{"n": 4294967295}"#).unwrap(),
        json!(u32::MAX)
    );
    assert_eq!(
        call(&tools, "shift", r#"{"by": -2147483648}"#).unwrap(),
        json!(i32::MIN)
    );
}

#[test]
fn a_type_error_on_a_nullable_type_names_both_types() {
    let (pointer, message) = refusal(&tools(), "numbers", &numbers_with("maybe", "\"ten\""));
    assert_eq!(pointer, "/maybe");
    assert_eq!(
        message,
        "expected `integer` or `null`, got a string (\"ten\")"
    );
}

#[test]
fn the_fast_path_and_the_validated_path_say_the_same() {
    let tools = tools();
    for (arguments, pointer, message) in [
        (r#"{"n": 1, "x": 2}"#, "", "unknown property `x`: remove it"),
        (
            r#"{"n": "3"}"#,
            "/n",
            "expected `integer`, got a string (\"3\")",
        ),
        (r#"{}"#, "", "the required argument `n` is missing"),
        (r#"{"n": -1}"#, "/n", "must be at least 0, got -1"),
        (
            r#"{"n": [1]}"#,
            "/n",
            "expected `integer`, got an array of 1 item",
        ),
        // A value that names its type is not followed by its type again ("null (null)").
        (r#"{"n": null}"#, "/n", "expected `integer`, got null"),
        (
            r#"{"n": {}}"#,
            "/n",
            "expected `integer`, got an empty object",
        ),
        (
            r#"{"n": true}"#,
            "/n",
            "expected `integer`, got a boolean (true)",
        ),
    ] {
        for name in ["count", "count_checked"] {
            assert_eq!(
                refusal(&tools, name, arguments),
                (pointer.to_owned(), message.to_owned()),
                "{name} {arguments}"
            );
        }
    }
}

#[test]
fn a_result_json_cannot_carry_is_a_clear_failure() {
    let tools = tools();
    assert_eq!(
        call(&tools, "stats", r#"{"numbers": [1, 2]}"#).unwrap(),
        json!({"sum": 3.0})
    );
    // 0/0: NaN, which serde_json writes as `null` against `{"type": "number"}`.
    match call(&tools, "stats", r#"{"numbers": []}"#) {
        Err(ToolError::Failed { message, .. }) => {
            assert!(message.contains("at `/sum`"), "{message}");
            assert!(message.contains("NaN or infinite"), "{message}");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn an_option_whose_default_is_some_is_refused_when_the_set_is_built() {
    match ToolSet::builder().tool(PageTool).build() {
        Err(error @ BuildError::UnreachableNone { .. }) => {
            assert_eq!(
                error.to_string(),
                "the argument `/size` of `page` is an `Option` whose default is 10: a model sends \
                 `null` or nothing to leave an argument out, which gives the default, so `None` \
                 can never be chosen; make its default `None`, or its type not an `Option`"
            );
        }
        Err(other) => panic!("expected UnreachableNone, got {other}"),
        Ok(_) => panic!("expected UnreachableNone, got a tool set"),
    }
}

#[test]
fn chrono_formats_are_checked_and_described_in_words() {
    let tools = tools();
    let (pointer, message) = refusal(
        &tools,
        "book_table",
        r#"{"time": "25:00:00", "at": "2024-01-31T19:30:00"}"#,
    );
    assert_eq!(pointer, "/time");
    assert_eq!(
        message,
        "must be a time of day without a time zone (HH:MM:SS, e.g. 09:30:00), got \"25:00:00\""
    );
    let (pointer, message) = refusal(
        &tools,
        "book_table",
        r#"{"time": "19:30:00", "at": "2024-02-30T19:30:00"}"#,
    );
    assert_eq!(pointer, "/at");
    assert!(
        message.starts_with("must be a date and time without a time zone"),
        "{message}"
    );
    assert!(
        call(
            &tools,
            "book_table",
            r#"{"time": "19:30:00.25", "at": "2024-02-29T19:30:00"}"#
        )
        .is_ok()
    );
    for target in [Target::ChatCompletions, Target::Gemini] {
        let shown = BookTable.definition().to_json(target).unwrap().to_string();
        assert!(!shown.contains("partial-time"), "{target}: {shown}");
        assert!(
            shown.contains("Must be a time of day without a time zone (HH:MM:SS, e.g. 09:30:00)."),
            "{target}: {shown}"
        );
    }
}

#[test]
fn an_ip_address_is_checked_in_words() {
    let tools = tools();
    let (pointer, message) = refusal(&tools, "ping", r#"{"address": "10.0.0.300"}"#);
    assert_eq!(pointer, "/address");
    assert_eq!(
        message,
        "must be an IP address (IPv4 or IPv6), got \"10.0.0.300\""
    );
    assert_eq!(
        call(&tools, "ping", r#"{"address": "::1"}"#).unwrap(),
        json!("::1")
    );
}

#[test]
fn an_f32_default_is_shown_as_written() {
    let mcp = Mix.definition().to_json(Target::Mcp).unwrap();
    let strength = &mcp["inputSchema"]["properties"]["strength"];
    assert_eq!(strength["default"], json!(0.1));
    assert_eq!(strength["description"], "How strong. Default: 0.1.");
    assert_eq!(call(&tools(), "mix", "{}").unwrap(), json!(0.1_f32));
}

#[test]
fn a_partly_documented_unit_enum_is_one_enum_on_every_target() {
    for target in Target::ALL {
        let shown = Order.definition().to_json(target).unwrap();
        let size = tooldef_tests::input_schema_in(&shown, target)
            .and_then(|schema| schema.pointer("/properties/size"))
            .unwrap_or_else(|| panic!("{target}: {shown}"));
        let mut values: Vec<&str> = size["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{target}: {size}"))
            .iter()
            .filter_map(Value::as_str)
            .collect();
        values.sort_unstable();
        assert_eq!(values, ["large", "medium", "small"], "{target}");
        assert!(
            size["description"]
                .as_str()
                .unwrap()
                .contains("`medium`: The usual"),
            "{target}: {size}"
        );
    }
}

#[test]
fn one_tool_a_target_cannot_express_leaves_the_others_listed() {
    let tools = tools();
    assert!(tools.list(Target::Gemini).is_err());
    let listing = tools.listing(Target::Gemini);
    assert_eq!(listing.tools.len(), 9);
    assert_eq!(listing.refused.len(), 1);
    assert_eq!(listing.refused[0].tool, "depth");
    assert_eq!(tools.listing(Target::Mcp).tools.len(), 10);
}

#[test]
fn a_recursive_argument_forty_levels_deep_is_accepted() {
    let mut tree = json!({"value": 40, "children": []});
    for value in (1..40).rev() {
        tree = json!({"value": value, "children": [tree]});
    }
    let arguments = json!({ "tree": tree }).to_string();
    assert_eq!(call(&tools(), "depth", &arguments).unwrap(), json!(40));
}
