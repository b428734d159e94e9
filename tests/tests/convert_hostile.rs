//! `tooldef::convert` on odd, random and invalid input schemas: every converted tool is one its
//! target takes, its MCP rendering is valid JSON Schema 2020-12, its properties keep their
//! order, and a tool that cannot be converted says why.
//!
//! The random cases come from `tooldef_tests::odd_schemas` with a fixed seed (`HOSTILE_SEED`
//! and `HOSTILE_CASES` override it and the count); the cases worth keeping by name are files in
//! `tests/fixtures/hostile/schemas/`, each with its expected outcome in the README there.

use std::path::Path;

use serde_json::{Value, json};
use tooldef::Target;
use tooldef::convert::{Conversion, ConvertOptions, Strictness, convert};
use tooldef::report::{ChangeKind, Place};
use tooldef_tests::accept::refusals;
use tooldef_tests::odd_schemas::{self, DEFAULT_CASES, DEFAULT_SEED};
use tooldef_tests::{default_sentence, walk};

const TARGETS: [Target; 5] = [
    Target::Mcp,
    Target::ChatCompletions,
    Target::Responses,
    Target::Anthropic,
    Target::Gemini,
];

fn lenient() -> ConvertOptions {
    ConvertOptions {
        lenient: true,
        ..ConvertOptions::default()
    }
}

/// Strict or rejected, carrying on past rejected tools.
fn strict_on() -> ConvertOptions {
    ConvertOptions {
        strict: Strictness::On,
        ..lenient()
    }
}

fn parameters(tool: &Value, target: Target) -> Option<&Value> {
    tooldef_tests::input_schema_in(tool, target)
}

/// Whether a change is one of the repairs made to an invalid input schema.
fn is_repair(kind: &ChangeKind) -> bool {
    match kind {
        ChangeKind::Removed { why, .. }
        | ChangeKind::Rewritten { to: why, .. }
        | ChangeKind::Added { why, .. } => why.contains("not valid JSON Schema"),
        _ => false,
    }
}

/// Where the properties of `input` (at every object reached through `properties`) are out of
/// order in `output`: the input's names that the output has must come in the input's order.
fn order_problems(input: &Value, output: &Value, at: &str, out: &mut Vec<String>) {
    let (Some(Value::Object(ins)), Some(Value::Object(outs))) =
        (input.get("properties"), output.get("properties"))
    else {
        return;
    };
    let kept: Vec<&str> = ins
        .keys()
        .map(String::as_str)
        .filter(|k| outs.contains_key(*k))
        .collect();
    let shown: Vec<&str> = outs
        .keys()
        .map(String::as_str)
        .filter(|k| ins.contains_key(*k))
        .collect();
    if kept != shown {
        out.push(format!("{at}: {kept:?} became {shown:?}"));
    }
    if let Some(Value::Array(ordering)) = output.get("propertyOrdering") {
        let ordering: Vec<&str> = ordering.iter().filter_map(Value::as_str).collect();
        let keys: Vec<&str> = outs.keys().map(String::as_str).collect();
        if ordering != keys {
            out.push(format!(
                "{at}: propertyOrdering {ordering:?} is not {keys:?}"
            ));
        }
    }
    for (name, sub) in ins {
        if let Some(sub_out) = outs.get(name) {
            order_problems(sub, sub_out, &format!("{at}/properties/{name}"), out);
        }
    }
}

/// Every description of `output`, in one text.
fn descriptions(output: &Value) -> String {
    walk(output)
        .iter()
        .filter_map(|n| n.schema.get("description").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The defaults of `input` that `output` neither carries as a `default` nor says in a
/// description ("Default: 3.", "Default given in `then`: 3.").
fn lost_defaults(input: &Value, output: &Value) -> Vec<String> {
    let kept: Vec<&Value> = walk(output)
        .iter()
        .filter_map(|n| n.schema.get("default"))
        .collect();
    let said = descriptions(output);
    walk(input)
        .iter()
        // Definitions are checked where they are used (unused ones are dropped, with reason).
        .filter(|n| !n.pointer.starts_with("/$defs") && !n.pointer.starts_with("/definitions"))
        .filter_map(|n| Some((n.pointer.clone(), n.schema.get("default")?)))
        .filter(|(_, value)| {
            let sentence = default_sentence(value);
            let shown = sentence
                .trim_start_matches("Default: ")
                .trim_end_matches('.');
            !kept.contains(value) && !said.contains(shown)
        })
        .map(|(at, value)| format!("`{at}`: the default {value} is lost"))
        .collect()
}

/// What one conversion breaks, as lines.
fn problems(tool: &Value, conversion: &Conversion) -> Vec<String> {
    let target = conversion.target;
    let mut out = Vec::new();
    for converted in &conversion.tools {
        let wire = converted.to_json();
        out.extend(
            refusals(&wire, target)
                .into_iter()
                .map(|r| format!("refused: {r}")),
        );
        if target == Target::Mcp {
            let schema = &wire["inputSchema"];
            if let Err(err) = jsonschema::draft202012::meta::validate(schema) {
                out.push(format!("MCP rendering not valid 2020-12: {err}"));
            }
        }
        if let Some(schema) = parameters(&wire, target) {
            order_problems(&tool["inputSchema"], schema, "", &mut out);
            // `properties` on a node that cannot be an object never applied; the report says
            // they were removed, defaults and all.
            let dropped_properties = converted.rendering.report.changes().iter().any(|c| {
                matches!(&c.kind, ChangeKind::Removed { keyword, .. } if keyword == "properties")
            });
            if !dropped_properties {
                out.extend(lost_defaults(&tool["inputSchema"], schema));
            }
        }
    }
    for rejected in &conversion.rejected {
        if rejected.reasons.is_empty() || rejected.reasons.iter().any(String::is_empty) {
            out.push("rejected without a reason".to_owned());
        }
    }
    out
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_odd_schemas_convert_to_what_each_target_takes() {
    let seed = env_or("HOSTILE_SEED", DEFAULT_SEED);
    let count = env_or("HOSTILE_CASES", DEFAULT_CASES);
    let cases = odd_schemas::cases(seed, count);
    let (mut converted, mut rejected, mut repaired) = (0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let mut rejected_in = Vec::new();
        for target in TARGETS {
            let conversion = convert(&case.tool, target, &lenient())
                .unwrap_or_else(|err| panic!("case {}: {target}: {err}", case.index));
            for problem in problems(&case.tool, &conversion) {
                failures.push(format!(
                    "case {} ({target}): {problem}\n  input: {}",
                    case.index, case.tool["inputSchema"]
                ));
            }
            converted += conversion.tools.len();
            rejected += conversion.rejected.len();
            if !conversion.rejected.is_empty() {
                rejected_in.push(target);
            }
            repaired += conversion
                .tools
                .iter()
                .filter(|t| {
                    t.rendering
                        .report
                        .changes()
                        .iter()
                        .any(|c| is_repair(&c.kind))
                })
                .count();
        }
        // An invalid schema is refused for what it is, not for a target: in all of them or none.
        if !rejected_in.is_empty() && rejected_in.len() != TARGETS.len() && case.invalid.is_some() {
            failures.push(format!(
                "case {}: {:?} rejected only for {rejected_in:?}",
                case.index, case.invalid
            ));
        }
        if matches!(
            case.invalid,
            Some("misspelt type" | "empty type list" | "ref not a string" | "properties as a list")
        ) && rejected_in.len() != TARGETS.len()
        {
            failures.push(format!(
                "case {}: {:?} was converted\n  input: {}",
                case.index, case.invalid, case.tool["inputSchema"]
            ));
        }
    }
    println!(
        "hostile: seed {seed:#x}, {} cases × {} targets: {converted} converted, {rejected} rejected, \
         {repaired} repaired",
        cases.len(),
        TARGETS.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures (seed {seed:#x}); the first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(15)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// What a fixture must come to.
enum Expect {
    /// Rejected in every target, a reason containing this.
    Rejected(&'static str),
    /// Converted in every target, with a repair whose note contains this.
    Repaired(&'static str),
    /// Converted in every target; this target's schema (as JSON text) contains this.
    Says(Target, &'static str),
}

/// Every file of `tests/fixtures/hostile/schemas/`, with its expected outcome (the README there
/// lists the same).
const FIXTURES: &[(&str, Expect)] = &[
    (
        "misspelt_type",
        Expect::Rejected(
            "at `/properties/query/type`: `strnig` is not a type; did you mean `string`?",
        ),
    ),
    (
        "empty_type_list",
        Expect::Rejected("at `/properties/query/type`: an empty `type` list allows no value"),
    ),
    (
        "ref_not_a_string",
        Expect::Rejected("at `/properties/query/$ref`: `$ref` must be a string"),
    ),
    (
        "minimum_as_a_string",
        Expect::Rejected("`minimum` must be a number, got the string `\"1\"`; did you mean `1`"),
    ),
    (
        "required_true_on_a_property",
        Expect::Rejected("list the property in its object's `required` instead"),
    ),
    (
        "unknown_dialect",
        Expect::Rejected("is not a JSON Schema dialect tooldef knows"),
    ),
    (
        "invalid_pattern",
        Expect::Rejected("at `/properties/code/pattern`"),
    ),
    (
        "duplicate_required",
        Expect::Repaired("`path` listed again"),
    ),
    (
        "required_as_a_string",
        Expect::Repaired("`required` is a list of names"),
    ),
    ("duplicate_type", Expect::Repaired("a type listed twice")),
    (
        "open_tuple_without_items",
        Expect::Says(Target::ChatCompletions, r#""items":{}"#),
    ),
    (
        "draft07_tuple_and_dependencies",
        Expect::Says(Target::Mcp, r#""dependentRequired":{"pair":["zeta"]}"#),
    ),
    (
        "string_formats_for_gemini",
        Expect::Says(Target::Gemini, "Must be a 64-bit integer."),
    ),
    (
        "defaults_in_conditionals",
        Expect::Says(Target::Gemini, "Default given in `then`: \\\"abc\\\"."),
    ),
    (
        "recursive_ref_with_default",
        Expect::Says(Target::Gemini, r#"Default: {\"v\":1}."#),
    ),
    (
        "null_branch_with_a_description",
        Expect::Says(Target::Gemini, "Leave it out for all."),
    ),
];

#[test]
fn every_hostile_fixture_comes_to_its_expected_outcome() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile/schemas");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("the fixtures folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".json").map(str::to_owned))
        .collect();
    files.sort();
    let mut listed: Vec<String> = FIXTURES.iter().map(|(f, _)| (*f).to_owned()).collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "every fixture has an expected outcome, and only those"
    );
    let mut failures = Vec::new();
    for (file, expect) in FIXTURES {
        let text = std::fs::read_to_string(dir.join(format!("{file}.json"))).expect("fixture");
        let tool: Value = serde_json::from_str(&text).expect("fixture is JSON");
        for target in TARGETS {
            let conversion = convert(&tool, target, &lenient()).expect("converts");
            for problem in problems(&tool, &conversion) {
                failures.push(format!("{file} ({target}): {problem}"));
            }
            let reasons: Vec<&String> = conversion
                .rejected
                .iter()
                .flat_map(|r| &r.reasons)
                .collect();
            let notes: Vec<String> = conversion
                .tools
                .iter()
                .flat_map(|t| t.rendering.report.changes())
                .filter(|c| c.place == Place::Input && is_repair(&c.kind))
                .map(|c| c.kind.to_string())
                .collect();
            let ok = match expect {
                Expect::Rejected(why) => {
                    conversion.tools.is_empty() && reasons.iter().any(|r| r.contains(why))
                }
                Expect::Repaired(note) => {
                    conversion.rejected.is_empty() && notes.iter().any(|n| n.contains(note))
                }
                Expect::Says(at, text) => {
                    conversion.rejected.is_empty()
                        && (*at != target
                            || conversion
                                .to_json()
                                .iter()
                                .any(|t| t.to_string().contains(text)))
                }
            };
            if !ok {
                failures.push(format!(
                    "{file} ({target}): rejected {reasons:?}, repairs {notes:?}, tools {:?}",
                    conversion.to_json()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_array_without_items_is_not_strict_and_refused_under_strictness_on() {
    let tool = json!({"name": "t", "description": "T.", "inputSchema": {"type": "object",
        "properties": {"xs": {"type": "array"}, "xy": {"type": "array", "prefixItems": [{"type": "number"}]}},
        "required": ["xs", "xy"]}});
    let auto = convert(&tool, Target::Responses, &lenient()).unwrap();
    let wire = auto.tools[0].to_json();
    assert_eq!(wire["strict"], false);
    assert_eq!(wire["parameters"]["properties"]["xy"]["items"], json!({}));
    assert!(refusals(&wire, Target::Responses).is_empty(), "{wire}");
    let not_strict: Vec<&str> = auto.tools[0]
        .rendering
        .report
        .not_strict()
        .map(|c| c.pointer.as_str())
        .collect();
    assert_eq!(not_strict, ["/properties/xs/items", "/properties/xy/items"]);
    let on = strict_on();
    let refused = convert(&tool, Target::ChatCompletions, &on).unwrap();
    assert!(refused.tools.is_empty());
    assert!(
        refused.rejected[0].reasons[0].contains("`/properties/xs/items`"),
        "{:?}",
        refused.rejected
    );
}

// OpenAI strict mode's size limits (docs/TARGET_RULES.md, "OpenAI strict mode's size limits"):
// schemas generated here at, just under and just over each limit, through `convert` (a foreign
// tool) and a `ToolDefinition` built in Rust.

/// An object closing over `properties`, every one required.
fn closed_object(properties: Vec<(String, Value)>) -> Value {
    let names: Vec<Value> = properties
        .iter()
        .map(|(n, _)| Value::from(n.clone()))
        .collect();
    json!({"type": "object", "properties": serde_json::Map::from_iter(properties),
        "additionalProperties": false, "required": names})
}

/// `n` boolean properties, `p0`, `p1`….
fn many_properties(n: usize) -> Value {
    closed_object(
        (0..n)
            .map(|i| (format!("p{i}"), json!({"type": "boolean"})))
            .collect(),
    )
}

/// `levels` nested schemas from the root: objects (odd levels) and arrays of them (even ones).
fn nested_levels(levels: usize) -> Value {
    let mut inner = json!({"type": "string"});
    for level in (1..=levels).rev() {
        inner = if level % 2 == 1 {
            closed_object(vec![("n".to_owned(), inner)])
        } else {
            json!({"type": "array", "items": inner})
        };
    }
    inner
}

/// `n` distinct strings of `total` characters in all (each at least 5 long).
fn strings_of(n: usize, total: usize, tag: &str) -> Vec<Value> {
    let each = total / n;
    let mut values: Vec<String> = (0..n)
        .map(|i| {
            let head = format!("{tag}{i:04}");
            format!("{head}{}", "x".repeat(each - head.len()))
        })
        .collect();
    let rest = total - each * n;
    values[n - 1].push_str(&"y".repeat(rest));
    values.into_iter().map(Value::from).collect()
}

/// A string property's schema with these `enum` values.
fn string_enum(values: Vec<Value>) -> Value {
    json!({"type": "string", "enum": values})
}

/// One case: a name, the input schema, and the reason it is not strict (`None`: strict).
fn limit_cases() -> Vec<(&'static str, Value, Option<&'static str>)> {
    // Enum values: `a` (600) is required; `b` is optional, and strict mode adds `null` to its
    // values: 399 + 1 is at the limit, 400 + 1 past it.
    let enums = |b: usize| {
        json!({"type": "object", "properties": {
            "a": string_enum(strings_of(600, 6_000, "a")),
            "b": string_enum(strings_of(b, b * 10, "b")),
        }, "required": ["a"]})
    };
    let large = |n: usize, chars: usize| {
        closed_object(vec![(
            "e".to_owned(),
            string_enum(strings_of(n, chars, "e")),
        )])
    };
    // 120,000 characters: the property names `first` and `second` (11) and 200 enum values.
    let names_and_values = |chars: usize| {
        closed_object(vec![
            (
                "first".to_owned(),
                string_enum(strings_of(100, 60_000, "f")),
            ),
            (
                "second".to_owned(),
                string_enum(strings_of(100, chars - 60_000 - 11, "s")),
            ),
        ])
    };
    vec![
        ("5,000 properties", many_properties(5_000), None),
        (
            "5,001 properties",
            many_properties(5_001),
            Some("the schema has 5,001 object properties in all, more than the 5,000"),
        ),
        ("10 levels", nested_levels(10), None),
        (
            "11 levels",
            nested_levels(11),
            Some(
                "objects and arrays are nested 11 levels deep (counting the root as 1), more than the 10",
            ),
        ),
        ("1,000 enum values", enums(399), None),
        (
            "1,001 enum values",
            enums(400),
            Some("the schema has 1,001 `enum` and `const` values in all, more than the 1,000"),
        ),
        ("251 strings of 15,000 characters", large(251, 15_000), None),
        (
            "251 strings of 15,001 characters",
            large(251, 15_001),
            Some(
                "this `enum` has 251 string values of 15,001 characters in all; OpenAI's strict mode takes at most 15,000 characters for an `enum` of more than 250 strings",
            ),
        ),
        ("250 strings of 20,000 characters", large(250, 20_000), None),
        ("120,000 characters", names_and_values(120_000), None),
        (
            "120,001 characters",
            names_and_values(120_001),
            Some("come to 120,001 characters in all, more than the 120,000"),
        ),
    ]
}

#[test]
fn openai_size_limits_decide_strict_through_convert() {
    let mut failures = Vec::new();
    for (name, schema, past) in limit_cases() {
        let tool = json!({"name": "big", "description": "A big tool.", "inputSchema": schema});
        for target in [Target::ChatCompletions, Target::Responses] {
            let conversion = convert(&tool, target, &lenient()).unwrap();
            let converted = &conversion.tools[0];
            let wire = converted.to_json();
            let strict = match target {
                Target::ChatCompletions => &wire["function"]["strict"],
                _ => &wire["strict"],
            };
            let reasons: Vec<String> = converted
                .rendering
                .report
                .not_strict()
                .map(|c| c.to_string())
                .collect();
            let ok = match past {
                None => strict == true && reasons.is_empty(),
                Some(why) => strict == false && reasons.len() == 1 && reasons[0].contains(why),
            };
            if !ok {
                failures.push(format!("{name} ({target}): strict {strict}, {reasons:?}"));
            }
            // Sent without strict, it is what a non-strict tool is: nothing made required.
            let made_required = converted
                .rendering
                .report
                .changes()
                .iter()
                .any(|c| matches!(c.kind, ChangeKind::MadeRequired { .. }));
            if past.is_some() && made_required {
                failures.push(format!("{name} ({target}): made properties required"));
            }
            // What the check measured is what is sent: the optional enum got its `null`.
            if name == "1,000 enum values" {
                let b = &tooldef_tests::input_schema_in(&wire, target).unwrap()["properties"]["b"];
                if b["enum"].as_array().and_then(|v| v.last()) != Some(&Value::Null) {
                    failures.push(format!("{name} ({target}): `b` sent as {b}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn openai_size_limits_refuse_under_strictness_on_with_the_figure() {
    let tool =
        json!({"name": "big", "description": "A big tool.", "inputSchema": many_properties(5_001)});
    let on = strict_on();
    let refused = convert(&tool, Target::Responses, &on).unwrap();
    assert!(refused.tools.is_empty());
    assert_eq!(
        refused.rejected[0].reasons,
        [
            "the root: the schema has 5,001 object properties in all, more than the 5,000 \
             OpenAI's strict mode takes"
        ]
    );
}

#[test]
fn openai_size_limits_decide_strict_for_a_tool_built_in_rust() {
    use tooldef::ToolDefinition;
    for (name, schema, past) in limit_cases() {
        let definition = ToolDefinition::builder("big")
            .description("A big tool.")
            .input_schema(schemars::Schema::try_from(schema).unwrap())
            .build();
        for target in [Target::ChatCompletions, Target::Responses] {
            let rendering = definition.render(target).unwrap();
            let reasons: Vec<String> = rendering
                .report
                .not_strict()
                .map(|c| c.kind.to_string())
                .collect();
            assert_eq!(
                rendering.tool.strict(),
                past.is_none(),
                "{name} ({target}): {reasons:?}"
            );
            if let Some(why) = past {
                assert!(
                    reasons.len() == 1 && reasons[0].contains(why),
                    "{name} ({target}): {reasons:?}"
                );
            }
        }
    }
}

/// OpenAI documents its limits per schema, and no figure for a request's strict tools together
/// (its per-request figure is the number of tools): each tool is measured alone, and a batch
/// whose tools are each within the limits keeps them all strict, with no warning.
#[test]
fn openai_size_limits_are_per_tool_in_a_request() {
    let tools: Vec<Value> = (0..3)
        .map(|i| json!({"name": format!("t{i}"), "description": "T.", "inputSchema": many_properties(4_000)}))
        .chain([json!({"name": "deep", "description": "D.", "inputSchema": nested_levels(11)})])
        .collect();
    let conversion = convert(&Value::Array(tools), Target::Responses, &lenient()).unwrap();
    let strict: Vec<bool> = conversion
        .tools
        .iter()
        .map(|t| t.rendering.tool.strict())
        .collect();
    assert_eq!(strict, [true, true, true, false]);
    assert!(conversion.warnings.is_empty(), "{:?}", conversion.warnings);
}

/// The JSON Pointers (`#/…`) written anywhere in `value`: as a whole string (a `$ref`, a
/// `discriminator` mapping) or inside text (a description that quotes one).
fn pointers_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => {
            for (at, _) in text.match_indices("#/") {
                let pointer: String = text[at..]
                    .chars()
                    .take_while(|c| !c.is_whitespace() && !"\"'`,;)}]".contains(*c))
                    .collect();
                out.push(pointer);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| pointers_in(v, out)),
        Value::Object(map) => map.values().for_each(|v| pointers_in(v, out)),
        _ => {}
    }
}

/// FastMCP's `run_scenario` (pydantic `Field(discriminator="kind")`) has a `discriminator`
/// whose `mapping` points into `$defs`, which every rendering inlines: in none does a pointer
/// lead nowhere, and where the mapping went the report says so and `kind` is still named.
#[test]
fn a_discriminator_mapping_into_inlined_defs_leads_nowhere_in_no_rendering() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/fastmcp-metabolic.tools.json");
    let corpus: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tool = corpus["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "run_scenario")
        .expect("run_scenario in the corpus")
        .clone();
    let mut input_pointers = Vec::new();
    pointers_in(&tool["inputSchema"]["properties"], &mut input_pointers);
    assert!(
        input_pointers.iter().any(|p| p.starts_with("#/$defs/")),
        "the corpus tool still has its mapping: {input_pointers:?}"
    );
    for target in Target::ALL {
        let conversion = convert(&tool, target, &lenient()).unwrap();
        let converted = &conversion.tools[0];
        let wire = converted.to_json();
        let schema = parameters(&wire, target).unwrap();
        let mut pointers = Vec::new();
        pointers_in(schema, &mut pointers);
        for pointer in &pointers {
            assert!(
                schema.pointer(&pointer[1..]).is_some(),
                "{target}: `{pointer}` leads nowhere in {schema}"
            );
        }
        let items = &schema["properties"]["perturbations"]["items"];
        let said = match items.get("discriminator") {
            Some(kept) => kept == &json!({"propertyName": "kind"}),
            None => items["description"]
                .as_str()
                .is_some_and(|d| d.contains("Its `kind` property says which of the forms it is.")),
        };
        assert!(said, "{target}: {items}");
        let reported = converted.rendering.report.changes().iter().any(|c| {
            c.pointer == "/properties/perturbations/items"
                && matches!(&c.kind, ChangeKind::Rewritten { from, .. } if from.contains("`discriminator` with a `mapping`"))
        });
        assert!(reported, "{target}: {:?}", converted.rendering.report);
    }
}

/// Whether every `default` in `input` is said in a description of `output` as a default:
/// ``Default: "x".``, or ``Default given in `then`: "x".``.
fn says_as_default(input: &Value, output: &Value) -> bool {
    let said = descriptions(output);
    walk(input)
        .iter()
        .filter_map(|n| n.schema.get("default"))
        .all(|value| {
            let plain = default_sentence(value);
            let apart = format!("`: {value}.");
            said.contains(&plain)
                || said
                    .match_indices(&apart)
                    .any(|(at, _)| said[..at].contains("Default given in `"))
        })
}

/// A `default` at every subschema location a transform visits reaches every rendering: kept
/// (MCP) or said in words (every target that drops the keyword), wherever the location's
/// keyword itself is kept, rewritten or said in words.
#[test]
fn a_default_in_any_subschema_is_said_for_every_target() {
    let located: Vec<(&str, Value)> = vec![
        (
            "properties",
            json!({"type": "object", "properties": {"a": {"type": "string", "default": "d-properties"}}}),
        ),
        (
            "patternProperties",
            json!({"type": "object", "patternProperties": {"^x": {"type": "string", "default": "d-pattern"}}}),
        ),
        (
            "additionalProperties",
            json!({"type": "object", "additionalProperties": {"type": "string", "default": "d-additional"}}),
        ),
        (
            "items",
            json!({"type": "array", "items": {"type": "string", "default": "d-items"}}),
        ),
        (
            "prefixItems",
            json!({"type": "array", "prefixItems": [{"type": "string", "default": "d-prefix"}], "items": false}),
        ),
        (
            "contains",
            json!({"type": "array", "items": {"type": "string"}, "contains": {"type": "string", "default": "d-contains"}}),
        ),
        (
            "anyOf",
            json!({"anyOf": [{"type": "string", "default": "d-anyof"}, {"type": "integer"}]}),
        ),
        (
            "oneOf",
            json!({"oneOf": [{"type": "string", "default": "d-oneof"}, {"type": "integer"}]}),
        ),
        (
            "allOf",
            json!({"allOf": [{"type": "string", "default": "d-allof"}, {"minLength": 1}]}),
        ),
        (
            "not",
            json!({"type": "string", "not": {"const": "x", "default": "d-not"}}),
        ),
        (
            "if",
            json!({"type": "string", "if": {"minLength": 3, "default": "d-if"}, "then": {"pattern": "^a"}}),
        ),
        (
            "then",
            json!({"type": "string", "if": {"minLength": 3}, "then": {"pattern": "^a", "default": "d-then"}}),
        ),
        (
            "else",
            json!({"type": "string", "if": {"minLength": 3}, "else": {"default": "d-else"}}),
        ),
        (
            "dependentSchemas",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "dependentSchemas": {"a": {"properties": {"b": {"type": "string", "default": "d-dependent"}}}}}),
        ),
        (
            "propertyNames",
            json!({"type": "object", "propertyNames": {"pattern": "^[a-z]+$", "default": "d-names"}}),
        ),
        (
            "unevaluatedProperties",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": {"type": "string", "default": "d-unevaluated-properties"}}),
        ),
        (
            "unevaluatedItems",
            json!({"type": "array", "prefixItems": [{"type": "string"}], "unevaluatedItems": {"type": "string", "default": "d-unevaluated-items"}}),
        ),
        (
            "contentSchema",
            json!({"type": "string", "contentMediaType": "application/json", "contentSchema": {"type": "object", "default": {"d": "d-content"}}}),
        ),
        (
            "a map's values' properties",
            json!({"type": "object", "additionalProperties": {"type": "object", "properties": {"x": {"type": "string", "default": "d-deep-map"}}}}),
        ),
        (
            "oneOf beside anyOf",
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}], "oneOf": [{"type": "string", "default": "d-oneof-kept"}, {"type": "integer"}]}),
        ),
        (
            "$defs",
            json!({"$ref": "#/properties/v/$defs/D", "$defs": {"D": {"type": "string", "default": "d-defs"}}}),
        ),
    ];
    let mut failures = Vec::new();
    for (location, value) in located {
        let tool = json!({"name": "t", "description": "T.", "inputSchema": {"type": "object",
            "properties": {"v": value}}});
        for target in Target::ALL {
            let conversion = convert(&tool, target, &lenient()).unwrap();
            if !conversion.rejected.is_empty() {
                failures.push(format!(
                    "{location} ({target}): rejected {:?}",
                    conversion.rejected
                ));
                continue;
            }
            let wire = conversion.tools[0].to_json();
            let schema = parameters(&wire, target).unwrap();
            for lost in lost_defaults(&tool["inputSchema"], schema) {
                failures.push(format!("{location} ({target}): {lost}\n  sent: {schema}"));
            }
            // Said as a default, not only shown inside some compact JSON.
            if target != Target::Mcp && !says_as_default(&value, schema) {
                failures.push(format!(
                    "{location} ({target}): not said as a default: {schema}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
