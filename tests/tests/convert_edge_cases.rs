//! Hand-written edge cases for `tooldef::convert`: foreign MCP tools a real server might send,
//! and the ones it should not, each checked in every target it concerns.

use serde_json::{Value, json};
use tooldef::convert::{
    Conversion, ConvertError, ConvertOptions, Rejected, Strictness, Warning, convert, read_tools,
};
use tooldef::report::ChangeKind;
use tooldef::{SchemaError, Target};
use tooldef_tests::{
    default_sentence, input_changes_at, made_nullable, not_strict_pointers, property_names, walk,
};

fn lenient() -> ConvertOptions {
    ConvertOptions {
        lenient: true,
        ..ConvertOptions::default()
    }
}

fn tool(name: &str, input_schema: Value) -> Value {
    json!({"name": name, "description": "A tool.", "inputSchema": input_schema})
}

/// Converts one tool (non-lenient, `Strictness::Auto`); panics when it is refused.
fn one(input: &Value, target: Target) -> Conversion {
    let conversion = convert(input, target, &ConvertOptions::default())
        .unwrap_or_else(|err| panic!("{target}: {err}"));
    assert_eq!(conversion.tools.len(), 1, "{target}");
    conversion
}

fn parameters(tool: &Value, target: Target) -> Option<&Value> {
    tooldef_tests::input_schema_in(tool, target)
}

/// The arguments' schema of a one-tool conversion.
fn schema_of(input: &Value, target: Target) -> Value {
    let tool = one(input, target).tools[0].to_json();
    parameters(&tool, target)
        .cloned()
        .unwrap_or_else(|| panic!("{target}: no parameters: {tool}"))
}

fn strict_of(tool: &Value, target: Target) -> &Value {
    match target {
        Target::ChatCompletions => &tool["function"]["strict"],
        _ => &tool["strict"],
    }
}

fn out_name(tool: &Value, target: Target) -> &str {
    match target {
        Target::ChatCompletions => tool["function"]["name"].as_str().unwrap(),
        _ => tool["name"].as_str().unwrap(),
    }
}

fn descriptions(schema: &Value) -> Vec<&str> {
    walk(schema)
        .into_iter()
        .filter_map(|n| n.schema.get("description").and_then(Value::as_str))
        .collect()
}

fn keys_anywhere(schema: &Value, keyword: &str) -> Vec<String> {
    walk(schema)
        .into_iter()
        .filter(|n| n.schema.get(keyword).is_some())
        .map(|n| n.pointer)
        .collect()
}

/// Every default of `input_schema`, described in every target; the keyword only kept for MCP.
fn assert_defaults_described(input_schema: Value, expected: &[&Value]) {
    let input = tool("defaults", input_schema);
    let mut lost = Vec::new();
    for target in Target::ALL {
        let schema = schema_of(&input, target);
        let texts = descriptions(&schema);
        for default in expected {
            let sentence = default_sentence(default);
            if !texts.iter().any(|t| t.contains(&sentence)) {
                lost.push(format!(
                    "{target}: {sentence} is in no description of {schema}"
                ));
            }
        }
        if target != Target::Mcp {
            assert_eq!(
                keys_anywhere(&schema, "default"),
                Vec::<String>::new(),
                "{target}"
            );
        }
    }
    assert!(lost.is_empty(), "defaults lost:\n{}", lost.join("\n"));
}

fn validate_2020_12(schema: &Value, what: &str) {
    if let Err(err) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{what}: {err}\n{schema}");
    }
    if let Err(err) = jsonschema::draft202012::new(schema) {
        panic!("{what} does not compile: {err}\n{schema}");
    }
}

// ---------------------------------------------------------------------------------------------
// Defaults at depth
// ---------------------------------------------------------------------------------------------

#[test]
fn defaults_under_items_are_described() {
    let schema = json!({"type": "object", "properties": {
        "rows": {"type": "array", "items": {
            "type": "object",
            "properties": {"size": {"type": "integer", "default": 5}},
            "required": ["size"]
        }},
        "tags": {"type": "array", "items": {"type": "string", "default": "misc"}}
    }, "required": ["rows", "tags"]});
    assert_defaults_described(schema.clone(), &[&json!(5), &json!("misc")]);
    // At the same place, as the last sentence.
    let input = tool("defaults", schema);
    for target in Target::ALL {
        let out = schema_of(&input, target);
        assert_eq!(
            out.pointer("/properties/rows/items/properties/size/description"),
            Some(&json!("Default: 5.")),
            "{target}"
        );
        assert_eq!(
            out.pointer("/properties/tags/items/description"),
            Some(&json!("Default: \"misc\".")),
            "{target}"
        );
    }
}

#[test]
fn defaults_under_any_of_are_described() {
    assert_defaults_described(
        json!({"type": "object", "properties": {
            "either": {"anyOf": [
                {"type": "string", "default": "s"},
                {"type": "integer", "default": 7}
            ]},
            "maybe": {"anyOf": [{"type": "number", "default": 0.5}, {"type": "null"}]}
        }, "required": ["either"]}),
        &[&json!("s"), &json!(7), &json!(0.5)],
    );
}

#[test]
fn defaults_under_additional_properties_are_described() {
    assert_defaults_described(
        json!({"type": "object", "properties": {
            "weights": {"type": "object", "additionalProperties": {"type": "number", "default": 1.5}}
        }, "required": ["weights"]}),
        &[&json!(1.5)],
    );
}

/// `patternProperties` is a map too (described for OpenAI and Gemini).
#[test]
fn defaults_under_pattern_properties_are_described() {
    assert_defaults_described(
        json!({"type": "object", "properties": {
            "headers": {"type": "object", "patternProperties": {"^x-": {"type": "string", "default": "none"}}}
        }, "required": ["headers"]}),
        &[&json!("none")],
    );
}

#[test]
fn defaults_under_defs_are_described() {
    assert_defaults_described(
        json!({
            "type": "object",
            "properties": {
                "opts": {"$ref": "#/$defs/Opts"},
                "mode": {"$ref": "#/$defs/Mode"}
            },
            "required": ["opts", "mode"],
            "$defs": {
                "Opts": {"type": "object", "properties": {
                    "level": {"type": "integer", "default": 2},
                    "nested": {"type": "object", "properties": {"deep": {"type": "boolean", "default": true}}}
                }},
                "Mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"}
            }
        }),
        &[&json!(2), &json!(true), &json!("fast")],
    );
}

#[test]
fn defaults_under_tuples_are_described() {
    assert_defaults_described(
        json!({"type": "object", "properties": {
            "pair": {"type": "array", "prefixItems": [
                {"type": "string", "default": "x"},
                {"type": "integer", "default": 0}
            ], "items": false}
        }, "required": ["pair"]}),
        &[&json!("x"), &json!(0)],
    );
}

// ---------------------------------------------------------------------------------------------
// Shapes of the list and of tools without parameters
// ---------------------------------------------------------------------------------------------

#[test]
fn an_empty_tool_list_converts_to_nothing() {
    for input in [json!({"tools": []}), json!([])] {
        assert_eq!(read_tools(&input).unwrap().len(), 0);
        for target in Target::ALL {
            for options in [ConvertOptions::default(), lenient()] {
                let conversion = convert(&input, target, &options).unwrap();
                assert!(conversion.tools.is_empty(), "{target}");
                assert!(conversion.rejected.is_empty(), "{target}");
                assert!(conversion.warnings.is_empty(), "{target}");
                assert_eq!(conversion.names.to_json(), json!({}), "{target}");
            }
        }
    }
    // Neither tools nor a tool.
    for input in [
        json!({"tools": {}}),
        json!("tools"),
        json!({"other": 1}),
        json!(null),
    ] {
        assert!(
            matches!(
                convert(&input, Target::Mcp, &lenient()),
                Err(ConvertError::NotTools(_))
            ),
            "{input}"
        );
    }
}

#[test]
fn tools_without_parameters_take_an_empty_object() {
    for schema in [
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}}),
        json!({"type": "object", "additionalProperties": false}),
        json!({"type": "object", "description": "No arguments."}),
    ] {
        let input = tool("noop", schema.clone());
        for target in Target::ALL {
            let conversion = one(&input, target);
            let out = &conversion.tools[0].to_json();
            assert!(conversion.warnings.is_empty(), "{schema} {target}");
            // The report only says what was added at the root (and for Gemini, left out):
            // nothing made required, nothing that keeps it from being strict.
            let report = &conversion.tools[0].rendering.report;
            assert!(
                report.changes().iter().all(|c| c.pointer.is_empty()
                    && matches!(
                        c.kind,
                        ChangeKind::Added { .. } | ChangeKind::Removed { .. }
                    )),
                "{schema} {target}: {report:?}"
            );
            match target {
                // Gemini wants `parameters` left out.
                Target::Gemini | Target::GeminiJsonSchema => {
                    assert_eq!(parameters(out, target), None, "{schema}")
                }
                _ => {
                    let params = parameters(out, target).unwrap();
                    assert_eq!(params["type"], "object", "{schema} {target}");
                    assert_eq!(params["properties"], json!({}), "{schema} {target}");
                    assert_eq!(params["additionalProperties"], false, "{schema} {target}");
                    validate_2020_12(params, &format!("{schema} {target}"));
                }
            }
            if target.is_openai() {
                assert_eq!(strict_of(out, target), true, "{schema} {target}");
                let params = parameters(out, target).unwrap();
                assert_eq!(params["required"], json!([]), "{schema} {target}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Enums
// ---------------------------------------------------------------------------------------------

#[test]
fn enums_are_kept_and_integer_ones_described_for_gemini() {
    let input = tool(
        "enums",
        json!({"type": "object", "properties": {
            "color": {"type": "string", "enum": ["red", "green"]},
            "level": {"description": "Level", "type": "integer", "enum": [1, 2, 3]}
        }, "required": ["color", "level"]}),
    );
    for target in Target::ALL {
        let schema = schema_of(&input, target);
        assert_eq!(
            schema["properties"]["color"]["enum"],
            json!(["red", "green"]),
            "{target}"
        );
        assert_eq!(schema["properties"]["color"]["type"], "string", "{target}");
        let level = &schema["properties"]["level"];
        assert_eq!(level["type"], "integer", "{target}");
        if target == Target::Gemini {
            assert_eq!(level.get("enum"), None);
            assert_eq!(level["description"], "Level. Must be one of: 1, 2, 3.");
        } else {
            assert_eq!(level["enum"], json!([1, 2, 3]), "{target}");
            assert_eq!(level["description"], "Level", "{target}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The input is only read
// ---------------------------------------------------------------------------------------------

#[test]
fn the_input_is_left_unmodified() {
    let input = json!({"tools": [
        tool("everything.at-once", json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "a": {"title": "A thing", "$ref": "#/$defs/A", "default": {"x": 1}},
                "b": {"oneOf": [{"const": 1}, {"const": "one"}]},
                "c": {"type": ["string", "null"], "format": "uri", "minLength": 2},
                "d": {"allOf": [{"type": "object", "properties": {"p": {"type": "string"}}}]},
                "e": {"type": "object", "additionalProperties": {"type": "integer", "default": 0}},
                "f": {"type": "array", "prefixItems": [{"type": "string"}], "items": false},
                "g": {"type": "integer", "exclusiveMinimum": 0, "enum": [1, 2]},
                "h": true,
                "i": {"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"type": "null"}},
                "r": {"$ref": "#"}
            },
            "$defs": {"A": {"type": "object", "properties": {"x": {"type": "integer", "default": 3}}}}
        })),
        json!({"inputSchema": {"type": "string"}}),
        json!(7)
    ]});
    let before = input.clone();
    for target in Target::ALL {
        for strict in [Strictness::Auto, Strictness::On, Strictness::Off] {
            for lenient in [true, false] {
                let _ = convert(
                    &input,
                    target,
                    &ConvertOptions {
                        strict,
                        lenient,
                        ..ConvertOptions::default()
                    },
                );
            }
        }
    }
    for t in read_tools(&input).unwrap() {
        if let Ok(definition) = tooldef::convert::definition_of(t, &ConvertOptions::default()) {
            for target in Target::ALL {
                let _ = definition.to_json(target);
            }
        }
    }
    assert_eq!(input, before);
}

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

#[test]
fn dotted_and_slashed_names_are_sanitised_and_reversible() {
    let input = json!([
        tool("fs.read_file", json!({"type": "object"})),
        tool("git/log", json!({"type": "object"})),
        tool("9lives", json!({"type": "object"}))
    ]);
    for target in Target::ALL {
        let conversion = convert(&input, target, &ConvertOptions::default()).unwrap();
        let wire = conversion.to_json();
        let names: Vec<&str> = wire.iter().map(|t| out_name(t, target)).collect();
        // A name the target accepts is kept: only Gemini wants a letter or `_` first.
        let expected: &[&str] = match target {
            Target::Mcp => &["fs.read_file", "git/log", "9lives"],
            Target::Gemini | Target::GeminiJsonSchema => &["fs_read_file", "git_log", "_9lives"],
            _ => &["fs_read_file", "git_log", "9lives"],
        };
        assert_eq!(names, expected, "{target}");
        for (name, original) in names.iter().zip(["fs.read_file", "git/log", "9lives"]) {
            assert_eq!(conversion.names.original(name), Some(original), "{target}");
            assert_eq!(conversion.names.target_name(original), Some(*name));
        }
        let renamed: Vec<(String, String)> = conversion
            .tools
            .iter()
            .flat_map(|t| t.rendering.report.changes())
            .filter_map(|c| match &c.kind {
                ChangeKind::Renamed { from, to } => Some((from.clone(), to.clone())),
                _ => None,
            })
            .collect();
        let expected: Vec<(String, String)> = ["fs.read_file", "git/log", "9lives"]
            .into_iter()
            .zip(&names)
            .filter(|(from, to)| from != *to)
            .map(|(from, to)| (from.to_owned(), (*to).to_owned()))
            .collect();
        assert_eq!(
            expected.len(),
            match target {
                Target::Mcp => 0,
                Target::Gemini | Target::GeminiJsonSchema => 3,
                _ => 2,
            },
            "{target}"
        );
        assert_eq!(renamed, expected, "{target}");
    }
}

#[test]
fn names_over_64_characters_get_a_hash_suffix_and_stay_reversible() {
    let long_a = format!("{}.alpha", "x".repeat(70));
    let long_b = format!("{}.beta", "x".repeat(70));
    let input = json!([
        tool(&long_a, json!({"type": "object"})),
        tool(&long_b, json!({"type": "object"}))
    ]);
    for target in Target::ALL {
        let conversion = convert(&input, target, &ConvertOptions::default()).unwrap();
        let wire = conversion.to_json();
        let a = out_name(&wire[0], target);
        let b = out_name(&wire[1], target);
        if target == Target::Mcp {
            assert_eq!((a, b), (long_a.as_str(), long_b.as_str()));
            continue;
        }
        for (name, original) in [(a, &long_a), (b, &long_b)] {
            assert_eq!(name.len(), 64, "{name}");
            let (head, hash) = name.split_at(55);
            assert_eq!(head, "x".repeat(55), "{name}");
            let hash = hash.strip_prefix('_').unwrap_or_else(|| panic!("{name}"));
            assert_eq!(hash.len(), 8, "{name}");
            assert!(
                hash.chars()
                    .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)),
                "{name}"
            );
            assert_eq!(conversion.names.original(name), Some(original.as_str()));
        }
        assert_ne!(a, b, "{target}: two long names sharing a beginning");
        // Stable: the same name gets the same suffix again.
        let again = convert(&input, target, &ConvertOptions::default()).unwrap();
        assert_eq!(again.tools[0].name(), a);
    }
    // Past MCP's 128 characters, the name is not an MCP name at all.
    let too_long = tool(&"y".repeat(129), json!({"type": "object"}));
    let conversion = convert(&json!([too_long]), Target::Mcp, &lenient()).unwrap();
    assert_eq!(conversion.rejected.len(), 1);
    assert!(
        conversion.rejected[0].reasons[0].contains("is not a valid MCP tool name"),
        "{:?}",
        conversion.rejected
    );
}

#[test]
fn names_that_collide_after_sanitising_are_told_apart() {
    let input = json!([
        tool("a.b", json!({"type": "object"})),
        tool("a/b", json!({"type": "object"})),
        tool("a_b", json!({"type": "object"}))
    ]);
    for target in Target::ALL {
        let conversion = convert(&input, target, &ConvertOptions::default()).unwrap();
        let wire = conversion.to_json();
        let names: Vec<&str> = wire.iter().map(|t| out_name(t, target)).collect();
        let expected: &[&str] = if target == Target::Mcp {
            &["a.b", "a/b", "a_b"]
        } else {
            &["a_b", "a_b_2", "a_b_3"]
        };
        assert_eq!(names, expected, "{target}");
        for (name, original) in names.iter().zip(["a.b", "a/b", "a_b"]) {
            assert_eq!(conversion.names.original(name), Some(original), "{target}");
        }
    }
}

/// Two tools with the same MCP name (a server should not list them, but a merged list can):
/// the second must not be sent under the first one's name, where calls could not be routed.
#[test]
fn duplicate_names_do_not_produce_duplicate_target_names() {
    let input = json!([
        tool(
            "same",
            json!({"type": "object", "properties": {"a": {"type": "string"}}})
        ),
        tool(
            "same",
            json!({"type": "object", "properties": {"b": {"type": "integer"}}})
        )
    ]);
    let mut clashes = Vec::new();
    for target in Target::ALL {
        let conversion = convert(&input, target, &lenient()).unwrap();
        let wire = conversion.to_json();
        let names: Vec<&str> = wire.iter().map(|t| out_name(t, target)).collect();
        // The batch says so.
        assert_eq!(
            conversion.warnings,
            [Warning::DuplicateName {
                name: "same".to_owned(),
                indexes: vec![0, 1],
            }],
            "{target}"
        );
        let mut distinct = names.clone();
        distinct.dedup();
        if distinct.len() != names.len() {
            clashes.push(format!(
                "{target}: two tools sent as {names:?} (rejected: {:?})",
                conversion.rejected
            ));
        }
    }
    assert!(clashes.is_empty(), "{}", clashes.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Tools that are not tools
// ---------------------------------------------------------------------------------------------

#[test]
fn malformed_tools_are_rejected_with_every_reason() {
    let cases: &[(Value, Option<&str>, &[&str])] = &[
        (
            json!({"description": "x", "inputSchema": {"type": "object"}}),
            None,
            &["it has no `name`"],
        ),
        (
            json!({"name": 5, "inputSchema": {"type": "object"}}),
            None,
            &["its `name` is not a string"],
        ),
        (
            json!({"name": "s", "inputSchema": {"type": "string"}}),
            Some("s"),
            &["its `inputSchema` is not an object schema (`\"type\": \"object\"`)"],
        ),
        (
            json!({"name": "m"}),
            Some("m"),
            &["it has no `inputSchema`"],
        ),
        (
            json!({"name": "n", "inputSchema": "object"}),
            Some("n"),
            &["its `inputSchema` is not a JSON object"],
        ),
        (
            json!({"name": "b", "inputSchema": true}),
            Some("b"),
            &["its `inputSchema` is not a JSON object"],
        ),
        (
            json!({"inputSchema": [1]}),
            None,
            &["it has no `name`", "its `inputSchema` is not a JSON object"],
        ),
        (json!("a string"), None, &["is not a JSON object"]),
        (json!(42), None, &["is not a JSON object"]),
        (json!(null), None, &["is not a JSON object"]),
    ];
    let good = tool("good", json!({"type": "object"}));
    // Distinct names: a second tool named `good` would itself be rejected as a duplicate.
    let good_too = tool("good_too", json!({"type": "object"}));
    for target in Target::ALL {
        for (bad, name, reasons) in cases {
            let expected = Rejected {
                index: 1,
                name: name.map(str::to_owned),
                reasons: reasons.iter().map(|r| (*r).to_owned()).collect(),
            };
            let input = json!([good, bad, good_too]);
            match convert(&input, target, &ConvertOptions::default()) {
                Err(ConvertError::Rejected(rejected)) => {
                    assert_eq!(rejected, expected, "{bad} {target}");
                    let shown = ConvertError::Rejected(rejected).to_string();
                    assert!(shown.contains(reasons[0]), "{shown}");
                    assert!(shown.ends_with("(convert leniently to skip it)"), "{shown}");
                }
                other => panic!("{bad} {target}: {other:?}"),
            }
            let conversion = convert(&input, target, &lenient()).unwrap();
            assert_eq!(conversion.rejected, [expected], "{bad} {target}");
            assert_eq!(conversion.tools.len(), 2, "{bad} {target}");
        }
        // A root `anyOf` of an object and `null`: MCP keeps root combinators and cannot make
        // this one an object, so rendering refuses it and says why; the other targets fold it
        // into one object (the `null` branch cannot be arguments).
        let nullable =
            json!({"name": "u", "inputSchema": {"anyOf": [{"type": "object"}, {"type": "null"}]}});
        let input = json!([good, nullable, good_too]);
        let conversion = convert(&input, target, &lenient()).unwrap();
        if target == Target::Mcp {
            let expected = Rejected {
                index: 1,
                name: Some("u".to_owned()),
                reasons: vec![
                    SchemaError::RootNotObject {
                        target,
                        found: "an `anyOf` of 2 schemas".to_owned(),
                    }
                    .to_string(),
                ],
            };
            assert_eq!(conversion.rejected, [expected], "{target}");
            assert_eq!(conversion.tools.len(), 2, "{target}");
        } else {
            assert_eq!(conversion.rejected, [], "{target}");
            assert_eq!(conversion.tools.len(), 3, "{target}");
            let out = conversion.tools[1].to_json();
            if let Some(schema) = parameters(&out, target) {
                assert_eq!(schema["type"], "object", "{target}: {schema}");
                assert_eq!(schema.get("anyOf"), None, "{target}: {schema}");
            } else {
                // Gemini leaves out the parameters of a tool that takes no arguments.
                assert!(target.is_gemini(), "{target}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Recursion
// ---------------------------------------------------------------------------------------------

#[test]
fn a_ref_to_the_root_is_kept_except_for_gemini_parameters_which_describe_it() {
    let input = tool(
        "tree",
        json!({"type": "object", "properties": {
            "label": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#"}}
        }, "required": ["label", "children"]}),
    );
    for target in [
        Target::Mcp,
        Target::ChatCompletions,
        Target::Responses,
        Target::Anthropic,
        Target::GeminiJsonSchema,
    ] {
        let out = &one(&input, target).tools[0].to_json();
        let schema = parameters(out, target).unwrap();
        assert_eq!(
            schema.pointer("/properties/children/items"),
            Some(&json!({"$ref": "#"})),
            "{target}"
        );
        validate_2020_12(schema, &target.to_string());
        if target.is_openai() {
            assert_eq!(strict_of(out, target), true, "{target}");
        }
    }
    // Gemini's `parameters` have no `$ref`: the recursion is cut where it recurs and said in
    // words.
    let conversion = one(&input, Target::Gemini);
    let out = conversion.tools[0].to_json();
    let schema = parameters(&out, Target::Gemini).unwrap();
    assert!(!schema.to_string().contains("$ref"), "{schema}");
    let nested = schema.pointer("/properties/children/items").unwrap();
    assert_eq!(nested["type"], "object");
    assert!(
        nested["description"]
            .as_str()
            .unwrap()
            .contains("Same shape as the whole argument object"),
        "{nested}"
    );
    let report = &conversion.tools[0].rendering.report;
    assert!(
        input_changes_at(report, "/properties/children/items")
            .any(|kind| matches!(kind, ChangeKind::RecursionCut { reference } if reference == "#")),
        "{report:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Keywords some targets do not take
// ---------------------------------------------------------------------------------------------

#[test]
fn one_of_with_a_discriminator_becomes_any_of_where_needed() {
    let input = tool(
        "shapes",
        json!({"type": "object", "properties": {
            "shape": {
                "oneOf": [
                    {"type": "object", "properties": {"kind": {"type": "string", "const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
                    {"type": "object", "properties": {"kind": {"type": "string", "const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]}
                ],
                "discriminator": {"propertyName": "kind"}
            }
        }, "required": ["shape"]}),
    );
    for target in Target::ALL {
        let conversion = one(&input, target);
        let out = &conversion.tools[0].to_json();
        let shape = &parameters(out, target).unwrap()["properties"]["shape"];
        let (kept, gone) = match target {
            Target::Mcp | Target::Anthropic => ("oneOf", "anyOf"),
            _ => ("anyOf", "oneOf"),
        };
        let branches = shape[kept]
            .as_array()
            .unwrap_or_else(|| panic!("{target}: {shape}"));
        assert_eq!(branches.len(), 2, "{target}");
        assert_eq!(shape.get(gone), None, "{target}");
        let kinds: Vec<&Value> = branches.iter().map(|b| &b["properties"]["kind"]).collect();
        match target {
            Target::Mcp | Target::Anthropic => {
                assert_eq!(kinds[0]["const"], "circle");
                assert_eq!(kinds[1]["const"], "square");
            }
            _ => {
                assert_eq!(kinds[0]["enum"], json!(["circle"]), "{target}");
                assert_eq!(kinds[1]["enum"], json!(["square"]), "{target}");
                assert_eq!(kinds[0].get("const"), None, "{target}");
            }
        }
        if target == Target::Gemini {
            assert_eq!(shape.get("discriminator"), None);
        }
        if target.is_openai() {
            assert_eq!(strict_of(out, target), true, "{target}");
        }
    }
}

#[test]
fn prefix_items_tuples_become_items_for_openai_and_gemini_parameters() {
    let input = tool(
        "tuples",
        json!({"type": "object", "properties": {
            "point": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}
        }, "required": ["point"]}),
    );
    for target in Target::ALL {
        let point = schema_of(&input, target)["properties"]["point"].clone();
        match target {
            // JSON Schema targets keep the tuple (Gemini documents `prefixItems` for it).
            Target::Mcp | Target::Anthropic | Target::GeminiJsonSchema => {
                assert_eq!(
                    point["prefixItems"],
                    json!([{"type": "string"}, {"type": "integer"}])
                );
                assert_eq!(point["items"], false);
            }
            _ => {
                assert_eq!(point.get("prefixItems"), None, "{target}");
                assert_eq!(
                    point["items"],
                    json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
                    "{target}"
                );
                assert_eq!(point["minItems"], 2, "{target}");
                assert_eq!(point["maxItems"], 2, "{target}");
                assert_eq!(
                    point["description"],
                    "A list of exactly 2 items: first a string, then an integer.",
                    "{target}"
                );
            }
        }
    }
}

#[test]
fn const_becomes_a_one_value_enum_or_a_sentence() {
    let input = tool(
        "consts",
        json!({"type": "object", "properties": {
            "version": {"type": "string", "const": "v1"},
            "answer": {"type": "integer", "const": 42}
        }, "required": ["version", "answer"]}),
    );
    for target in Target::ALL {
        let schema = schema_of(&input, target);
        let (version, answer) = (
            &schema["properties"]["version"],
            &schema["properties"]["answer"],
        );
        match target {
            Target::Mcp | Target::Anthropic => {
                assert_eq!(version["const"], "v1");
                assert_eq!(answer["const"], 42);
            }
            Target::Gemini => {
                assert_eq!(version["enum"], json!(["v1"]));
                assert_eq!(answer.get("enum"), None);
                assert_eq!(answer["description"], "Must be 42.");
            }
            _ => {
                assert_eq!(version["enum"], json!(["v1"]), "{target}");
                assert_eq!(answer["enum"], json!([42]), "{target}");
            }
        }
        if target != Target::Mcp && target != Target::Anthropic {
            assert_eq!(keys_anywhere(&schema, "const"), Vec::<String>::new());
        }
    }
}

#[test]
fn all_of_objects_are_merged_where_needed() {
    let input = tool(
        "merged",
        json!({"type": "object", "properties": {
            "who": {"allOf": [
                {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]}
            ]}
        }, "required": ["who"]}),
    );
    for target in Target::ALL {
        let conversion = one(&input, target);
        let out = &conversion.tools[0].to_json();
        let who = &parameters(out, target).unwrap()["properties"]["who"];
        match target {
            Target::Mcp | Target::Anthropic => {
                assert_eq!(who["allOf"].as_array().map(Vec::len), Some(2), "{target}");
            }
            _ => {
                assert_eq!(who.get("allOf"), None, "{target}: {who}");
                assert_eq!(who["type"], "object", "{target}");
                assert_eq!(property_names(who), ["name", "age"], "{target}");
                assert_eq!(who["required"], json!(["name", "age"]), "{target}");
            }
        }
        if target.is_openai() {
            assert_eq!(strict_of(out, target), true, "{target}");
            assert_eq!(who["additionalProperties"], false, "{target}");
        }
    }
    // Branches with bounds of one keyword merge into the tighter bound (their intersection).
    let bounds = tool(
        "bounds",
        json!({"type": "object", "properties": {
            "n": {"allOf": [{"type": "integer", "minimum": 1}, {"type": "integer", "minimum": 5}]}
        }, "required": ["n"]}),
    );
    for target in [Target::ChatCompletions, Target::Responses, Target::Gemini] {
        let conversion = one(&bounds, target);
        let out = conversion.tools[0].to_json();
        assert_eq!(
            parameters(&out, target).unwrap()["properties"]["n"],
            json!({"type": "integer", "minimum": 5}),
            "{target}"
        );
        if target.is_openai() {
            assert_eq!(strict_of(&out, target), true, "{target}");
        }
    }
    // Branches that conflict cannot be merged: kept (not strict) for OpenAI, said for Gemini.
    let conflict = tool(
        "conflict",
        json!({"type": "object", "properties": {
            "n": {"allOf": [{"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "b$"}]}
        }, "required": ["n"]}),
    );
    let chat = one(&conflict, Target::ChatCompletions);
    assert_eq!(chat.tools[0].to_json()["function"]["strict"], false);
    // The `allOf` that stays is why.
    let report = &chat.tools[0].rendering.report;
    assert!(
        input_changes_at(report, "/properties/n")
            .any(|kind| matches!(kind, ChangeKind::Kept { keyword, .. } if keyword == "allOf")),
        "{report:?}"
    );
    assert!(
        not_strict_pointers(report).contains(&"/properties/n"),
        "{report:?}"
    );
    let gemini = schema_of(&conflict, Target::Gemini);
    let n = &gemini["properties"]["n"];
    assert_eq!(n.get("allOf"), None);
    assert!(
        n["description"]
            .as_str()
            .unwrap_or_default()
            .contains("Must match all of these schemas"),
        "{n}"
    );
}

#[test]
fn conditionals_and_dependent_schemas_are_kept_or_described() {
    let input = tool(
        "conditional",
        json!({"type": "object", "properties": {
            "order": {
                "type": "object",
                "properties": {"kind": {"type": "string"}, "qty": {"type": "integer"}},
                "if": {"properties": {"kind": {"const": "bulk"}}},
                "then": {"properties": {"qty": {"minimum": 100}}},
                "else": {"properties": {"qty": {"maximum": 99}}},
                "dependentSchemas": {"qty": {"required": ["kind"]}}
            }
        }, "required": ["order"]}),
    );
    for target in Target::ALL {
        let conversion = one(&input, target);
        let out = &conversion.tools[0].to_json();
        let order = &parameters(out, target).unwrap()["properties"]["order"];
        let kept = ["if", "then", "else", "dependentSchemas"];
        // Neither of Gemini's forms has conditionals: they are said in words.
        if target.is_gemini() {
            for keyword in kept {
                assert_eq!(order.get(keyword), None, "{keyword}");
            }
            let description = order["description"].as_str().unwrap_or_default();
            assert!(description.contains("If the value is"), "{description}");
            assert!(
                description.contains("If `qty` is present, the object must also match"),
                "{description}"
            );
        } else {
            for keyword in kept {
                assert!(order.get(keyword).is_some(), "{target}: {keyword}");
            }
            validate_2020_12(parameters(out, target).unwrap(), &target.to_string());
        }
        if target.is_openai() {
            assert_eq!(strict_of(out, target), false, "{target}");
            // The object that carries `if` is why.
            let report = &conversion.tools[0].rendering.report;
            assert!(
                not_strict_pointers(report).contains(&"/properties/order"),
                "{report:?}"
            );
        }
    }
}

#[test]
fn boolean_property_schemas_are_kept_or_replaced() {
    let input = tool(
        "bools",
        json!({"type": "object", "properties": {"anything": true, "never": false}}),
    );
    for target in Target::ALL {
        let conversion = one(&input, target);
        let out = &conversion.tools[0].to_json();
        let schema = parameters(out, target).unwrap();
        let (anything, never) = (
            &schema["properties"]["anything"],
            &schema["properties"]["never"],
        );
        match target {
            Target::Gemini => {
                assert_eq!(anything, &json!({}));
                assert_eq!(
                    never,
                    &json!({"description": "Accepts no value; leave it out."})
                );
            }
            _ => {
                assert_eq!(anything, &json!(true), "{target}");
                assert_eq!(never, &json!(false), "{target}");
                validate_2020_12(schema, &target.to_string());
            }
        }
        if target.is_openai() {
            assert_eq!(strict_of(out, target), false, "{target}");
            // `true` accepts any value, which strict mode cannot express.
            let report = &conversion.tools[0].rendering.report;
            assert!(
                not_strict_pointers(report).contains(&"/properties/anything"),
                "{report:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Strictness
// ---------------------------------------------------------------------------------------------

#[test]
fn strictness_on_rejects_an_open_map_and_off_renders_it_non_strict() {
    let input = json!([
        tool(
            "labels",
            json!({"type": "object", "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "string"}}
        }, "required": ["tags"]})
        ),
        tool(
            "plain",
            json!({"type": "object", "properties": {
            "q": {"type": "string"},
            "n": {"type": "integer"}
        }, "required": ["q"]})
        )
    ]);
    // An open map (`additionalProperties` is a schema) cannot be strict.
    let at = "/properties/tags";
    for target in [Target::ChatCompletions, Target::Responses] {
        let on = ConvertOptions {
            strict: Strictness::On,
            lenient: false,
            ..ConvertOptions::default()
        };
        match convert(&input, target, &on) {
            Err(ConvertError::Rejected(rejected)) => {
                assert_eq!(
                    (rejected.index, rejected.name.as_deref()),
                    (0, Some("labels")),
                    "{target}"
                );
                // One reason, "`/pointer`: why".
                assert_eq!(rejected.reasons.len(), 1, "{target}: {rejected}");
                assert!(
                    rejected.reasons[0].starts_with(&format!("`{at}`: ")),
                    "{target}: {rejected}"
                );
            }
            other => panic!("{target}: {other:?}"),
        }
        let conversion = convert(
            &input,
            target,
            &ConvertOptions {
                lenient: true,
                ..on
            },
        )
        .unwrap();
        assert_eq!(conversion.rejected.len(), 1, "{target}");
        assert_eq!(conversion.tools.len(), 1, "{target}");
        assert_eq!(
            strict_of(&conversion.tools[0].to_json(), target),
            true,
            "{target}"
        );

        // Auto: non-strict, with the reason.
        let auto = convert(&input, target, &ConvertOptions::default()).unwrap();
        let wire = auto.to_json();
        assert_eq!(strict_of(&wire[0], target), false, "{target}");
        assert_eq!(strict_of(&wire[1], target), true, "{target}");
        let (labels, plain) = (
            &auto.tools[0].rendering.report,
            &auto.tools[1].rendering.report,
        );
        assert_eq!(not_strict_pointers(labels), [at], "{target}: {labels:?}");
        assert_eq!(not_strict_pointers(plain), Vec::<&str>::new(), "{target}");
        // `n` was made required and nullable; a `null` the model sends for it is removed.
        assert_eq!(made_nullable(plain), [("", "n")], "{target}: {plain:?}");
        let mut arguments = json!({"q": "x", "n": null});
        auto.tools[1].restore_arguments(&mut arguments);
        assert_eq!(arguments, json!({"q": "x"}), "{target}");
        let plain = parameters(&wire[1], target).unwrap();
        assert_eq!(plain["required"], json!(["q", "n"]), "{target}");
        assert_eq!(plain["properties"]["n"]["type"], json!(["integer", "null"]));

        // Off: never strict, nothing to explain, optional properties stay optional.
        let off = ConvertOptions {
            strict: Strictness::Off,
            lenient: false,
            ..ConvertOptions::default()
        };
        let conversion = convert(&input, target, &off).unwrap();
        assert!(conversion.rejected.is_empty());
        let wire = conversion.to_json();
        for out in &wire {
            assert_eq!(strict_of(out, target), false, "{target}");
        }
        for tool in &conversion.tools {
            let report = &tool.rendering.report;
            assert!(
                report.changes().iter().all(|c| !matches!(
                    c.kind,
                    ChangeKind::NotStrict { .. } | ChangeKind::MadeRequired { .. }
                )),
                "{report:?}"
            );
        }
        let labels = parameters(&wire[0], target).unwrap();
        assert_eq!(
            labels["properties"]["tags"]["additionalProperties"],
            json!({"type": "string"})
        );
        let plain = parameters(&wire[1], target).unwrap();
        assert_eq!(plain["required"], json!(["q"]), "{target}");
        assert_eq!(plain["properties"]["n"]["type"], "integer", "{target}");
    }
    // Anthropic's strict mode refuses the open map too: under `On` the tool is rejected.
    let on_anthropic = ConvertOptions {
        strict: Strictness::On,
        lenient: true,
        ..ConvertOptions::default()
    };
    let anthropic = convert(&input, Target::Anthropic, &on_anthropic).unwrap();
    assert_eq!(anthropic.tools.len(), 1);
    assert_eq!(
        anthropic.rejected[0].reasons,
        [format!(
            "`{at}`: an open map (`additionalProperties` is a schema) cannot be strict"
        )]
    );
    // MCP and Gemini have no strict mode: they take the open map as it is.
    for target in [Target::Mcp, Target::Gemini] {
        let on = ConvertOptions {
            strict: Strictness::On,
            lenient: false,
            ..ConvertOptions::default()
        };
        let conversion = convert(&input, target, &on).unwrap();
        assert_eq!(conversion.tools.len(), 2, "{target}");
    }
}

// ---------------------------------------------------------------------------------------------
// Gemini specifics on odd input
// ---------------------------------------------------------------------------------------------

#[test]
fn nullable_type_arrays_and_exclusive_bounds_fit_gemini() {
    let input = tool(
        "gemini",
        json!({"type": "object", "properties": {
            "name": {"type": ["string", "null"]},
            "count": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
            "ratio": {"type": "number", "exclusiveMinimum": 0}
        }, "required": ["name", "count", "ratio"]}),
    );
    let schema = schema_of(&input, Target::Gemini);
    assert_eq!(
        schema["properties"]["name"],
        json!({"type": "string", "nullable": true})
    );
    assert_eq!(
        schema["properties"]["count"],
        json!({"type": "integer", "minimum": 1, "maximum": 9})
    );
    assert_eq!(
        schema["properties"]["ratio"],
        json!({"description": "Must be greater than 0.", "type": "number"})
    );
}

/// `const` next to an `enum` that does not contain it (a schema nothing satisfies) must still
/// not reach OpenAI or Gemini as `const`.
#[test]
fn const_next_to_a_disagreeing_enum_does_not_reach_openai_or_gemini() {
    let input = tool(
        "contradiction",
        json!({"type": "object", "properties": {
            "x": {"type": "string", "const": "a", "enum": ["b"]}
        }, "required": ["x"]}),
    );
    let mut kept = Vec::new();
    for target in [Target::ChatCompletions, Target::Responses, Target::Gemini] {
        let conversion = convert(&input, target, &lenient()).unwrap();
        for out in &conversion.to_json() {
            let schema = parameters(out, target).unwrap();
            if !keys_anywhere(schema, "const").is_empty() {
                kept.push(format!(
                    "{target} (strict: {}): {schema}",
                    strict_of(out, target)
                ));
            }
        }
    }
    assert!(kept.is_empty(), "`const` sent:\n{}", kept.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Hostile sizes
// ---------------------------------------------------------------------------------------------

/// As deep as `serde_json` parses (its recursion limit is 128): converts everywhere; OpenAI
/// refuses strict mode past 10 levels of objects and says so.
#[test]
fn deeply_nested_objects_from_json_text_convert() {
    let depth = 60;
    let mut text = String::from(r#"{"type": "string", "default": "leaf"}"#);
    for _ in 0..depth {
        text = format!(r#"{{"type": "object", "properties": {{"n": {text}}}, "required": ["n"]}}"#);
    }
    let schema: Value = serde_json::from_str(&text).expect("within serde_json's depth limit");
    let input = tool("deep", schema);
    for target in Target::ALL {
        let conversion = one(&input, target);
        let out = &conversion.tools[0].to_json();
        let schema = parameters(out, target).unwrap();
        let leaf = format!("{}/description", "/properties/n".repeat(depth));
        assert_eq!(
            schema.pointer(&leaf),
            Some(&json!("Default: \"leaf\".")),
            "{target}"
        );
        if target.is_openai() {
            assert_eq!(strict_of(out, target), false, "{target}");
            // Said once, at the first object past 10 levels.
            let report = &conversion.tools[0].rendering.report;
            assert_eq!(
                not_strict_pointers(report),
                ["/properties/n".repeat(10)],
                "{report:?}"
            );
        }
    }
}

/// Each definition uses the previous one twice: inlining everything would copy 2^30 subtrees.
/// The expansion budget keeps it small; what is left is kept as `$ref` with its `$defs` (a valid,
/// compilable schema), and for Gemini, which cannot keep a `$ref`, described in words.
#[test]
fn exponential_references_stay_bounded() {
    let mut defs = serde_json::Map::new();
    defs.insert("D0".into(), json!({"type": "integer"}));
    for i in 1..=30 {
        let previous = format!("#/$defs/D{}", i - 1);
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {
                "a": {"$ref": previous}, "b": {"$ref": previous}
            }, "required": ["a", "b"]}),
        );
    }
    let input = tool(
        "bomb",
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/D30"}}, "required": ["x"], "$defs": defs}),
    );
    let started = std::time::Instant::now();
    for target in [Target::Mcp, Target::ChatCompletions, Target::Anthropic] {
        let out = one(&input, target).tools[0].to_json();
        let schema = parameters(&out, target).unwrap();
        assert!(
            schema.to_string().len() < 5_000_000,
            "{target}: {} bytes",
            schema.to_string().len()
        );
        validate_2020_12(schema, &target.to_string());
    }
    // Gemini: expanded as far as the budget goes, the rest described; still bounded.
    let conversion = convert(&input, Target::Gemini, &lenient()).unwrap();
    assert!(conversion.rejected.is_empty());
    let text = conversion.tools[0].to_json().to_string();
    assert!(
        !text.contains("$ref") && text.len() < 5_000_000,
        "{} bytes",
        text.len()
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}
