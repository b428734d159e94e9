//! The canonical form of an input schema: what every target's rendering starts from.

use schemars::Schema;

use serde_json::{Map, Value};

use schemars::transform::Transform;

use super::dialect::Dialect;
use super::loose_lists::{RepairLooseLists, has_loose_lists};
use super::node::{get, has, place_description, take};
use super::upgrade::UpgradeDialect;
use crate::report::{ChangeKind, Place, Recorder};

/// Canonical normalisation of a schemars-generated (or foreign) root schema: removes `$schema`
/// and the root `title`, and gives a closed object root (`additionalProperties: false`) without
/// `properties` an empty `properties`; each node's `description` is put before its bounds
/// (`DescriptionsFirst`); nothing else changes. Draft 2020-12, declaration order kept.
///
/// The root `title` is the Rust type's name or its doc's first line; the tool's own name and
/// description already say that, and no target wants it in the parameters. A tool without
/// parameters (schemars: `{"type": "object", "additionalProperties": false}`) says so with
/// `"properties": {}`, which OpenAI requires of every object schema.
pub(crate) fn canonicalize(schema: Schema, rec: &mut Recorder) -> Schema {
    let mut schema = canonicalize_output(schema, rec);
    if let Some(root) = schema.as_object_mut() {
        let is_object = get(root, "type").and_then(Value::as_str) == Some("object");
        let closed = matches!(
            get(root, "additionalProperties"),
            None | Some(Value::Bool(false))
        );
        // A root that composes its properties (`anyOf` of objects, say) declares them there.
        let composed = ["anyOf", "oneOf", "allOf", "$ref"]
            .iter()
            .any(|k| has(root, k));
        if is_object && closed && !composed && !has(root, "properties") {
            let at = root.keys().position(|k| k == "type").map_or(0, |i| i + 1);
            root.shift_insert(at, "properties".to_owned(), Value::Object(Map::new()));
            rec.record(ChangeKind::Added {
                keyword: "properties".to_owned(),
                why: "`{}`: the tool takes no arguments (OpenAI requires `properties` on every object)"
                    .to_owned(),
            });
        }
    }
    schema
}

/// What [`canonicalize`] does to any schema, an output schema's whole canonical form: said in
/// 2020-12, `f32` data as written, descriptions first, no `$schema` or root `title`. A result's
/// `{"type": "object"}` is any object, not "no arguments", so it gets no `properties`.
pub(crate) fn canonicalize_output(mut schema: Schema, rec: &mut Recorder) -> Schema {
    in_2020_12(&mut schema, rec);
    if let Some(root) = schema.as_object_mut() {
        let mut value = Value::Object(std::mem::take(root));
        f32_data_as_written(&mut value);
        if let Value::Object(map) = value {
            *root = map;
        }
    }
    DescriptionsFirst.transform(&mut schema);
    if let Some(root) = schema.as_object_mut() {
        drop_dialect_and_title(root, rec);
    }
    schema
}

/// Every node's `title` and `description` before the keywords that bound its values
/// (`node::place_description`), so that each rendering reads type, description, bounds. schemars
/// writes a field's doc after its type's own keywords and before the field's `#[schemars]`
/// validations: a documented `u32` with `range(min = 1, max = 14)` comes as `format, minimum,
/// description, maximum`. Only the order of keys changes, so nothing is recorded.
struct DescriptionsFirst;

impl Transform for DescriptionsFirst {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            place_description(node);
        }
        schemars::transform::transform_subschemas(self, schema);
    }
}

/// A foreign schema as the 2020-12 it will be rendered as (its `$schema` goes next): the lists
/// it wrote loosely repaired (`RepairLooseLists`), and an older draft's keywords said in
/// 2020-12's (`UpgradeDialect`). `convert` has refused what is not valid in its dialect, and
/// what declares an unknown one, so the dialect here is known. A schemars schema (2020-12,
/// valid) goes through unchanged.
fn in_2020_12(schema: &mut Schema, rec: &mut Recorder) {
    let mut repair = RepairLooseLists::default();
    // A look costs less than a recording walk, and finds nothing in nearly every schema.
    if has_loose_lists(schema) {
        repair.transform(schema);
    }
    let dialect = Dialect::declared(schema.as_value()).unwrap_or_default();
    let mut upgrade = UpgradeDialect::new(dialect);
    upgrade.transform(schema);
    for change in [repair.rec, upgrade.rec]
        .iter_mut()
        .flat_map(|r| r.take(Place::Input))
    {
        rec.record_at(change.pointer, change.kind);
    }
}

/// `f32` values in `default` and `examples` as the user wrote them: schemars records them
/// through an `f64`, so `0.1_f32` would be shown as `0.10000000149011612`. Each number that an
/// `f32` schema (`format: float`) describes becomes the shortest decimal that is the same `f32`.
fn f32_data_as_written(schema: &mut Value) {
    if !crate::arguments::has_format(schema, "float") {
        return;
    }
    let root = schema.clone();
    let mut pending = vec![schema];
    while let Some(node) = pending.pop() {
        match node {
            Value::Object(map) => {
                if map.contains_key("default") || map.contains_key("examples") {
                    let described_by = Value::Object(map.clone());
                    if let Some(default) = map.get_mut("default") {
                        as_written(default, &described_by, &root);
                    }
                    if let Some(Value::Array(examples)) = map.get_mut("examples") {
                        for example in examples {
                            as_written(example, &described_by, &root);
                        }
                    }
                }
                pending.extend(
                    map.iter_mut()
                        .filter(|(k, _)| {
                            !matches!(k.as_str(), "default" | "examples" | "enum" | "const")
                        })
                        .map(|(_, v)| v),
                );
            }
            Value::Array(items) => pending.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// The numbers of `data` that `schema` says are `f32`s, as the shortest decimal of that `f32`.
fn as_written(data: &mut Value, schema: &Value, root: &Value) {
    crate::instance::walk_mut(data, schema, root, &mut |value, branches| {
        let is_f32 = |b: &&Value| b.get("format").and_then(Value::as_str) == Some("float");
        let Some(wide) = value.as_f64() else { return };
        if !value.is_f64() || !branches.iter().any(is_f32) {
            return;
        }
        let narrow = wide as f32;
        if f64::from(narrow) == wide
            && let Some(short) = narrow
                .to_string()
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
        {
            *value = Value::Number(short);
        }
    });
}

/// Removes the root's `$schema` and `title`, which no target wants in its parameters.
pub(crate) fn drop_dialect_and_title(root: &mut Map<String, Value>, rec: &mut Recorder) {
    for (keyword, why) in [
        ("$schema", "the dialect is the target's own"),
        (
            "title",
            "the tool's name and description say what the arguments are",
        ),
    ] {
        if take(root, keyword).is_some() {
            rec.record(ChangeKind::Removed {
                keyword: keyword.to_owned(),
                why: why.to_owned(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::assert_same;
    use schemars::json_schema;

    fn canonicalize_alone(schema: Schema) -> Schema {
        canonicalize(schema, &mut Recorder::default())
    }

    #[test]
    fn drops_schema_and_root_title_only() {
        let schema = json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {"b": {"title": "B", "type": "string"}, "a": {"type": "integer"}},
            "required": ["b"]
        });
        assert_same(
            &canonicalize_alone(schema),
            &json_schema!({
                "type": "object",
                "properties": {"b": {"title": "B", "type": "string"}, "a": {"type": "integer"}},
                "required": ["b"]
            }),
        );
    }

    #[test]
    fn a_closed_object_without_properties_gets_empty_properties() {
        let schema = json_schema!({"type": "object", "additionalProperties": false});
        assert_same(
            &canonicalize_alone(schema),
            &json_schema!({"type": "object", "properties": {}, "additionalProperties": false}),
        );
        // A map keeps its shape: it has no properties by design.
        let map = json_schema!({"type": "object", "additionalProperties": {"type": "string"}});
        assert_same(&canonicalize_alone(map.clone()), &map);
    }

    #[test]
    fn descriptions_come_before_bounds_at_every_depth() {
        // As schemars writes a documented `u32` field with `range(max = 14)`.
        let schema = json_schema!({
            "type": "object",
            "properties": {"days": {"type": "array", "items": {
                "type": "integer", "format": "uint32", "minimum": 0, "description": "d", "maximum": 14
            }, "description": "Days.", "maxItems": 3}}
        });
        let canonical = canonicalize_alone(schema);
        let days = &canonical.as_value()["properties"]["days"];
        let keys = |node: &Value| {
            node.as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(keys(days), ["type", "items", "description", "maxItems"]);
        assert_eq!(
            keys(&days["items"]),
            ["type", "description", "format", "minimum", "maximum"]
        );
    }

    #[test]
    fn bool_roots_are_unchanged() {
        assert_same(&canonicalize_alone(json_schema!(true)), &json_schema!(true));
        assert_same(
            &canonicalize_alone(json_schema!(false)),
            &json_schema!(false),
        );
    }
}
