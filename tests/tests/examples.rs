//! `#[tool(example(…))]` and `#[tool(defer_loading)]`: what the renderings carry, and the
//! examples the macro cannot check (a `pattern`) refused by `ToolSetBuilder::build`.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooldef::{BuildError, Portable, Target, Tool, ToolSet, tool, tools};

#[derive(Clone, Copy, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// The weather in a city.
#[tool(
    example(city = "Paris", days = 3),
    example(city = "Lisbon", unit = Unit::Fahrenheit, page_size = 2),
    defer_loading
)]
fn forecast(
    city: String,
    #[arg(default = 1)]
    #[schemars(range(min = 1, max = 14))]
    days: u32,
    unit: Option<Unit>,
    #[arg(rename = "pageSize")] page_size: Option<u8>,
) -> String {
    let _ = (days, unit, page_size);
    city
}

fn rendered(target: Target) -> Value {
    Forecast.definition().to_json(target).unwrap()
}

/// What was written, under the wire names, and nothing more: the default of `days` is not
/// filled in where the example leaves it out.
fn written() -> Value {
    json!([
        {"city": "Paris", "days": 3},
        {"city": "Lisbon", "unit": "fahrenheit", "pageSize": 2},
    ])
}

#[test]
fn anthropic_gets_the_examples_as_written_under_the_wire_names() {
    assert_eq!(rendered(Target::Anthropic)["input_examples"], written());
}

#[test]
fn mcp_gets_the_examples_at_the_input_schema_root() {
    assert_eq!(rendered(Target::Mcp)["inputSchema"]["examples"], written());
}

#[test]
fn chat_completions_reads_the_examples_at_the_end_of_the_description() {
    let chat = rendered(Target::ChatCompletions);
    let description = chat["function"]["description"].as_str().unwrap();
    assert!(
        description.starts_with("The weather in a city."),
        "{description}"
    );
    assert!(
        description.ends_with(
            "{\"city\":\"Paris\",\"days\":3}\n\
             {\"city\":\"Lisbon\",\"unit\":\"fahrenheit\",\"pageSize\":2}"
        ),
        "{description}"
    );
}

#[test]
fn defer_loading_reaches_responses_and_anthropic() {
    assert!(Forecast.definition().defer_loading());
    assert_eq!(rendered(Target::Responses)["defer_loading"], json!(true));
    assert_eq!(rendered(Target::Anthropic)["defer_loading"], json!(true));
}

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[test]
fn a_tool_without_examples_or_deferral_has_none() {
    let definition = Add.definition();
    assert!(definition.examples().is_empty());
    assert!(!definition.defer_loading());
    let anthropic = definition.to_json(Target::Anthropic).unwrap();
    assert!(anthropic.get("input_examples").is_none(), "{anthropic}");
    assert!(anthropic.get("defer_loading").is_none(), "{anthropic}");
}

/// Look a flight up.
#[tool(example(code = "ba117"))]
fn flight(
    /// The flight's IATA code, two letters and a number.
    #[schemars(regex(pattern = r"^[A-Z]{2}[0-9]{1,4}$"))]
    code: String,
) -> String {
    code
}

#[test]
fn an_example_breaking_a_pattern_is_refused_when_the_set_is_built() {
    let Err(error) = ToolSet::builder().tool(Flight).build() else {
        panic!("an example breaking the tool's pattern was accepted");
    };
    let BuildError::InvalidExample { tool, example, .. } = &error else {
        panic!("expected InvalidExample, got {error:?}");
    };
    assert_eq!((tool.as_str(), *example), ("flight", 1));
    let message = error.to_string();
    assert!(
        message.contains("example 1 of the tool `flight`"),
        "{message}"
    );
    assert!(message.contains("ba117"), "{message}");
    assert!(message.contains("^[A-Z]{2}[0-9]{1,4}$"), "{message}");
}

struct Library {
    shelves: u32,
}

#[tools]
impl Library {
    const FIRST: u32 = 1;

    /// Find books.
    #[tool(example(query = "dune"))]
    #[tool(example(query = "rust", shelf = Self::FIRST))]
    fn search(&self, query: String, shelf: Option<u32>) -> String {
        format!("{query} on shelf {}", shelf.unwrap_or(self.shelves))
    }
}

#[test]
fn a_methods_examples_are_built_with_self_as_the_block_type() {
    let set = Arc::new(Library { shelves: 3 }).toolset().build().unwrap();
    let anthropic = set.list(Target::Anthropic).unwrap();
    assert_eq!(
        anthropic[0]["input_examples"],
        json!([{"query": "dune"}, {"query": "rust", "shelf": 1}])
    );
}
