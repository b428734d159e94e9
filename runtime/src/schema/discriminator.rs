//! `DanglingDiscriminators`: a `discriminator`'s `mapping` never points at nothing.
//!
//! OpenAPI's and pydantic's `discriminator` (`{"propertyName": "kind", "mapping": {"medium":
//! "#/$defs/MediumPerturbation", …}}`) names the property that tells a union's branches apart,
//! and maps each of its values to the branch's schema by JSON Pointer, most often into `$defs`.
//! Every rendering writes `$defs` out where they are used and drops them (`InlineRefs`; only a
//! recursive definition stays), so such a pointer would lead nowhere: a client or provider that
//! follows it fails, and one that does not reads a false statement. The `mapping` goes wherever
//! one of its pointers no longer resolves; the `propertyName` stays, since it is still true and
//! the target keeps or says it (each branch's `const`, or `enum` of one value, on that property
//! says which value is which branch, so nothing the mapping said is lost). A `discriminator`
//! without a `propertyName` has nothing left to say and goes whole.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::inline_refs::{parse_ref, resolve};
use super::walk::{for_each_subschema, recording, reserve_pointer};
use crate::report::{ChangeKind, Recorder};

/// The keyword.
pub(crate) const DISCRIMINATOR: &str = "discriminator";

/// Removes every `discriminator` `mapping` with a pointer that does not resolve in the schema
/// (run on the root, after `$ref`s are inlined).
#[derive(Debug, Clone, Default)]
pub(crate) struct DanglingDiscriminators {
    pub(crate) rec: Recorder,
}

impl Transform for DanglingDiscriminators {
    /// Run on the root only: whether a pointer resolves is a question about the whole schema.
    fn transform(&mut self, schema: &mut Schema) {
        let mut dangling = Vec::new();
        let mut pointer = String::new();
        reserve_pointer(&mut pointer);
        find_dangling(schema, schema.as_value(), &mut pointer, &mut dangling);
        for (at, targets) in dangling {
            let Some(Value::Object(node)) = schema.pointer_mut(&at) else {
                continue;
            };
            if let Some(change) = drop_mapping(node, &targets) {
                self.rec.record_at(at, change);
            }
        }
    }
}

recording!(DanglingDiscriminators);

/// The nodes under `schema` whose `discriminator` maps to a pointer that does not resolve in
/// `root`, with the pointers that do not.
fn find_dangling(
    schema: &Schema,
    root: &Value,
    pointer: &mut String,
    out: &mut Vec<(String, Vec<String>)>,
) {
    if let Some(Value::Object(mapping)) = schema.get(DISCRIMINATOR).and_then(|d| d.get("mapping")) {
        let dangling: Vec<String> = mapping
            .values()
            .filter_map(Value::as_str)
            .filter(|target| leads_nowhere(root, target))
            .map(str::to_owned)
            .collect();
        if !dangling.is_empty() {
            out.push((pointer.clone(), dangling));
        }
    }
    for_each_subschema(schema, |loc, sub| {
        let len = pointer.len();
        loc.push_to(pointer);
        find_dangling(sub, root, pointer, out);
        pointer.truncate(len);
    });
}

/// Whether `target` is a local JSON Pointer (`#/$defs/A`) to no schema of `root`. A name
/// (OpenAPI's `Cat`, for `#/components/schemas/Cat`) or a remote reference is not one tooldef
/// can follow or break, and is left as written.
fn leads_nowhere(root: &Value, target: &str) -> bool {
    target.starts_with('#') && parse_ref(target).is_none_or(|path| resolve(root, &path).is_none())
}

/// Takes the `mapping` out of the node's `discriminator` (the whole `discriminator` when it has
/// no `propertyName`); what was done, for the report.
fn drop_mapping(node: &mut Map<String, Value>, dangling: &[String]) -> Option<ChangeKind> {
    let listed: Vec<String> = dangling.iter().map(|t| format!("`{t}`")).collect();
    let why = format!(
        "its `mapping` pointed at {}, which are written out where they are used (`$defs` are \
         inlined), so the pointers would lead nowhere",
        listed.join(", ")
    );
    let Some(Value::Object(discriminator)) = node.get_mut(DISCRIMINATOR) else {
        return None;
    };
    discriminator.shift_remove("mapping");
    match discriminator.get("propertyName").and_then(Value::as_str) {
        Some(name) => Some(ChangeKind::Rewritten {
            from: "`discriminator` with a `mapping`".to_owned(),
            to: format!(
                "`discriminator` with its `propertyName` (`{name}`) alone: {why}; each branch's \
                 `{name}` still says which branch a value takes"
            ),
        }),
        None => {
            node.shift_remove(DISCRIMINATOR);
            Some(ChangeKind::Removed {
                keyword: DISCRIMINATOR.to_owned(),
                why: format!("{why}, and it names no `propertyName`"),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::json_schema;

    fn run(schema: Schema) -> (Schema, Vec<String>) {
        let mut t = DanglingDiscriminators::default();
        let mut schema = schema;
        t.transform(&mut schema);
        let changes = t
            .rec
            .take(crate::report::Place::Input)
            .iter()
            .map(ToString::to_string)
            .collect();
        (schema, changes)
    }

    #[test]
    fn a_mapping_into_inlined_definitions_goes_and_the_property_name_stays() {
        let (schema, changes) = run(json_schema!({
            "type": "object",
            "properties": {"p": {
                "discriminator": {"propertyName": "kind", "mapping": {"a": "#/$defs/A", "b": "#/$defs/B"}},
                "anyOf": [{"properties": {"kind": {"const": "a"}}}, {"properties": {"kind": {"const": "b"}}}]
            }}
        }));
        assert_eq!(
            schema.pointer("/properties/p/discriminator"),
            Some(&serde_json::json!({"propertyName": "kind"}))
        );
        assert_eq!(
            changes,
            [
                "`/properties/p`: `discriminator` with a `mapping` rewritten as `discriminator` with \
              its `propertyName` (`kind`) alone: its `mapping` pointed at `#/$defs/A`, \
              `#/$defs/B`, which are written out where they are used (`$defs` are inlined), so \
              the pointers would lead nowhere; each branch's `kind` still says which branch a \
              value takes"
            ]
        );
    }

    #[test]
    fn a_mapping_that_resolves_or_names_schemas_is_kept() {
        let kept = json_schema!({
            "$defs": {"Tree": {"type": "object", "properties": {"up": {"$ref": "#/$defs/Tree"}}}},
            "discriminator": {"propertyName": "kind", "mapping": {"t": "#/$defs/Tree", "c": "Cat"}},
            "anyOf": [{"$ref": "#/$defs/Tree"}]
        });
        let (schema, changes) = run(kept.clone());
        assert_eq!(schema, kept);
        assert!(changes.is_empty());
    }

    #[test]
    fn without_a_property_name_the_discriminator_goes_whole() {
        let (schema, changes) = run(json_schema!({
            "items": {"discriminator": {"mapping": {"a": "#/$defs/A%20B"}}, "description": "x"}
        }));
        assert_eq!(schema, json_schema!({"items": {"description": "x"}}));
        assert_eq!(changes.len(), 1);
        assert!(
            changes[0].starts_with("`/items`: `discriminator` removed"),
            "{changes:?}"
        );
        // Odd values are left alone.
        let odd = json_schema!({"discriminator": "kind", "properties": {"a": {"discriminator": {"mapping": [1]}}}});
        assert_eq!(run(odd.clone()).0, odd);
    }
}
