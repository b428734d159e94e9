//! What every rendering's report promises, over the showcase's Rust tools, both corpora and the
//! regression corpus, for every target:
//! - each change names a node of the rendered schema;
//! - converting a rendering again for the same target changes nothing (idempotence);
//! - the strict-form arguments a model sends come back, restored from the report, without a
//!   `null` the original schema refuses.

use serde_json::{Map, Value, json};
use tooldef::Target;
use tooldef::convert::{ConvertOptions, Warning, convert};
use tooldef::report::Place;
use tooldef::targets::{Rendering, TargetTool};
use tooldef_tests::foreign::strict_form_arguments;

/// Every MCP tool list the suites use: the two corpora, each regression fixture, and the
/// showcase's tools as their MCP rendering lists them.
fn tool_lists() -> Vec<(String, Value)> {
    let mut lists = tooldef_tests::foreign::fixture_tool_lists();
    let showcase: Vec<Value> = tooldef_examples::showcase::definitions()
        .into_iter()
        .map(|d| {
            d.to_json(Target::Mcp)
                .expect("the showcase renders for MCP")
        })
        .collect();
    lists.push(("the showcase".to_owned(), Value::Array(showcase)));
    assert!(lists.len() >= 17);
    lists
}

fn lenient() -> ConvertOptions {
    ConvertOptions {
        lenient: true,
        ..ConvertOptions::default()
    }
}

fn input_schema(tool: &TargetTool) -> Option<&Map<String, Value>> {
    tool.input_schema()
}

#[test]
fn every_change_names_a_node_of_the_rendering() {
    let mut changes = 0;
    let mut check = |label: &str, rendering: &Rendering| {
        let schema = input_schema(&rendering.tool).map(|s| Value::Object(s.clone()));
        for change in rendering.report.changes() {
            if change.place != Place::Input {
                continue;
            }
            changes += 1;
            // A Gemini declaration without parameters says nothing of its (empty) root.
            let found = match &schema {
                Some(s) => s.pointer(&change.pointer).is_some(),
                None => change.pointer.is_empty(),
            };
            assert!(
                found,
                "{label}: `{}` is not in the rendering: {change}",
                change.pointer
            );
        }
    };
    for definition in tooldef_examples::showcase::definitions() {
        for target in Target::ALL {
            let rendering = definition.render(target).expect("the showcase renders");
            check(&format!("{} {target}", definition.name()), rendering);
        }
    }
    for (label, list) in tool_lists() {
        for target in Target::ALL {
            let conversion = convert(&list, target, &lenient()).expect("tools");
            for converted in &conversion.tools {
                check(
                    &format!("{label}: {} {target}", converted.original_name),
                    &converted.rendering,
                );
            }
        }
    }
    assert!(changes > 4_000, "{changes}");
}

/// A rendering for `target` as an MCP tool again: its name, description, parameters and output
/// schema.
fn as_mcp_tool(tool: &TargetTool, json: &Value) -> Value {
    if let TargetTool::Mcp(_) = tool {
        return json.clone();
    }
    let description = match tool {
        TargetTool::ChatCompletions(t) => t.function.description.clone(),
        TargetTool::Responses(t) => t.description.clone(),
        TargetTool::Anthropic(t) => t.description.clone(),
        TargetTool::Gemini(t) | TargetTool::GeminiJsonSchema(t) => Some(t.description.clone()),
        TargetTool::Mcp(_) => None,
    };
    let schema = tool.input_schema().cloned().map_or_else(
        || json!({"type": "object", "properties": {}}),
        Value::Object,
    );
    let mut mcp = json!({"name": tool.name(), "inputSchema": schema});
    if let Some(description) = description.filter(|d| !d.is_empty()) {
        mcp["description"] = Value::from(description);
    }
    if let Some(output) = tool.output_schema() {
        mcp["outputSchema"] = Value::Object(output.clone());
    }
    // Anthropic's examples are where MCP has them: the input schema's root `examples`.
    if let TargetTool::Anthropic(tool) = tool
        && !tool.input_examples.is_empty()
    {
        mcp["inputSchema"]["examples"] = json!(tool.input_examples);
    }
    mcp
}

#[test]
fn converting_a_rendering_again_changes_nothing() {
    let mut compared = 0;
    for (label, list) in tool_lists() {
        for target in Target::ALL {
            let first = convert(&list, target, &lenient()).expect("tools");
            for converted in &first.tools {
                let once = converted.to_json();
                let again_input = as_mcp_tool(&converted.rendering.tool, &once);
                let again = convert(&again_input, target, &ConvertOptions::default())
                    .unwrap_or_else(|err| panic!("{label} {target}: {err}"));
                let mut twice = again.tools[0].to_json();
                // Alone, a tool sent non-strict because the strict tools before it in its
                // request reached Anthropic's limits is strict again.
                let past_limit = first.warnings.iter().any(|w| {
                    matches!(w, Warning::PastStrictLimit { tools, .. }
                        if tools.contains(&converted.original_name))
                });
                if past_limit {
                    twice.as_object_mut().expect("a tool").remove("strict");
                }
                assert_eq!(
                    once, twice,
                    "{label}: {} for {target} changed when converted again",
                    converted.original_name
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 5 * 150, "{compared}");
}

/// The places in `value` that hold `null`, as JSON Pointers.
fn nulls(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Null => out.push(at),
        Value::Object(map) => {
            for (k, v) in map {
                nulls(v, format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                nulls(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn strict_form_arguments_restored_carry_no_null_the_original_refuses() {
    let mut calls = 0;
    for (label, list) in tool_lists() {
        let originals = tooldef::convert::read_tools(&list).expect("tools").to_vec();
        for target in [Target::ChatCompletions, Target::Responses] {
            let conversion = convert(&list, target, &lenient()).expect("tools");
            for converted in conversion.tools.iter().filter(|c| c.strict()) {
                let original = &originals[converted.index]["inputSchema"];
                let Ok(validator) = jsonschema::draft202012::new(original) else {
                    continue;
                };
                let schema = Value::Object(
                    input_schema(&converted.rendering.tool)
                        .cloned()
                        .expect("parameters"),
                );
                let mut arguments = strict_form_arguments(&schema, &Map::new());
                converted.restore_arguments(&mut arguments);
                let mut left = Vec::new();
                nulls(&arguments, String::new(), &mut left);
                for error in validator.iter_errors(&arguments) {
                    let at = error.instance_path().to_string();
                    assert!(
                        !left.contains(&at),
                        "{label}: {} for {target}: the server would refuse the null at `{at}`: \
                         {error}\narguments: {arguments}",
                        converted.original_name
                    );
                }
                calls += 1;
            }
        }
    }
    assert!(calls > 200, "{calls}");
}
