//! The core issue's acceptance checks, on every showcase tool in every target.

use serde_json::Value;
use tooldef::{Target, ToolDefinition};
use tooldef_examples::showcase;
use tooldef_tests::{
    OPENAI_FORMATS, assert_closed_with_all_required, default_sentence, is_object_node,
    property_names, walk,
};

fn rendered(definition: &ToolDefinition, target: Target) -> Value {
    definition
        .to_json(target)
        .unwrap_or_else(|err| panic!("{} for {target}: {err}", definition.name()))
}

fn parameters(definition: &ToolDefinition, target: Target) -> Value {
    // A Gemini declaration without parameters has none: `Null`.
    let json = rendered(definition, target);
    tooldef_tests::input_schema_in(&json, target)
        .cloned()
        .unwrap_or(Value::Null)
}

#[test]
fn showcase_has_at_least_eight_tools() {
    assert!(showcase::definitions().len() >= 8);
}

#[test]
fn openai_targets_are_strict_and_closed() {
    for definition in showcase::definitions() {
        for target in [Target::ChatCompletions, Target::Responses] {
            let json = rendered(definition, target);
            let strict = match target {
                Target::ChatCompletions => &json["function"]["strict"],
                _ => &json["strict"],
            };
            assert_eq!(strict, &Value::Bool(true), "{} {target}", definition.name());
            let schema = parameters(definition, target);
            for node in walk(&schema) {
                let at = format!("{} {target} at `{}`", definition.name(), node.pointer);
                let Some(object) = node.schema.as_object() else {
                    // The only boolean schema strict mode allows: a closed object's `false`.
                    assert!(
                        node.pointer.ends_with("/additionalProperties") && node.schema == false,
                        "boolean schema {at}"
                    );
                    continue;
                };
                for banned in [
                    "default",
                    "$schema",
                    "title",
                    "oneOf",
                    "allOf",
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
                if let Some(format) = object.get("format").and_then(Value::as_str) {
                    assert!(OPENAI_FORMATS.contains(&format), "format `{format}` {at}");
                }
                if is_object_node(node.schema) {
                    assert_closed_with_all_required(node.schema, &at);
                }
            }
        }
    }
}

#[test]
fn gemini_uses_only_the_openapi_subset() {
    for definition in showcase::definitions() {
        let schema = parameters(definition, Target::Gemini);
        if schema.is_null() {
            assert!(property_names(definition.input_schema().as_value()).is_empty());
            continue;
        }
        for node in walk(&schema) {
            let at = format!("{} at `{}`", definition.name(), node.pointer);
            let object = node.schema.as_object().expect("object schema");
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
            let ty = object.get("type");
            assert!(!matches!(ty, Some(Value::Array(_))), "type array {at}");
            if object.contains_key("enum") {
                assert_eq!(
                    ty,
                    Some(&Value::from("string")),
                    "enum on a non-string {at}"
                );
            }
            if ty == Some(&Value::from("string"))
                && let Some(format) = object.get("format").and_then(Value::as_str)
            {
                {
                    assert!(
                        ["enum", "date-time"].contains(&format),
                        "format `{format}` {at}"
                    );
                }
            }
        }
    }
}

#[test]
fn mcp_input_schemas_are_objects_and_valid_2020_12() {
    for definition in showcase::definitions() {
        let json = rendered(definition, Target::Mcp);
        let input = &json["inputSchema"];
        assert_eq!(input["type"], "object", "{}", definition.name());
        for schema in [Some(input), json.get("outputSchema")]
            .into_iter()
            .flatten()
        {
            if let Err(err) = jsonschema::draft202012::meta::validate(schema) {
                panic!("{}: {err}\n{schema}", definition.name());
            }
        }
    }
}

/// Every JSON Schema tooldef emits (all targets but Gemini's OpenAPI `parameters`) is valid
/// draft 2020-12, and compiles: its patterns are valid regular expressions and its `$ref`s resolve.
#[test]
fn every_emitted_json_schema_is_valid_2020_12() {
    for definition in showcase::definitions() {
        for target in [
            Target::Mcp,
            Target::ChatCompletions,
            Target::Responses,
            Target::Anthropic,
        ] {
            let schema = parameters(definition, target);
            let at = format!("{} for {target}", definition.name());
            if let Err(err) = jsonschema::draft202012::meta::validate(&schema) {
                panic!("{at}: {err}\n{schema}");
            }
            if let Err(err) = jsonschema::draft202012::new(&schema) {
                panic!("{at} does not compile: {err}\n{schema}");
            }
        }
    }
}

#[test]
fn properties_keep_declaration_order_in_every_target() {
    let expected: &[(&str, &[&str])] = &[
        ("get_weather", &["city", "days", "units", "include_hourly"]),
        ("convert_currency", &["amount", "from", "to", "round_to"]),
        (
            "search_flights",
            &[
                "origin",
                "destination",
                "departureDate",
                "returnDate",
                "passengers",
                "cabin",
                "nonstopOnly",
            ],
        ),
        (
            "book_hotel",
            &["hotel_id", "guest", "check_in", "nights", "requests"],
        ),
        (
            "send_agent_message",
            &["to", "subject", "body", "readReceipt"],
        ),
    ];
    for (name, order) in expected {
        let definition = showcase::definitions()
            .into_iter()
            .find(|d| d.name() == *name)
            .expect("showcase tool");
        for target in Target::ALL {
            let schema = parameters(definition, target);
            assert_eq!(property_names(&schema), *order, "{name} for {target}");
            if target == Target::Gemini {
                let ordering: Vec<&str> = schema["propertyOrdering"]
                    .as_array()
                    .expect("propertyOrdering")
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                assert_eq!(ordering, *order, "{name} propertyOrdering");
            }
        }
        // Nested structs keep their fields' order too.
        if *name == "book_hotel" {
            for target in Target::ALL {
                let guest = &parameters(definition, target)["properties"]["guest"];
                let guest = guest.get("anyOf").map_or(guest, |any| &any[0]);
                assert_eq!(
                    property_names(guest),
                    ["name", "email", "phone"],
                    "{target}"
                );
            }
        }
    }
}

/// Every `default` the canonical schema records reaches the description of the same property in
/// every target that drops the keyword, as the description's last sentence.
#[test]
fn defaults_end_the_descriptions() {
    for definition in showcase::definitions() {
        let canonical = serde_json::to_value(definition.input_schema()).unwrap();
        for target in Target::ALL {
            let schema = parameters(definition, target);
            for (name, property) in canonical["properties"].as_object().into_iter().flatten() {
                let Some(default) = property.get("default") else {
                    continue;
                };
                let description = schema["properties"][name]["description"]
                    .as_str()
                    .unwrap_or_else(|| {
                        panic!("{} {name} {target}: no description", definition.name())
                    });
                assert!(
                    description.ends_with(&default_sentence(default)),
                    "{} {name} for {target}: {description:?} should end with {:?}",
                    definition.name(),
                    default_sentence(default)
                );
            }
            // Nested defaults (inside `$defs`, items…) are described somewhere too.
            let text = schema.to_string();
            for node in walk(&canonical) {
                if let Some(default) = node.schema.get("default") {
                    let sentence = default_sentence(default);
                    let sentence = serde_json::to_string(&sentence).unwrap();
                    let sentence = sentence.trim_matches('"');
                    assert!(
                        text.contains(sentence),
                        "{} for {target}: default at `{}` not described",
                        definition.name(),
                        node.pointer
                    );
                }
            }
        }
    }
}

#[test]
fn constraints_a_target_cannot_carry_reach_the_description() {
    let send = showcase::definitions()
        .into_iter()
        .find(|d| d.name() == "send_agent_message")
        .unwrap();
    for target in [Target::ChatCompletions, Target::Responses, Target::Gemini] {
        let subject = &parameters(send, target)["properties"]["subject"];
        assert_eq!(
            subject["description"], "The subject line. Must be between 1 and 78 characters long.",
            "{target}"
        );
    }
    // MCP keeps the keywords themselves.
    let subject = &parameters(send, Target::Mcp)["properties"]["subject"];
    assert_eq!(subject["minLength"], 1);
    assert_eq!(subject["maxLength"], 78);
}

#[test]
fn documented_unit_enums_become_enums_with_the_variant_docs() {
    let weather = showcase::definitions()
        .into_iter()
        .find(|d| d.name() == "get_weather")
        .unwrap();
    for target in Target::ALL {
        let units = &parameters(weather, target)["properties"]["units"];
        let units = units.get("anyOf").map_or(units, |any| &any[0]);
        let values: Vec<&str> = units["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{target}: {units}"))
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(values, ["metric", "imperial"], "{target}");
        let description = parameters(weather, target)["properties"]["units"]["description"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            description.contains("Degrees Celsius"),
            "{target}: {description}"
        );
        assert!(
            description.contains("Degrees Fahrenheit"),
            "{target}: {description}"
        );
    }
}
