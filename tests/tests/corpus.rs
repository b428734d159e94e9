//! Conformance of `tooldef::convert` on real foreign MCP tool lists: the two corpora of
//! `tests/fixtures/corpus` (117 tools of github/github-mcp-server, 27 FastMCP tools), converted
//! for every target and checked against the core issue's rules.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;
use tooldef::convert::{
    Conversion, ConvertError, ConvertOptions, Converted, Rejected, Strictness, convert,
};
use tooldef::report::{ChangeKind, Place};
use tooldef::{SchemaError, Target};
use tooldef_tests::{
    FASTMCP_CORPUS, GITHUB_CORPUS, OPENAI_FORMATS, assert_closed_with_all_required,
    default_sentence, is_object_node, not_strict_pointers, property_names, walk,
};

/// Every keyword a Gemini `parameters` node may carry (docs/TARGET_RULES.md: Gemini refuses
/// unknown names, so everything else is described).
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "propertyOrdering",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
];

/// The FastMCP tools with a recursive type (`GeneRule`), which Gemini cannot express.
const RECURSIVE_FOR_GEMINI: &[(usize, &str)] = &[(8, "add_reaction"), (10, "set_gene_rule")];

/// The tools that cannot be strict for OpenAI, and exactly where (the report's `NotStrict`
/// changes, `(tool, JSON Pointer)`).
const GITHUB_NOT_STRICT: &[&str] = &["projects_write"];
const FASTMCP_NOT_STRICT: &[&str] = &[
    "add_reaction",
    "pathway_enrichment",
    "community_fba",
    "set_objective",
];
/// Each an open map (`additionalProperties` is a schema).
const FASTMCP_NOT_STRICT_AT: &[(&str, &str)] = &[
    ("add_reaction", "/properties/stoichiometry"),
    ("pathway_enrichment", "/properties/flux_changes"),
    ("community_fba", "/properties/member_models"),
    ("community_fba", "/properties/abundances/anyOf/0"),
    ("set_objective", "/properties/coefficients"),
];

/// One corpus file: its bytes as read, and the parsed `tools/list` result.
struct Corpus {
    label: &'static str,
    path: &'static str,
    bytes: Vec<u8>,
    input: Value,
}

impl Corpus {
    fn tools(&self) -> &[Value] {
        self.input["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: no `tools` array", self.path))
    }

    fn names(&self) -> Vec<&str> {
        self.tools()
            .iter()
            .map(|t| t["name"].as_str().expect("corpus tool name"))
            .collect()
    }

    fn tool(&self, name: &str) -> &Value {
        self.tools()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{}: no tool `{name}`", self.label))
    }

    fn not_strict(&self) -> &'static [&'static str] {
        if self.label == "github" {
            GITHUB_NOT_STRICT
        } else {
            FASTMCP_NOT_STRICT
        }
    }

    /// The tools a target cannot take (with lenient conversion they are `rejected`): none. Even
    /// a recursive type reaches Gemini, cut where it recurs and described (see
    /// `recursive_types_reach_gemini_cut_and_described`).
    fn rejected_for(&self, _target: Target) -> &'static [(usize, &'static str)] {
        &[]
    }
}

fn read(path: &'static str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|err| {
        panic!(
            "the tool corpus `{path}` cannot be read ({err}): it is part of the repository \
             (`tests/fixtures/corpus`, see its README.md)"
        )
    })
}

fn load(label: &'static str, path: &'static str) -> Corpus {
    let bytes = read(path);
    let input = serde_json::from_slice(&bytes)
        .unwrap_or_else(|err| panic!("the tool corpus `{path}` is not JSON: {err}"));
    Corpus {
        label,
        path,
        bytes,
        input,
    }
}

fn corpora() -> [Corpus; 2] {
    [
        load("github", GITHUB_CORPUS),
        load("fastmcp", FASTMCP_CORPUS),
    ]
}

fn lenient() -> ConvertOptions {
    ConvertOptions {
        lenient: true,
        ..ConvertOptions::default()
    }
}

fn converted(corpus: &Corpus, target: Target) -> Conversion {
    convert(&corpus.input, target, &lenient())
        .unwrap_or_else(|err| panic!("{} for {target}: {err}", corpus.label))
}

/// The input names of the tools a target converted, in input order.
fn converted_names(corpus: &Corpus, target: Target) -> Vec<&str> {
    let skipped: Vec<&str> = corpus
        .rejected_for(target)
        .iter()
        .map(|(_, n)| *n)
        .collect();
    corpus
        .names()
        .into_iter()
        .filter(|n| !skipped.contains(n))
        .collect()
}

fn out_name(tool: &Value, target: Target) -> &str {
    let name = match target {
        Target::ChatCompletions => &tool["function"]["name"],
        _ => &tool["name"],
    };
    name.as_str()
        .unwrap_or_else(|| panic!("no name for {target}: {tool}"))
}

/// The arguments' schema of a converted tool; Gemini omits `parameters` for a tool without any.
fn parameters(tool: &Value, target: Target) -> Option<&Value> {
    tooldef_tests::input_schema_in(tool, target)
}

fn strict_flag(tool: &Value, target: Target) -> &Value {
    match target {
        Target::ChatCompletions => &tool["function"]["strict"],
        _ => &tool["strict"],
    }
}

/// Every converted tool with its input tool, for one target.
fn pairs<'a>(
    corpus: &'a Corpus,
    conversion: &'a Conversion,
) -> impl Iterator<Item = (&'a Value, &'a Converted)> + 'a {
    let names = converted_names(corpus, conversion.target);
    assert_eq!(conversion.tools.len(), names.len(), "{}", corpus.label);
    names
        .into_iter()
        .zip(&conversion.tools)
        .map(|(name, out)| (corpus.tool(name), out))
}

fn descriptions(schema: &Value) -> Vec<&str> {
    walk(schema)
        .into_iter()
        .filter_map(|node| node.schema.get("description").and_then(Value::as_str))
        .collect()
}

/// Whether a JSON Pointer only goes through `properties/<name>` and `items`, so the node it
/// names sits at the same place in every rendering.
fn is_direct_path(pointer: &str) -> bool {
    let mut segments = pointer.split('/').skip(1);
    while let Some(keyword) = segments.next() {
        match keyword {
            "properties" if segments.next().is_some() => {}
            "items" => {}
            _ => return false,
        }
    }
    true
}

fn is_valid_openai_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Gemini: starts with a letter or `_`; letters, digits, `_`, `.`, `:`, `-`; at most 64.
fn is_valid_gemini_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

// ---------------------------------------------------------------------------------------------
// The corpus itself
// ---------------------------------------------------------------------------------------------

#[test]
fn corpus_files_hold_the_documented_tools() {
    let [github, fastmcp] = corpora();
    assert_eq!(github.tools().len(), 117, "{}", github.path);
    assert_eq!(fastmcp.tools().len(), 27, "{}", fastmcp.path);
    for corpus in [&github, &fastmcp] {
        let names = corpus.names();
        let distinct: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            names.len(),
            "{}: duplicate names",
            corpus.label
        );
    }
    // The recursive type the Gemini expectations rely on.
    for (index, name) in RECURSIVE_FOR_GEMINI {
        let tool = &fastmcp.tools()[*index];
        assert_eq!(tool["name"], *name);
        assert_eq!(
            tool["inputSchema"]["$defs"]["GeneRule"]["properties"]["children"]["items"]["$ref"],
            "#/$defs/GeneRule"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Every tool converts, except what a target cannot express
// ---------------------------------------------------------------------------------------------

#[test]
fn every_tool_converts_for_every_target_except_recursion_for_gemini() {
    for corpus in corpora() {
        for target in Target::ALL {
            let expected_rejected = corpus.rejected_for(target);
            let strict_batch = convert(&corpus.input, target, &ConvertOptions::default());
            match (expected_rejected.first(), strict_batch) {
                (None, Ok(conversion)) => {
                    assert!(conversion.rejected.is_empty(), "{} {target}", corpus.label);
                    assert_eq!(conversion.tools.len(), corpus.tools().len());
                }
                (Some((index, name)), Err(ConvertError::Rejected(rejected))) => {
                    assert_eq!(rejected.index, *index, "{} {target}", corpus.label);
                    assert_eq!(rejected.name.as_deref(), Some(*name));
                    assert_eq!(rejected.reasons, [recursion_reason()]);
                }
                (expected, got) => panic!(
                    "{} for {target}: expected the first rejection {expected:?}, got {got:?}",
                    corpus.label
                ),
            }

            let conversion = converted(&corpus, target);
            let expected: Vec<Rejected> = expected_rejected
                .iter()
                .map(|(index, name)| Rejected {
                    index: *index,
                    name: Some((*name).to_owned()),
                    reasons: vec![recursion_reason()],
                })
                .collect();
            assert_eq!(conversion.rejected, expected, "{} {target}", corpus.label);
            let wire = conversion.to_json();
            let names: Vec<&str> = wire.iter().map(|t| out_name(t, target)).collect();
            assert_eq!(
                names,
                converted_names(&corpus, target),
                "{} {target}",
                corpus.label
            );
            let names: Vec<&str> = conversion.tools.iter().map(Converted::name).collect();
            assert_eq!(
                names,
                converted_names(&corpus, target),
                "{} {target}",
                corpus.label
            );
        }
    }
}

fn recursion_reason() -> String {
    let reason = SchemaError::Recursive {
        target: Target::Gemini,
        reference: "#/$defs/GeneRule".to_owned(),
    }
    .to_string();
    assert!(
        reason.contains("recursive type at `#/$defs/GeneRule`"),
        "{reason}"
    );
    reason
}

// ---------------------------------------------------------------------------------------------
// 2. OpenAI: strict where possible, and the strict rules hold
// ---------------------------------------------------------------------------------------------

#[test]
fn openai_tools_are_strict_unless_they_cannot_be_and_follow_the_strict_rules() {
    for corpus in corpora() {
        let chat = converted(&corpus, Target::ChatCompletions);
        let responses = converted(&corpus, Target::Responses);
        for conversion in [&chat, &responses] {
            let target = conversion.target;
            let mut not_strict = Vec::new();
            for (input, converted) in pairs(&corpus, conversion) {
                let out = &converted.to_json();
                let name = input["name"].as_str().unwrap();
                let strict = match strict_flag(out, target) {
                    Value::Bool(b) => *b,
                    other => panic!("{name} {target}: `strict` is {other}"),
                };
                assert_eq!(converted.strict(), strict, "{name} {target}");
                if !strict {
                    not_strict.push(name);
                }
                let schema = parameters(out, target).expect("parameters");
                check_openai_schema(schema, strict, &format!("{name} for {target}"));
            }
            assert_eq!(not_strict, corpus.not_strict(), "{} {target}", corpus.label);
        }
        // Both OpenAI APIs get the same schemas.
        for (c, r) in chat.to_json().iter().zip(&responses.to_json()) {
            assert_eq!(
                parameters(c, Target::ChatCompletions),
                parameters(r, Target::Responses)
            );
        }
    }
}

fn check_openai_schema(schema: &Value, strict: bool, what: &str) {
    assert_eq!(schema["type"], "object", "{what}");
    for node in walk(schema) {
        let at = format!("{what} at `{}`", node.pointer);
        let Some(object) = node.schema.as_object() else {
            if strict {
                // The only boolean schema strict mode allows: a closed object's `false`.
                assert!(
                    node.pointer.ends_with("/additionalProperties") && node.schema == false,
                    "boolean schema {at}"
                );
            }
            continue;
        };
        // Never sent to OpenAI, strict or not.
        for banned in [
            "default",
            "$schema",
            "title",
            "const",
            "minLength",
            "maxLength",
            "prefixItems",
        ] {
            assert!(
                !object.contains_key(banned),
                "`{banned}` {at}: {}",
                node.schema
            );
        }
        if let Some(format) = object.get("format") {
            let format = format.as_str().unwrap_or_default();
            assert!(OPENAI_FORMATS.contains(&format), "format `{format}` {at}");
        }
        if !strict {
            continue;
        }
        for banned in ["oneOf", "allOf"] {
            assert!(
                !object.contains_key(banned),
                "`{banned}` {at}: {}",
                node.schema
            );
        }
        if is_object_node(node.schema) {
            assert_closed_with_all_required(node.schema, &at);
        }
    }
}

#[test]
fn tools_that_cannot_be_strict_say_why() {
    for corpus in corpora() {
        for target in [Target::ChatCompletions, Target::Responses] {
            let conversion = converted(&corpus, target);
            // Every reason not to be strict, as (tool, pointer), with the node it names.
            let mut why: Vec<(&str, &str)> = Vec::new();
            let mut nodes: BTreeMap<(&str, &str), Value> = BTreeMap::new();
            for tool in &conversion.tools {
                let name = tool.original_name.as_str();
                let pointers = not_strict_pointers(&tool.rendering.report);
                // A tool says why exactly when it is not strict.
                assert_eq!(
                    pointers.is_empty(),
                    tool.strict(),
                    "{target} `{name}`: strict {} with reasons {pointers:?}",
                    tool.strict()
                );
                let out = tool.to_json();
                let schema = parameters(&out, target).expect("parameters");
                for pointer in pointers {
                    let node = schema.pointer(pointer).unwrap_or_else(|| {
                        panic!("{target} `{name}`: `{pointer}` is not in {schema}")
                    });
                    nodes.insert((name, pointer), node.clone());
                    why.push((name, pointer));
                }
            }
            let explained: BTreeSet<&str> = why.iter().map(|(t, _)| *t).collect();
            let expected: BTreeSet<&str> = corpus.not_strict().iter().copied().collect();
            assert_eq!(explained, expected, "{} {target}", corpus.label);
            let open_map = |node: &Value| {
                node.get("additionalProperties")
                    .is_some_and(Value::is_object)
            };
            let accepts_any_keys = |node: &Value| {
                is_object_node(node)
                    && node.get("additionalProperties") != Some(&Value::Bool(false))
            };
            if corpus.label == "fastmcp" {
                assert_eq!(why, FASTMCP_NOT_STRICT_AT, "{target}");
                for (at, node) in &nodes {
                    assert!(open_map(node), "{target} {at:?}: {node}");
                }
            } else {
                // `items` (a `oneOf` of objects next to `type: object`) and `updated_field`
                // (likewise, and its `value` accepts any JSON value).
                let items = ("projects_write", "/properties/items/items");
                assert!(
                    nodes.get(&items).is_some_and(accepts_any_keys),
                    "{target}: {why:#?}"
                );
                assert!(
                    nodes.iter().any(|((_, pointer), node)| pointer
                        .starts_with("/properties/updated_field")
                        && pointer.ends_with("/properties/value")
                        && ["type", "anyOf", "enum", "const", "$ref"]
                            .iter()
                            .all(|k| node.get(k).is_none())),
                    "{target}: {why:#?}"
                );
                assert!(
                    nodes.iter().any(|((_, pointer), node)| pointer
                        .starts_with("/properties/updated_field")
                        && accepts_any_keys(node)),
                    "{target}: {why:#?}"
                );
            }
        }
    }
}

/// docs/TARGET_RULES.md: a reason not to be strict says where, as a JSON Pointer in the rendered
/// schema. Each must name a node of the schema that was sent. (`tests/reports.rs` checks the
/// pointers of every change.)
#[test]
fn not_strict_pointers_name_nodes_of_the_rendered_schema() {
    let mut dangling = Vec::new();
    let mut checked = 0;
    for corpus in corpora() {
        for target in [Target::ChatCompletions, Target::Responses] {
            let conversion = converted(&corpus, target);
            for tool in &conversion.tools {
                let out = tool.to_json();
                let schema = parameters(&out, target).expect("parameters");
                for change in tool.rendering.report.not_strict() {
                    checked += 1;
                    assert_eq!(change.place, Place::Input, "{change:?}");
                    if schema.pointer(&change.pointer).is_none() {
                        dangling.push(format!(
                            "{} for {target}: `{}` ({:?})",
                            tool.original_name, change.pointer, change.kind
                        ));
                    }
                }
            }
        }
    }
    assert!(checked >= 10, "{checked} reasons");
    assert!(
        dangling.is_empty(),
        "reasons point at nodes the rendered schema does not have:\n{}",
        dangling.join("\n")
    );
}

#[test]
fn strictness_on_rejects_exactly_the_tools_that_cannot_be_strict() {
    for corpus in corpora() {
        let options = ConvertOptions {
            strict: Strictness::On,
            lenient: true,
            ..ConvertOptions::default()
        };
        let conversion = convert(&corpus.input, Target::ChatCompletions, &options).unwrap();
        let rejected: Vec<&str> = conversion
            .rejected
            .iter()
            .map(|r| r.name.as_deref().unwrap())
            .collect();
        assert_eq!(rejected, corpus.not_strict(), "{}", corpus.label);
        // Each rejection gives, one reason each, where `Auto` says the tool is not strict.
        let auto = converted(&corpus, Target::ChatCompletions);
        for r in &conversion.rejected {
            let name = r.name.as_deref().unwrap();
            let pointers = not_strict_pointers(&auto.get(name).unwrap().rendering.report);
            assert_eq!(r.reasons.len(), pointers.len(), "{r}");
            for (reason, pointer) in r.reasons.iter().zip(pointers) {
                assert!(reason.starts_with(&format!("`{pointer}`: ")), "{r}");
            }
        }
        for tool in &conversion.tools {
            assert_eq!(tool.to_json()["function"]["strict"], true);
        }
        let off = ConvertOptions {
            strict: Strictness::Off,
            lenient: false,
            ..ConvertOptions::default()
        };
        let conversion = convert(&corpus.input, Target::Responses, &off).unwrap();
        assert_eq!(conversion.tools.len(), corpus.tools().len());
        assert!(conversion.to_json().iter().all(|t| t["strict"] == false));
        // Off: nothing to explain, and no property made required.
        for tool in &conversion.tools {
            assert!(
                tool.rendering.report.changes().iter().all(|c| !matches!(
                    c.kind,
                    ChangeKind::NotStrict { .. } | ChangeKind::MadeRequired { .. }
                )),
                "{}: {:?}",
                tool.original_name,
                tool.rendering.report
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Gemini: only the OpenAPI subset
// ---------------------------------------------------------------------------------------------

#[test]
fn gemini_parameters_use_only_the_openapi_subset() {
    for corpus in corpora() {
        let conversion = converted(&corpus, Target::Gemini);
        for (input, converted) in pairs(&corpus, &conversion) {
            let out = &converted.to_json();
            let name = input["name"].as_str().unwrap();
            let Some(schema) = parameters(out, Target::Gemini) else {
                assert!(
                    property_names(&input["inputSchema"]).is_empty(),
                    "{name}: parameters left out although it has some"
                );
                continue;
            };
            assert_eq!(schema["type"], "object", "{name}");
            for node in walk(schema) {
                let at = format!("{name} at `{}`", node.pointer);
                let object = node
                    .schema
                    .as_object()
                    .unwrap_or_else(|| panic!("boolean schema {at}"));
                for banned in [
                    "$ref",
                    "$defs",
                    "additionalProperties",
                    "const",
                    "oneOf",
                    "allOf",
                    "exclusiveMinimum",
                    "exclusiveMaximum",
                    "default",
                ] {
                    assert!(
                        !object.contains_key(banned),
                        "`{banned}` {at}: {}",
                        node.schema
                    );
                }
                for key in object.keys() {
                    assert!(
                        GEMINI_KEYWORDS.contains(&key.as_str()),
                        "`{key}` is not a Gemini keyword {at}"
                    );
                }
                let ty = object.get("type");
                assert!(
                    matches!(ty, None | Some(Value::String(_))),
                    "type {ty:?} {at}"
                );
                if let Some(nullable) = object.get("nullable") {
                    assert_eq!(nullable, &Value::Bool(true), "{at}");
                }
                if let Some(values) = object.get("enum") {
                    assert_eq!(
                        ty,
                        Some(&Value::from("string")),
                        "enum on a non-string {at}"
                    );
                    let values = values.as_array().expect("enum array");
                    assert!(values.iter().all(Value::is_string), "enum values {at}");
                }
                if let Some(format) = object.get("format") {
                    let allowed: &[&str] = match ty.and_then(Value::as_str) {
                        Some("string") => &["enum", "date-time"],
                        Some("integer") => &["int32", "int64"],
                        Some("number") => &["float", "double"],
                        _ => &[],
                    };
                    assert!(
                        allowed.contains(&format.as_str().unwrap_or_default()),
                        "format {format} {at}"
                    );
                }
                if let Some(ordering) = object.get("propertyOrdering") {
                    let ordering: Vec<&str> = ordering
                        .as_array()
                        .expect("propertyOrdering array")
                        .iter()
                        .filter_map(Value::as_str)
                        .collect();
                    assert_eq!(ordering, property_names(node.schema), "{at}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Defaults: never sent as a keyword (but MCP), always said
// ---------------------------------------------------------------------------------------------

#[test]
fn every_default_is_described_and_none_survives_but_for_mcp() {
    let mut total = 0;
    for corpus in corpora() {
        for target in Target::ALL {
            let conversion = converted(&corpus, target);
            for (input, converted) in pairs(&corpus, &conversion) {
                let out = &converted.to_json();
                let name = input["name"].as_str().unwrap();
                let what = format!("{name} for {target}");
                let input_schema = &input["inputSchema"];
                let defaults: Vec<(String, &Value)> = walk(input_schema)
                    .into_iter()
                    .filter_map(|n| n.schema.get("default").map(|d| (n.pointer, d)))
                    .collect();
                let Some(schema) = parameters(out, target) else {
                    assert!(defaults.is_empty(), "{what}: parameters dropped");
                    continue;
                };
                if target != Target::Mcp {
                    for node in walk(schema) {
                        assert!(
                            node.schema.get("default").is_none(),
                            "{what}: `default` at `{}`",
                            node.pointer
                        );
                    }
                }
                let texts = descriptions(schema);
                for (pointer, default) in defaults {
                    total += 1;
                    let sentence = default_sentence(default);
                    assert!(
                        texts.iter().any(|t| t.contains(&sentence)),
                        "{what}: the default at `{pointer}` ({sentence}) is in no description"
                    );
                    if is_direct_path(&pointer) {
                        let description = schema
                            .pointer(&pointer)
                            .and_then(|n| n.get("description"))
                            .and_then(Value::as_str)
                            .unwrap_or_else(|| panic!("{what}: no description at `{pointer}`"));
                        assert!(
                            description.ends_with(&sentence),
                            "{what} at `{pointer}`: {description:?} should end with {sentence:?}"
                        );
                    }
                    if target == Target::Mcp && is_direct_path(&pointer) {
                        assert_eq!(
                            schema.pointer(&pointer).and_then(|n| n.get("default")),
                            Some(default),
                            "{what}: MCP keeps `default` at `{pointer}`"
                        );
                    }
                }
            }
        }
    }
    // 11 GitHub defaults and 90 FastMCP ones, in 6 targets (the two recursive tools included
    // for Gemini's `parameters`: they are converted, cut where they recur).
    assert_eq!(total, 6 * 11 + 6 * 90, "defaults checked");
}

/// The object-valued defaults of nested models, spelled as serde_json's compact JSON.
#[test]
fn object_valued_defaults_of_nested_models_are_spelled_compactly() {
    let [_, fastmcp] = corpora();
    let options = r#"Default: {"solver":"glpk","tolerance":1e-9,"time_limit_s":60,"loopless":false,"threads":null}."#;
    let bounds = r#"Default: {"lower":-1000.0,"upper":1000.0}."#;
    for target in Target::ALL {
        let conversion = converted(&fastmcp, target);
        for (input, converted) in pairs(&fastmcp, &conversion) {
            let out = &converted.to_json();
            let name = input["name"].as_str().unwrap();
            let Some(schema) = parameters(out, target) else {
                continue;
            };
            if ["run_fba", "run_fva", "simulate_knockouts", "community_fba"].contains(&name) {
                let description = schema["properties"]["options"]["description"]
                    .as_str()
                    .unwrap_or_default();
                assert_eq!(
                    description,
                    format!("Solver and numerical options for optimisation runs. {options}"),
                    "{name} for {target}"
                );
            }
            if name == "run_scenario" {
                assert!(
                    descriptions(schema).iter().any(|d| d
                        == &format!("Flux bounds for a reaction (mmol/gDW/h). {bounds}")),
                    "{name} for {target}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Names
// ---------------------------------------------------------------------------------------------

#[test]
fn names_are_valid_for_each_target_reversible_and_distinct() {
    for corpus in corpora() {
        for target in Target::ALL {
            let conversion = converted(&corpus, target);
            let mut seen = BTreeSet::new();
            for (input, converted) in pairs(&corpus, &conversion) {
                let out = &converted.to_json();
                let original = input["name"].as_str().unwrap();
                let name = converted.name();
                assert_eq!(out_name(out, target), name);
                assert_eq!(converted.original_name, original);
                match target {
                    Target::Mcp => assert_eq!(name, original),
                    Target::Gemini | Target::GeminiJsonSchema => {
                        assert!(is_valid_gemini_name(name), "{name}")
                    }
                    _ => assert!(is_valid_openai_name(name), "{name} for {target}"),
                }
                assert_eq!(conversion.names.original(name), Some(original), "{target}");
                assert_eq!(conversion.names.target_name(original), Some(name));
                assert!(seen.insert(name), "{name} twice for {target}");
            }
            assert_eq!(
                conversion.names.to_json().as_object().unwrap().len(),
                seen.len(),
                "{} {target}",
                corpus.label
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 6. Declaration order
// ---------------------------------------------------------------------------------------------

#[test]
fn properties_keep_declaration_order() {
    for corpus in corpora() {
        for target in Target::ALL {
            let conversion = converted(&corpus, target);
            for (input, converted) in pairs(&corpus, &conversion) {
                let out = &converted.to_json();
                let name = input["name"].as_str().unwrap();
                let expected = property_names(&input["inputSchema"]);
                let Some(schema) = parameters(out, target) else {
                    assert!(expected.is_empty(), "{name} for {target}");
                    continue;
                };
                assert_eq!(property_names(schema), expected, "{name} for {target}");
                if target == Target::Gemini && expected.len() >= 2 {
                    let ordering: Vec<&str> = schema["propertyOrdering"]
                        .as_array()
                        .unwrap_or_else(|| panic!("{name}: no propertyOrdering"))
                        .iter()
                        .filter_map(Value::as_str)
                        .collect();
                    assert_eq!(ordering, expected, "{name} propertyOrdering");
                }
                // Inline nested objects keep theirs too.
                for (property, declared) in input["inputSchema"]["properties"]
                    .as_object()
                    .into_iter()
                    .flatten()
                {
                    let nested = property_names(declared);
                    if nested.is_empty() {
                        continue;
                    }
                    let rendered = &schema["properties"][property];
                    assert_eq!(
                        property_names(rendered),
                        nested,
                        "{name}.{property} for {target}"
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 7. The input is only read
// ---------------------------------------------------------------------------------------------

fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

#[test]
fn converting_leaves_the_input_unchanged() {
    for corpus in corpora() {
        let before = corpus.input.clone();
        let bytes_hash = hash(&corpus.bytes);
        for target in Target::ALL {
            for strict in [Strictness::Auto, Strictness::On, Strictness::Off] {
                for lenient in [true, false] {
                    let options = ConvertOptions {
                        strict,
                        lenient,
                        ..ConvertOptions::default()
                    };
                    let _ = convert(&corpus.input, target, &options);
                }
            }
        }
        for tool in corpus.tools() {
            let definition = tooldef::convert::definition_of(tool, &ConvertOptions::default())
                .unwrap_or_else(|reasons| panic!("{reasons:?}"));
            for target in Target::ALL {
                let _ = definition.to_json(target);
            }
        }
        assert!(
            corpus.input == before,
            "{}: the parsed input changed",
            corpus.label
        );
        let after = read(corpus.path);
        assert_eq!(
            hash(&after),
            bytes_hash,
            "{}: the file changed",
            corpus.label
        );
        assert!(after == corpus.bytes, "{}: the file changed", corpus.label);
    }
}

// ---------------------------------------------------------------------------------------------
// 8. JSON Schema outputs are valid draft 2020-12
// ---------------------------------------------------------------------------------------------

#[test]
fn json_schema_outputs_are_valid_2020_12() {
    for corpus in corpora() {
        for target in [
            Target::Mcp,
            Target::ChatCompletions,
            Target::Responses,
            Target::Anthropic,
        ] {
            let conversion = converted(&corpus, target);
            for (input, converted) in pairs(&corpus, &conversion) {
                let out = &converted.to_json();
                let what = format!("{} for {target}", input["name"]);
                let schema = parameters(out, target).expect("parameters");
                assert_eq!(schema["type"], "object", "{what}");
                let mut schemas = vec![("input", schema)];
                if target == Target::Mcp {
                    assert_eq!(
                        out.get("outputSchema").is_some(),
                        input.get("outputSchema").is_some(),
                        "{what}: outputSchema"
                    );
                    schemas.extend(out.get("outputSchema").map(|s| ("output", s)));
                }
                for (which, schema) in schemas {
                    if let Err(err) = jsonschema::draft202012::meta::validate(schema) {
                        panic!("{what} ({which}): {err}\n{schema}");
                    }
                    if let Err(err) = jsonschema::draft202012::new(schema) {
                        panic!("{what} ({which}) does not compile: {err}\n{schema}");
                    }
                }
            }
        }
    }
}

#[test]
fn recursive_types_reach_gemini_cut_and_described() {
    let [_, fastmcp] = corpora();
    let conversion = convert(&fastmcp.input, Target::Gemini, &ConvertOptions::default()).unwrap();
    for (index, name) in RECURSIVE_FOR_GEMINI {
        let tool = &conversion.tools[*index];
        assert_eq!(tool.to_json()["name"], *name);
        let text = tool.to_json().to_string();
        assert!(
            !text.contains("$ref") && !text.contains("$defs"),
            "{name}: {text}"
        );
        assert!(text.contains("A `GeneRule` again"), "{name}: {text}");
        assert!(
            tool.rendering.report.changes().iter().any(|c| matches!(
                &c.kind,
                ChangeKind::RecursionCut { reference } if reference == "#/$defs/GeneRule"
            )),
            "{name}: {:?}",
            tool.rendering.report
        );
    }
}
