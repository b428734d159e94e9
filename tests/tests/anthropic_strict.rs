//! Anthropic strict tool use (`strict: true`) when it loses nothing: a tool is strict exactly
//! when its rendering already is what Anthropic's strict mode takes, and one request keeps
//! within Anthropic's limits on strict tools (docs/TARGET_RULES.md, "strict" row).

use serde_json::{Value, json};
use tooldef::Target;
use tooldef::convert::{ConvertOptions, Strictness, Warning, convert};
use tooldef::report::ChangeKind;
use tooldef::targets::StrictLimit;
use tooldef_tests::accept::{refusals, request_refusals};

fn options(strict: Strictness) -> ConvertOptions {
    ConvertOptions {
        strict,
        lenient: true,
        ..ConvertOptions::default()
    }
}

/// A tool with the given properties (none required unless listed).
fn tool(name: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "name": name,
        "description": "Does a thing.",
        "inputSchema": {"type": "object", "properties": properties, "required": required}
    })
}

/// The reasons in a converted tool's report that it is not strict.
fn why_not_strict(tool: &tooldef::convert::Converted) -> Vec<String> {
    tool.rendering
        .report
        .not_strict()
        .map(|change| match &change.kind {
            ChangeKind::NotStrict { why } => format!("{}: {why}", change.pointer),
            other => other.to_string(),
        })
        .collect()
}

#[test]
fn a_tool_strict_mode_takes_as_it_is_is_strict_and_unchanged() {
    let input = tool(
        "book",
        json!({
            "city": {"type": "string", "pattern": "^[A-Z]"},
            "when": {"type": "string", "format": "date"},
            "nights": {"type": "integer"},
            "rooms": {"type": "array", "items": {"type": "string", "enum": ["single", "double"]}, "minItems": 1},
            "note": {"type": ["string", "null"]}
        }),
        &["city", "when"],
    );
    let strict = convert(&input, Target::Anthropic, &options(Strictness::Auto)).unwrap();
    let off = convert(&input, Target::Anthropic, &options(Strictness::Off)).unwrap();
    let tool = &strict.tools[0];
    assert!(tool.strict(), "{:?}", why_not_strict(tool));
    let json = tool.to_json();
    assert_eq!(json["strict"], true);
    assert!(refusals(&json, Target::Anthropic).is_empty(), "{json:#}");
    // Nothing is rewritten for strict mode: the schema is the non-strict one.
    assert_eq!(json["input_schema"], off.tools[0].to_json()["input_schema"]);
    assert_eq!(tool.rendering.report, off.tools[0].rendering.report);
}

#[test]
fn each_feature_strict_mode_refuses_keeps_the_tool_non_strict_saying_why() {
    let cases: &[(&str, Value, &str)] = &[
        (
            "minimum",
            json!({"type": "integer", "minimum": 1}),
            "`minimum` is not supported",
        ),
        (
            "maximum",
            json!({"type": "number", "maximum": 9}),
            "`maximum` is not supported",
        ),
        (
            "multiple_of",
            json!({"type": "integer", "multipleOf": 5}),
            "`multipleOf` is not supported",
        ),
        (
            "min_length",
            json!({"type": "string", "minLength": 1}),
            "`minLength` is not supported",
        ),
        (
            "max_length",
            json!({"type": "string", "maxLength": 9}),
            "`maxLength` is not supported",
        ),
        (
            "max_items",
            json!({"type": "array", "items": {"type": "string"}, "maxItems": 3}),
            "`maxItems` is not supported",
        ),
        (
            "unique_items",
            json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true}),
            "`uniqueItems` is not supported",
        ),
        (
            "min_items",
            json!({"type": "array", "items": {"type": "string"}, "minItems": 2}),
            "`minItems` of 2",
        ),
        (
            "map",
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            "an open map",
        ),
        (
            "open_object",
            json!({"type": "object"}),
            "an object that accepts any keys",
        ),
        (
            "untyped",
            json!({"description": "Anything."}),
            "accepts any value",
        ),
        (
            "lookahead",
            json!({"type": "string", "pattern": "^a(?=b)"}),
            "uses lookaround",
        ),
        (
            "backreference",
            json!({"type": "string", "pattern": "(a)\\1"}),
            "a backreference",
        ),
        (
            "format",
            json!({"type": "string", "format": "uri-reference"}),
            "format `uri-reference`",
        ),
        (
            "one_of",
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
            "`oneOf` is not supported",
        ),
        (
            "not",
            json!({"type": "string", "not": {"const": "x"}}),
            "`not` is not supported",
        ),
    ];
    let mut tools = Vec::new();
    for (name, schema, _) in cases {
        tools.push(tool(name, json!({ "x": schema }), &["x"]));
    }
    let recursive = json!({
        "name": "recursive",
        "inputSchema": {
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Tree"}},
            "required": ["tree"],
            "$defs": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
        }
    });
    tools.push(recursive);
    let conversion = convert(&json!(tools), Target::Anthropic, &options(Strictness::Auto)).unwrap();
    assert!(conversion.rejected.is_empty(), "{:?}", conversion.rejected);
    for (converted, expected) in conversion
        .tools
        .iter()
        .zip(cases.iter().map(|c| c.2).chain(["a recursive schema"]))
    {
        let why = why_not_strict(converted);
        assert!(!converted.strict(), "{}", converted.original_name);
        assert!(
            why.iter().any(|w| w.contains(expected)),
            "{}: {why:?} does not say {expected:?}",
            converted.original_name
        );
        let json = converted.to_json();
        assert!(json.get("strict").is_none(), "rendered as before: {json}");
        assert!(refusals(&json, Target::Anthropic).is_empty(), "{json:#}");
    }
    // Where: the node that has it.
    assert!(why_not_strict(&conversion.tools[0])[0].starts_with("/properties/x: "));
}

#[test]
fn strictness_on_rejects_what_cannot_be_strict_and_off_is_never_strict() {
    let lossy = tool(
        "lossy",
        json!({"n": {"type": "integer", "minimum": 1}}),
        &["n"],
    );
    let lossless = tool("lossless", json!({"n": {"type": "integer"}}), &["n"]);
    let input = json!([lossy, lossless]);
    let on = convert(&input, Target::Anthropic, &options(Strictness::On)).unwrap();
    assert_eq!(on.tools.len(), 1);
    assert!(on.tools[0].strict());
    assert_eq!(on.rejected.len(), 1);
    assert_eq!(
        on.rejected[0].reasons,
        ["`/properties/n`: `minimum` is not supported in strict mode"]
    );
    let off = convert(&input, Target::Anthropic, &options(Strictness::Off)).unwrap();
    assert!(off.tools.iter().all(|t| !t.strict()));
    assert!(
        off.tools
            .iter()
            .all(|t| t.rendering.report.not_strict().count() == 0)
    );
    assert!(
        off.tools
            .iter()
            .all(|t| t.to_json().get("strict").is_none())
    );
}

#[test]
fn a_request_keeps_twenty_strict_tools_the_first_ones() {
    let tools: Vec<Value> = (0..25)
        .map(|i| tool(&format!("t{i}"), json!({"a": {"type": "string"}}), &["a"]))
        .collect();
    let conversion = convert(&json!(tools), Target::Anthropic, &options(Strictness::Auto)).unwrap();
    let strict: Vec<bool> = conversion.tools.iter().map(|t| t.strict()).collect();
    assert_eq!(strict, [vec![true; 20], vec![false; 5]].concat());
    let past: Vec<String> = (20..25).map(|i| format!("t{i}")).collect();
    assert!(conversion.warnings.contains(&Warning::PastStrictLimit {
        target: Target::Anthropic,
        limit: StrictLimit::Tools,
        tools: past,
    }));
    let warning = conversion
        .warnings
        .iter()
        .find(|w| matches!(w, Warning::PastStrictLimit { .. }))
        .unwrap()
        .to_string();
    assert!(warning.contains("at most 20 strict tools"), "{warning}");
    let why = why_not_strict(&conversion.tools[24]);
    assert_eq!(why.len(), 1, "{why:?}");
    assert!(why[0].contains("at most 20 strict tools"), "{why:?}");
    assert!(request_refusals(&conversion.to_json(), Target::Anthropic).is_empty());
    // Under `Strictness::On` the tools past the limit are rejected, with the limit as reason.
    let on = convert(&json!(tools), Target::Anthropic, &options(Strictness::On)).unwrap();
    assert_eq!(on.tools.len(), 20);
    assert_eq!(on.rejected.len(), 5);
    assert!(on.rejected[0].reasons[0].contains("at most 20 strict tools"));
}

#[test]
fn a_request_keeps_within_24_optional_and_16_union_parameters() {
    // Ten optional parameters each: two tools fit in 24, the third does not; a tool with none
    // after it still does.
    let optional = |name: &str| {
        let properties: serde_json::Map<String, Value> = (0..10)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        tool(name, Value::Object(properties), &[])
    };
    let small = tool("small", json!({"a": {"type": "string"}}), &["a"]);
    let input = json!([optional("o1"), optional("o2"), optional("o3"), small]);
    let conversion = convert(&input, Target::Anthropic, &options(Strictness::Auto)).unwrap();
    let strict: Vec<bool> = conversion.tools.iter().map(|t| t.strict()).collect();
    assert_eq!(strict, [true, true, false, true]);
    assert!(conversion.warnings.contains(&Warning::PastStrictLimit {
        target: Target::Anthropic,
        limit: StrictLimit::OptionalParameters,
        tools: vec!["o3".to_owned()],
    }));
    assert!(request_refusals(&conversion.to_json(), Target::Anthropic).is_empty());

    // Six union parameters each (required, so no optional ones): two tools fit in 16.
    let unions = |name: &str| {
        let properties: serde_json::Map<String, Value> = (0..6)
            .map(|i| (format!("u{i}"), json!({"type": ["string", "null"]})))
            .collect();
        let names: Vec<String> = properties.keys().cloned().collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        tool(name, Value::Object(properties.clone()), &names)
    };
    let input = json!([unions("u1"), unions("u2"), unions("u3")]);
    let conversion = convert(&input, Target::Anthropic, &options(Strictness::Auto)).unwrap();
    let strict: Vec<bool> = conversion.tools.iter().map(|t| t.strict()).collect();
    assert_eq!(strict, [true, true, false]);
    assert!(conversion.warnings.contains(&Warning::PastStrictLimit {
        target: Target::Anthropic,
        limit: StrictLimit::UnionParameters,
        tools: vec!["u3".to_owned()],
    }));
    assert!(request_refusals(&conversion.to_json(), Target::Anthropic).is_empty());

    // A tool over a limit on its own is never strict, in any request.
    let properties: serde_json::Map<String, Value> = (0..25)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let huge = tool("huge", Value::Object(properties), &[]);
    let conversion = convert(&huge, Target::Anthropic, &options(Strictness::Auto)).unwrap();
    assert!(!conversion.tools[0].strict());
    assert!(why_not_strict(&conversion.tools[0])[0].contains("25 optional parameters"));
}

#[test]
fn the_tool_set_listing_keeps_the_limits_too() {
    // The showcase's strict Anthropic tools are within every limit.
    let tools = tooldef_examples::showcase::toolset();
    let listing = tools.listing(Target::Anthropic);
    assert!(listing.past_strict_limits.is_empty());
    assert!(request_refusals(&listing.tools, Target::Anthropic).is_empty());
    let strict = listing.tools.iter().filter(|t| t["strict"] == true).count();
    assert!(strict >= 1, "some showcase tool is strict for Anthropic");
    for tool in listing.tools.iter() {
        assert!(refusals(tool, Target::Anthropic).is_empty(), "{tool:#}");
    }
}
