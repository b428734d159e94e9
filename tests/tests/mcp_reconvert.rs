//! A tool list that passes through another MCP hop must reach the model as it would from the
//! source (issue 34): a tool's MCP rendering (what `tools/list` serves), converted as a foreign
//! MCP tool for a target through the public `tooldef::convert` API, is exactly what the tool's
//! definition renders for that target directly: name, description, parameters, output schema,
//! strictness, examples, every field of the wire tool. And the MCP rendering converted for MCP
//! again is itself (a fixed point).
//!
//! Over the showcase's tools and every tricky test tool (`tooldef_tests::tricky::echoes`, which
//! also carries the showcase's tools as echoes); and, for foreign tools, the corpora and the
//! regression fixtures: their MCP rendering converted again is their direct conversion, but for
//! the cases listed in `FOREIGN_KNOWN`.

use serde_json::{Value, json};
use tooldef::convert::{ConvertOptions, Strictness, convert};
use tooldef::{Target, ToolDefinition};

/// Every Rust tool the suites have, the showcase's and the tricky ones, each given to `check`.
fn each_definition(mut check: impl FnMut(&ToolDefinition)) {
    let mut count = 0;
    for definition in tooldef_examples::showcase::definitions() {
        check(definition);
        count += 1;
    }
    for definition in tooldef_tests::tricky::echoes().definitions() {
        check(definition);
        count += 1;
    }
    assert!(count >= 40, "{count}");
}

/// The options a user converting this tool's MCP rendering would pass to get what the tool asks
/// for: strict unless it says `strict = false`, deferred when it is.
fn options_for(definition: &ToolDefinition) -> ConvertOptions {
    ConvertOptions {
        strict: if definition.strict() {
            Strictness::Auto
        } else {
            Strictness::Off
        },
        defer_loading: definition.defer_loading(),
        ..ConvertOptions::default()
    }
}

/// The MCP rendering converted for `target`, as the target's wire JSON.
fn reconverted(mcp: &Value, target: Target, options: &ConvertOptions) -> Value {
    let conversion = convert(&json!([mcp]), target, options)
        .unwrap_or_else(|err| panic!("{} for {target}: {err}", mcp["name"]));
    assert_eq!(conversion.tools.len(), 1, "{}", mcp["name"]);
    conversion.tools[0].to_json()
}

/// A value as JSON text, whose comparison sees key order (`Value`'s equality does not).
fn as_text(value: &Value) -> String {
    serde_json::to_string(value).expect("JSON")
}

/// Every place where `a` and `b` differ: its JSON Pointer and both values (`None`: absent).
fn differences(
    a: &Value,
    b: &Value,
    at: &str,
    out: &mut Vec<(String, Option<Value>, Option<Value>)>,
) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let before = out.len();
            for (key, value) in x {
                let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                match y.get(key) {
                    Some(other) => differences(value, other, &here, out),
                    None => out.push((here, Some(value.clone()), None)),
                }
            }
            for (key, value) in y {
                if !x.contains_key(key) {
                    let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                    out.push((here, None, Some(value.clone())));
                }
            }
            // Equal members in another order are a difference too (key order is kept on purpose).
            if out.len() == before && x.keys().ne(y.keys()) {
                out.push((
                    format!("{at} (key order)"),
                    Some(json!(x.keys().collect::<Vec<_>>())),
                    Some(json!(y.keys().collect::<Vec<_>>())),
                ));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                differences(p, q, &format!("{at}/{i}"), out);
            }
        }
        _ if a == b => {}
        _ => out.push((at.to_owned(), Some(a.clone()), Some(b.clone()))),
    }
}

#[test]
fn mcp_rendering_converted_again_is_the_direct_rendering() {
    let mut compared = 0;
    let mut refused = Vec::new();
    let mut unequal = Vec::new();
    each_definition(|definition| {
        let mcp = definition
            .to_json(Target::Mcp)
            .unwrap_or_else(|err| panic!("{} for MCP: {err}", definition.name()));
        let options = options_for(definition);
        for target in Target::ALL {
            let direct = match definition.to_json(target) {
                Ok(direct) => direct,
                // A recursive Rust type has no Gemini `parameters` (`RecursionPolicy::Refuse`);
                // a foreign tool's is described instead: there is nothing to compare.
                Err(err) => {
                    refused.push(format!("{} {target}: {err}", definition.name()));
                    continue;
                }
            };
            let again = reconverted(&mcp, target, &options);
            compared += 1;
            // As text: key order counts (`Value`'s equality would not see it).
            if as_text(&again) != as_text(&direct) {
                let mut found = Vec::new();
                differences(&direct, &again, "", &mut found);
                if found.is_empty() {
                    found.push(("(key order)".to_owned(), Some(direct.clone()), Some(again)));
                }
                for (at, direct, again) in found {
                    let what = format!("{} {target}", definition.name());
                    unequal.push(difference(&what, &at, direct, again));
                }
            }
        }
    });
    assert!(
        unequal.is_empty(),
        "{} differences:\n{}",
        unequal.len(),
        unequal.join("\n")
    );
    // Only the recursive tree, for Gemini `parameters`.
    assert_eq!(refused.len(), 1, "{refused:#?}");
    assert!(compared >= 200, "{compared}");
}

#[test]
fn mcp_rendering_is_a_fixed_point() {
    each_definition(|definition| {
        let mcp = definition.to_json(Target::Mcp).expect("renders for MCP");
        let twice = reconverted(&mcp, Target::Mcp, &options_for(definition));
        let thrice = reconverted(&twice, Target::Mcp, &options_for(definition));
        // As text: key order counts.
        assert_eq!(as_text(&twice), as_text(&mcp), "{}", definition.name());
        assert_eq!(as_text(&thrice), as_text(&mcp), "{}", definition.name());
    });
}

/// The foreign tool lists the suites use: both corpora and every regression fixture.
fn foreign_lists() -> Vec<(String, Value)> {
    let lists = tooldef_tests::foreign::fixture_tool_lists();
    assert!(lists.len() >= 16, "{}", lists.len());
    lists
}

/// Where a foreign tool's MCP rendering, converted again, is known to differ from the tool
/// converted directly, and why: (fixture, tool, target).
const FOREIGN_KNOWN: &[(&str, &str, Target, &str)] = &[
    // A recursive type, cut for Gemini `parameters` (`RecursionPolicy::Describe`): MCP keeps it
    // a `$ref` with the `$defs` it needs, whose `title` repeating the definition's name is
    // dropped there (`MergeTitles`), and the cut falls one level elsewhere.
    (
        "fastmcp-metabolic.tools.json",
        "add_reaction",
        Target::Gemini,
        "recursive",
    ),
    (
        "fastmcp-metabolic.tools.json",
        "set_gene_rule",
        Target::Gemini,
        "recursive",
    ),
    ("root_ref.json", "plan_update", Target::Gemini, "recursive"),
];

#[test]
fn foreign_mcp_rendering_converted_again_is_the_direct_conversion() {
    let options = ConvertOptions {
        lenient: true,
        ..ConvertOptions::default()
    };
    let mut unequal = Vec::new();
    let mut compared = 0;
    for (label, list) in foreign_lists() {
        let mcp = Value::Array(
            convert(&list, Target::Mcp, &options)
                .expect("tools")
                .to_json(),
        );
        for target in Target::ALL {
            let direct = convert(&list, target, &options).expect("tools");
            let again = convert(&mcp, target, &options).expect("tools");
            assert_eq!(direct.tools.len(), again.tools.len(), "{label} {target}");
            for (d, a) in direct.tools.iter().zip(&again.tools) {
                let known = FOREIGN_KNOWN.iter().any(|(fixture, tool, t, _)| {
                    label.ends_with(fixture) && d.original_name == *tool && *t == target
                });
                if known {
                    continue;
                }
                compared += 1;
                let (d, a) = (d.to_json(), a.to_json());
                let mut found = Vec::new();
                differences(&d, &a, "", &mut found);
                // The root's `description` before or after its `type` once a root `anyOf` is
                // folded: the same schema, keys in another order.
                found.retain(|(at, _, _)| !at.ends_with("(key order)"));
                for (at, direct, again) in found {
                    let name = d
                        .get("name")
                        .or(d.pointer("/function/name"))
                        .unwrap_or(&Value::Null);
                    let what = format!("{label}: {name} {target}");
                    unequal.push(difference(&what, &at, direct, again));
                }
            }
        }
    }
    assert!(
        unequal.is_empty(),
        "{} differences:\n{}",
        unequal.len(),
        unequal.join("\n")
    );
    assert!(compared >= 100, "{compared}");
}

/// One difference, for the failure's list: where, and both sides.
fn difference(what: &str, at: &str, direct: Option<Value>, again: Option<Value>) -> String {
    let shown = |v: Option<Value>| v.map_or("(absent)".to_owned(), |v| v.to_string());
    format!(
        "{what} at `{at}`:\n  direct: {}\n  again:  {}",
        shown(direct),
        shown(again)
    )
}
