//! Each target's pipeline on realistic schemas (what schemars emits for a tool's arguments).

use schemars::Schema;
use serde_json::{Map, Value, json};

use super::pipeline::TargetSchema;
use super::walk::for_each_subschema;
use super::{Policy, canonicalize, render_for, render_output_for};
use crate::RecursionPolicy;
use crate::report::{ChangeKind, Place, Recorder};
use crate::{SchemaError, Target};

/// The arguments of a weather tool, as schemars 1.x emits them: doc comments, a documented unit
/// enum, `Option`s, a tagged enum, integer formats, a defaulted field beside a `$ref`.
fn weather() -> Schema {
    let value = json!({"type":"object","properties":{"city":{"description":"The city.","type":"string"},"days":{"type":"integer","format":"uint32","minimum":1,"maximum":14,"default":3},"units":{"anyOf":[{"$ref":"#/$defs/Units"},{"type":"null"}]},"p":{"description":"where","anyOf":[{"$ref":"#/$defs/Point"},{"type":"null"}]},"pts":{"type":"array","items":{"$ref":"#/$defs/Point"}},"e":{"type":"string","format":"email","minLength":1,"maxLength":5},"shape":{"$ref":"#/$defs/Shape"},"n":{"type":["integer","null"],"format":"uint64","minimum":0},"u2":{"$ref":"#/$defs/Units","default":"celsius"}},"additionalProperties":false,"required":["city","pts","e","shape"],"$defs":{"Units":{"description":"Temperature units.","oneOf":[{"description":"Degrees Celsius.","type":"string","const":"celsius"},{"description":"Degrees Fahrenheit.","type":"string","const":"fahrenheit"}]},"Point":{"description":"A point.\n\nMore text.","type":"object","properties":{"x":{"type":"number","format":"double"},"y":{"type":"integer","format":"int32"},"z":{"type":"integer","format":"uint8","minimum":0,"maximum":255}},"required":["x","y","z"]},"Shape":{"oneOf":[{"type":"object","properties":{"kind":{"type":"string","const":"Circle"},"r":{"type":"number","format":"double"}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"type":"string","const":"Square"},"side":{"type":"number","format":"double"}},"required":["kind","side"]}]}}});
    canonicalize(
        Schema::try_from(value).expect("an object schema"),
        &mut Recorder::default(),
    )
}

/// Renders as a Rust tool asks: strict or not, recursion refused where `$ref` is unavailable.
fn render(canonical: &Schema, target: Target, strict: bool) -> Result<TargetSchema, SchemaError> {
    render_for(
        std::borrow::Cow::Borrowed(canonical),
        target,
        Policy {
            strict,
            recursion: RecursionPolicy::Refuse,
            place: Place::Input,
            profile: crate::Profile::Documented,
        },
    )
}

/// The reasons a rendering is not strict, as `pointer: why`.
fn not_strict(rendered: &TargetSchema) -> Vec<String> {
    rendered
        .changes
        .iter()
        .filter_map(|c| match &c.kind {
            ChangeKind::NotStrict { why } => Some(format!("{}: {why}", c.pointer)),
            _ => None,
        })
        .collect()
}

/// Every schema node of a rendered schema, with its JSON Pointer.
fn nodes(schema: &Map<String, Value>) -> Vec<(String, Value)> {
    fn visit(schema: &Schema, pointer: &str, out: &mut Vec<(String, Value)>) {
        out.push((pointer.to_owned(), schema.as_value().clone()));
        for_each_subschema(schema, |loc, sub| {
            let mut here = pointer.to_owned();
            loc.push_to(&mut here);
            visit(sub, &here, out);
        });
    }
    let mut out = Vec::new();
    visit(&Schema::from(schema.clone()), "", &mut out);
    out
}

fn property_order(schema: &Map<String, Value>) -> Vec<&str> {
    schema["properties"]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

const DECLARED: [&str; 9] = ["city", "days", "units", "p", "pts", "e", "shape", "n", "u2"];

fn description<'a>(schema: &'a Map<String, Value>, property: &str) -> &'a str {
    schema["properties"][property]["description"]
        .as_str()
        .unwrap_or_default()
}

/// What every target shares: order kept, defaults said last, no references left.
fn assert_common(rendered: &TargetSchema) {
    let schema = &rendered.schema;
    assert_eq!(schema["type"], "object");
    assert_eq!(property_order(schema), DECLARED);
    assert!(
        description(schema, "days").ends_with("Default: 3."),
        "{schema:?}"
    );
    assert!(
        description(schema, "u2").ends_with("Default: \"celsius\"."),
        "{schema:?}"
    );
    assert!(description(schema, "u2").contains("`celsius`: Degrees Celsius"));
    for (at, node) in nodes(schema) {
        let Value::Object(node) = node else { continue };
        for banned in ["$ref", "$defs", "$schema", "title"] {
            assert!(!node.contains_key(banned), "{banned} at {at}: {node:?}");
        }
    }
}

/// No schemars integer format but Gemini's `int32`/`int64` is left (MCP keeps them all).
fn assert_no_rust_formats(schema: &Map<String, Value>) {
    for (at, node) in nodes(schema) {
        let Value::Object(node) = node else { continue };
        if let Some(Value::String(format)) = node.get("format") {
            assert!(
                !format.starts_with("uint")
                    && !["int8", "int16", "uint"].contains(&format.as_str()),
                "{format} at {at}"
            );
        }
    }
}

/// `schema` without schemars' numeric formats, as every target but MCP renders it.
fn without_rust_formats(schema: &mut Value) {
    match schema {
        Value::Object(node) => {
            if node.get("format").and_then(Value::as_str).is_some_and(|f| {
                crate::schema::integer_range(f).is_some() || ["float", "double"].contains(&f)
            }) {
                node.shift_remove("format");
            }
            node.values_mut().for_each(without_rust_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(without_rust_formats),
        _ => {}
    }
}

fn assert_no_keyword(schema: &Map<String, Value>, keywords: &[&str]) {
    for (at, node) in nodes(schema) {
        if let Value::Object(node) = node {
            for keyword in keywords {
                assert!(
                    !node.contains_key(*keyword),
                    "`{keyword}` at `{at}`: {node:?}"
                );
            }
        }
    }
}

/// Every object node is closed and lists all its properties as required.
fn assert_strict_objects(schema: &Map<String, Value>) {
    for (at, node) in nodes(schema) {
        let Value::Object(node) = node else { continue };
        if let Some(Value::Object(properties)) = node.get("properties") {
            assert_eq!(
                node.get("additionalProperties"),
                Some(&Value::Bool(false)),
                "at `{at}`"
            );
            let required: Vec<&str> = node["required"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let names: Vec<&str> = properties.keys().map(String::as_str).collect();
            assert_eq!(required, names, "at `{at}`");
        }
    }
}

#[test]
fn mcp_keeps_json_schema_and_says_defaults() {
    let r = render(&weather(), Target::Mcp, true).unwrap();
    assert_common(&r);
    assert!(!r.strict);
    assert!(not_strict(&r).is_empty(), "{:?}", not_strict(&r));
    let s = &r.schema;
    // `default` stays (MCP is full JSON Schema), constraints stay, optional stays optional.
    assert_eq!(s["properties"]["days"]["default"], 3);
    assert_eq!(s["properties"]["days"]["maximum"], 14);
    // schemars' numeric formats stay (annotations), beside the bounds they imply.
    assert_eq!(s["properties"]["days"]["format"], "uint32");
    assert_eq!(
        s["properties"]["pts"]["items"]["properties"]["z"],
        json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        s["properties"]["n"],
        json!({"type": ["integer", "null"], "format": "uint64", "minimum": 0})
    );
    assert_eq!(
        s["properties"]["e"],
        json!({"type": "string", "format": "email", "minLength": 1, "maxLength": 5})
    );
    assert_eq!(s["required"], json!(["city", "pts", "e", "shape"]));
    assert_eq!(s["additionalProperties"], false);
    assert_eq!(
        s["properties"]["pts"]["items"]["additionalProperties"],
        false
    );
    assert_eq!(
        s["properties"]["pts"]["items"]["properties"]["y"],
        json!({"type": "integer", "format": "int32"})
    );
    assert_eq!(s["properties"]["u2"]["type"], "string");
    assert_eq!(
        s["properties"]["u2"]["enum"],
        json!(["celsius", "fahrenheit"])
    );
}

#[test]
fn openai_strict_makes_everything_required_and_nullable() {
    for target in [Target::ChatCompletions, Target::Responses] {
        let r = render(&weather(), target, true).unwrap();
        assert_common(&r);
        assert_no_rust_formats(&r.schema);
        assert!(r.strict, "{:?}", not_strict(&r));
        assert!(not_strict(&r).is_empty(), "{:?}", not_strict(&r));
        let s = &r.schema;
        assert_no_keyword(
            s,
            &[
                "default",
                "oneOf",
                "const",
                "allOf",
                "minLength",
                "maxLength",
                "exclusiveMinimum",
            ],
        );
        assert_strict_objects(s);
        assert_eq!(s["properties"]["days"]["type"], json!(["integer", "null"]));
        assert_eq!(
            s["properties"]["u2"]["enum"],
            json!(["celsius", "fahrenheit", null])
        );
        assert_eq!(s["properties"]["e"]["format"], "email");
        assert_eq!(
            description(s, "e"),
            "Must be between 1 and 5 characters long."
        );
        assert_eq!(
            s["properties"]["shape"]["anyOf"][0]["properties"]["kind"],
            json!({"type": "string", "enum": ["Circle"]})
        );
        assert_eq!(
            s["properties"]["units"]["anyOf"][1],
            json!({"type": "null"})
        );
    }
    // Both OpenAI targets get the same schema; only the wire shape differs.
    assert_eq!(
        render(&weather(), Target::ChatCompletions, true).unwrap(),
        render(&weather(), Target::Responses, true).unwrap()
    );
}

#[test]
fn openai_without_strict_keeps_optional_fields_optional() {
    let r = render(&weather(), Target::ChatCompletions, false).unwrap();
    assert_common(&r);
    assert_no_rust_formats(&r.schema);
    assert!(!r.strict);
    assert_eq!(r.schema["required"], json!(["city", "pts", "e", "shape"]));
    assert_eq!(r.schema["properties"]["days"]["type"], "integer");
    assert_no_keyword(&r.schema, &["default", "oneOf", "const"]);
}

#[test]
fn anthropic_is_mcp_without_the_default_keyword() {
    let r = render(&weather(), Target::Anthropic, true).unwrap();
    assert_common(&r);
    assert_no_rust_formats(&r.schema);
    assert!(!r.strict);
    assert_no_keyword(&r.schema, &["default"]);
    let mut mcp = render(&weather(), Target::Mcp, false).unwrap().schema;
    for (_, node) in mcp.iter_mut().filter(|(k, _)| *k == "properties") {
        for property in node.as_object_mut().unwrap().values_mut() {
            property.as_object_mut().unwrap().shift_remove("default");
        }
    }
    let mut mcp = Value::Object(mcp);
    without_rust_formats(&mut mcp);
    assert_eq!(Value::Object(r.schema).to_string(), mcp.to_string());
}

#[test]
fn gemini_has_only_its_openapi_subset() {
    let r = render(&weather(), Target::Gemini, true).unwrap();
    assert_common(&r);
    assert_no_rust_formats(&r.schema);
    assert!(!r.strict);
    let s = &r.schema;
    assert_no_keyword(
        s,
        &[
            "$ref",
            "$defs",
            "additionalProperties",
            "const",
            "oneOf",
            "allOf",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "default",
            "minLength",
            "maxLength",
        ],
    );
    for (at, node) in nodes(s) {
        let Value::Object(node) = node else {
            panic!("bool schema at {at}")
        };
        assert!(
            !matches!(node.get("type"), Some(Value::Array(_))),
            "type array at {at}"
        );
        if node.contains_key("enum") {
            assert_eq!(
                node.get("type"),
                Some(&json!("string")),
                "enum on a non-string at {at}"
            );
        }
        if let (Some(Value::String(f)), Some(ty)) = (node.get("format"), node.get("type")) {
            let ok = match ty.as_str() {
                Some("string") => ["enum", "date-time"].contains(&f.as_str()),
                Some("integer") => ["int32", "int64"].contains(&f.as_str()),
                Some("number") => ["float", "double"].contains(&f.as_str()),
                _ => false,
            };
            assert!(ok, "format {f} on {ty} at {at}");
        }
        if let Some(Value::Object(p)) = node.get("properties")
            && p.len() >= 2
        {
            let names: Vec<Value> = p.keys().map(|k| json!(k)).collect();
            assert_eq!(node["propertyOrdering"], Value::Array(names), "at {at}");
        }
    }
    assert_eq!(s["propertyOrdering"], json!(DECLARED));
    assert_eq!(
        s["properties"]["n"],
        json!({"type": "integer", "nullable": true, "minimum": 0})
    );
    assert_eq!(s["properties"]["units"]["nullable"], true);
    // The field's own description, not its type's glued after it.
    assert_eq!(s["properties"]["p"]["description"], "where");
    assert_eq!(
        s["properties"]["p"]["properties"]["y"],
        json!({"type": "integer", "format": "int32"})
    );
    assert_eq!(
        description(s, "e"),
        "Must be an email address. Must be between 1 and 5 characters long."
    );
    assert_eq!(description(s, "days"), "Default: 3.");
}

#[test]
fn rendering_never_mutates_and_is_deterministic() {
    let canonical = weather();
    let before = canonical.clone();
    for target in Target::ALL {
        let first = render(&canonical, target, true).unwrap();
        let second = render(&canonical, target, true).unwrap();
        assert_eq!(
            Value::Object(first.schema).to_string(),
            Value::Object(second.schema).to_string()
        );
    }
    assert_eq!(
        canonical.as_value().to_string(),
        before.as_value().to_string()
    );
}

/// A map and an untyped value cannot be strict: OpenAI falls back, saying why.
#[test]
fn strict_falls_back_with_reasons() {
    let canonical = canonicalize(
        Schema::try_from(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "extra": true,
                "limit": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255, "default": 10}
            },
            "required": ["tags", "extra"]
        }))
        .unwrap(),
        &mut Recorder::default(),
    );
    let r = render(&canonical, Target::Responses, true).unwrap();
    assert!(!r.strict);
    assert_eq!(
        not_strict(&r),
        [
            "/properties/tags: an open map (`additionalProperties` is a schema) cannot be strict",
            "/properties/extra: accepts any value (no `type`), which strict mode cannot express",
        ]
    );
    // The non-strict rendering: optional stays optional, the map stays a map.
    assert_eq!(
        Value::Object(r.schema).to_string(),
        json!({
            "type": "object",
            "properties": {
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "extra": true,
                "limit": {"description": "Default: 10.", "type": "integer", "minimum": 0, "maximum": 255}
            },
            "additionalProperties": false,
            "required": ["tags", "extra"]
        })
        .to_string()
    );
    let gemini = render(&canonical, Target::Gemini, false).unwrap();
    assert_eq!(
        gemini.schema["properties"]["tags"],
        json!({"description": "An object mapping any key to a string.", "type": "object"})
    );
    assert_eq!(gemini.schema["properties"]["extra"], json!({}));
}

fn recursive() -> Schema {
    Schema::try_from(json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
        "$defs": {"Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            },
            "required": ["name", "children"]
        }}
    }))
    .unwrap()
}

#[test]
fn recursion_is_kept_where_possible_and_refused_by_gemini() {
    for target in [Target::Mcp, Target::Anthropic, Target::ChatCompletions] {
        let r = render(&recursive(), target, true).unwrap();
        // A recursive type stays a reference wherever it is used, so that rendering the
        // rendering again writes out nothing more.
        assert_eq!(
            r.schema["properties"]["root"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            r.schema["$defs"]["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            r.schema["$defs"]["Node"]["additionalProperties"], false,
            "{target}"
        );
        if target.is_openai() {
            assert!(r.strict, "{:?}", not_strict(&r));
        }
    }
    assert_eq!(
        render(&recursive(), Target::Gemini, false),
        Err(SchemaError::Recursive {
            target: Target::Gemini,
            reference: "#/$defs/Node".into()
        })
    );
}

#[test]
fn roots_must_be_objects() {
    for target in Target::ALL {
        let string_root = Schema::try_from(json!({"type": "string"})).unwrap();
        assert_eq!(
            render(&string_root, target, true),
            Err(SchemaError::RootNotObject {
                target,
                found: "a string".into()
            })
        );
        let union_root =
            Schema::try_from(json!({"anyOf": [{"type": "object"}, {"type": "null"}]})).unwrap();
        // MCP takes root combinators but needs `"type": "object"`; the others fold the object
        // branch into the root (the arguments are never null).
        match (target, render(&union_root, target, true)) {
            (Target::Mcp, Err(SchemaError::RootNotObject { found, .. })) => {
                assert_eq!(found, "an `anyOf` of 2 schemas");
            }
            (Target::Mcp, other) => panic!("{other:?}"),
            (_, Ok(rendered)) => assert_eq!(rendered.schema["type"], "object", "{target}"),
            (_, other) => panic!("{target}: {other:?}"),
        }
    }
}

#[test]
fn no_parameters_render_as_an_empty_object() {
    for target in Target::ALL {
        let r = render(&Schema::from(true), target, true).unwrap();
        assert_eq!(r.schema["type"], "object");
        assert_eq!(r.schema["properties"], json!({}));
    }
    let openai = render(&Schema::from(true), Target::ChatCompletions, true).unwrap();
    assert!(openai.strict);
    assert_eq!(
        Value::Object(openai.schema).to_string(),
        r#"{"type":"object","properties":{},"additionalProperties":false,"required":[]}"#
    );
}

#[test]
fn mcp_output_schemas_stay_open() {
    let r = render_output_for(
        std::borrow::Cow::Owned(weather()),
        Target::Mcp,
        RecursionPolicy::Refuse,
    )
    .unwrap();
    assert_eq!(property_order(&r.schema), DECLARED);
    assert_eq!(
        r.schema["additionalProperties"], false,
        "declared by the type itself"
    );
    assert_eq!(
        r.schema["properties"]["pts"]["items"].get("additionalProperties"),
        None
    );
    assert_eq!(r.schema["properties"]["days"]["default"], 3);
    assert!(
        render_output_for(
            std::borrow::Cow::Owned(weather()),
            Target::Gemini,
            RecursionPolicy::Refuse
        )
        .is_ok()
    );
}

/// A foreign (pydantic, draft-07 style) schema: `definitions`, `allOf: [{$ref}]` with siblings,
/// titles on every property, a `const`, exclusive bounds.
#[test]
fn foreign_schema_through_every_target() {
    let foreign = canonicalize(
        Schema::try_from(json!({
            "title": "SearchArgs",
            "type": "object",
            "properties": {
                "query": {"title": "Query", "type": "string", "minLength": 1},
                "max_results": {"title": "Max Results", "type": "integer", "exclusiveMinimum": 0, "default": 10},
                "sort": {"allOf": [{"$ref": "#/definitions/Sort"}], "description": "How to sort.", "default": "relevance"},
                "version": {"const": 2},
                "score": {"type": "number", "exclusiveMaximum": 1}
            },
            "required": ["query"],
            "definitions": {"Sort": {"title": "Sort", "description": "Sort order.", "enum": ["relevance", "date"], "type": "string"}}
        }))
        .unwrap(),
        &mut Recorder::default(),
    );
    let gemini = render(&foreign, Target::Gemini, false).unwrap().schema;
    assert_eq!(
        Value::Object(gemini).to_string(),
        json!({
            "type": "object",
            "properties": {
                "query": {"description": "Must be at least 1 character long.", "type": "string"},
                "max_results": {"description": "Default: 10.", "type": "integer", "minimum": 1},
                "sort": {"description": "How to sort. Sort order. Default: \"relevance\".", "enum": ["relevance", "date"], "type": "string"},
                "version": {"description": "Must be 2."},
                "score": {"description": "Must be less than 1.", "type": "number"}
            },
            "propertyOrdering": ["query", "max_results", "sort", "version", "score"],
            "required": ["query"]
        })
        .to_string()
    );
    let openai = render(&foreign, Target::ChatCompletions, true).unwrap();
    assert!(openai.strict, "{:?}", not_strict(&openai));
    assert_eq!(
        openai.schema["properties"]["max_results"],
        json!({"description": "Default: 10.", "type": ["integer", "null"], "exclusiveMinimum": 0})
    );
    assert_eq!(
        openai.schema["properties"]["version"],
        json!({"anyOf": [{"enum": [2]}, {"type": "null"}]})
    );
    assert_eq!(
        openai.schema["properties"]["sort"]["enum"],
        json!(["relevance", "date", null])
    );
    let mcp = render(&foreign, Target::Mcp, true).unwrap();
    assert_eq!(
        mcp.schema["properties"]["max_results"],
        json!({"description": "Default: 10.", "type": "integer", "exclusiveMinimum": 0, "default": 10})
    );
}

#[test]
fn gemini_json_schema_keeps_what_gemini_documents_and_describes_the_rest() {
    let canonical = canonicalize(
        Schema::try_from(json!({
            "type": "object",
            "properties": {
                "tags": {"type": "object", "additionalProperties": {"type": "integer"}},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
                         "items": false},
                "maybe": {"type": ["string", "null"], "format": "date"},
                "email": {"type": "string", "format": "email", "pattern": "^[a-z]+@", "maxLength": 9},
                "count": {"type": "integer", "exclusiveMinimum": 0, "default": 3},
                "mode": {"type": "string", "const": "fast"},
                "shape": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "tree": {"$ref": "#/$defs/Tree"}
            },
            "required": ["tags"],
            "$defs": {"Tree": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
        }))
        .expect("an object schema"),
        &mut Recorder::default(),
    );
    let rendered = render(&canonical, Target::GeminiJsonSchema, false).unwrap();
    let schema = Value::Object(rendered.schema);
    let at = |pointer: &str| schema.pointer(pointer).cloned().unwrap_or(Value::Null);
    // Kept: maps, tuples, `null` in a type list, documented formats, `$ref` for recursion.
    assert_eq!(
        at("/properties/tags/additionalProperties"),
        json!({"type": "integer"})
    );
    assert_eq!(
        at("/properties/pair/prefixItems/1"),
        json!({"type": "integer"})
    );
    assert_eq!(at("/properties/maybe/type"), json!(["string", "null"]));
    assert_eq!(at("/properties/maybe/format"), json!("date"));
    assert_eq!(at("/properties/tree/$ref"), json!("#/$defs/Tree"));
    assert_eq!(
        at("/$defs/Tree/properties/children/items/$ref"),
        json!("#/$defs/Tree")
    );
    // Rewritten: an integer's exclusive bound, `const`, `oneOf`.
    assert_eq!(at("/properties/count/minimum"), json!(1));
    assert_eq!(at("/properties/mode/enum"), json!(["fast"]));
    assert!(at("/properties/shape/anyOf").is_array(), "{schema}");
    // Said in words: what Gemini ignores.
    let email = at("/properties/email");
    for gone in ["format", "pattern", "maxLength"] {
        assert_eq!(email.get(gone), None, "{email}");
    }
    let words = email["description"].as_str().unwrap_or_default();
    assert!(
        words.contains("an email address") && words.contains("^[a-z]+@"),
        "{words}"
    );
    assert_eq!(at("/properties/count/default"), Value::Null);
    assert_eq!(at("/properties/count/description"), json!("Default: 3."));
    assert_eq!(schema["additionalProperties"], false);
}
