//! A schema its author wrote, rendered for MCP: as written (MCP SEP-1613).
//!
//! MCP's dialect is JSON Schema 2020-12 (or the one a schema's `$schema` declares), and MCP
//! clients validate against it: none of the rewrites the other targets need (inlining `$ref`s,
//! closing objects, saying `default` in words) applies, and each would change what the author
//! said (a closed object refuses what the author allowed). The one thing MCP itself requires
//! of an `inputSchema` is a root `"type": "object"`: it is added where the root leaves it out,
//! and the report says so. A root that is not an object at all is refused, as for every target.

use schemars::Schema;
use serde_json::{Map, Value, json};

use super::pipeline::TargetSchema;
use super::root::object_root;
use crate::report::{ChangeKind, Place, Recorder};
use crate::{SchemaError, Target};

/// Keywords that stay before an added `type`, where a schema's author puts them: what the
/// schema is (`$schema`, `$id`) before what it says.
const IDENTIFIERS: &[&str] = &["$schema", "$id"];

/// The MCP `inputSchema` of a written schema: the schema as written, with a root
/// `"type": "object"` where it has none (or `["object"]`, said as the one string MCP takes).
pub(crate) fn as_written(written: &Schema) -> Result<TargetSchema, SchemaError> {
    let mut rec = Recorder::default();
    let schema = match written.as_value() {
        // `true` allows any arguments: an object of anything, said as MCP wants it.
        Value::Bool(true) => {
            record_added_type(&mut rec);
            Schema::from(Map::from_iter([("type".to_owned(), json!("object"))]))
        }
        Value::Object(root) => match root.get("type") {
            None => {
                let mut root = root.clone();
                let at = root
                    .keys()
                    .take_while(|key| IDENTIFIERS.contains(&key.as_str()))
                    .count();
                root.shift_insert(at, "type".to_owned(), json!("object"));
                record_added_type(&mut rec);
                Schema::from(root)
            }
            Some(Value::Array(types)) if types.as_slice() == [json!("object")] => {
                let mut root = root.clone();
                root.insert("type".to_owned(), json!("object"));
                rec.record(ChangeKind::Rewritten {
                    from: "`type: [\"object\"]`".to_owned(),
                    to: "`type: \"object\"`: MCP wants the root's `type` to be the string `object`"
                        .to_owned(),
                });
                Schema::from(root)
            }
            _ => written.clone(),
        },
        _ => written.clone(),
    };
    Ok(TargetSchema {
        schema: object_root(schema, Target::Mcp)?,
        strict: false,
        changes: rec.take(Place::Input),
    })
}

fn record_added_type(rec: &mut Recorder) {
    rec.record(ChangeKind::Added {
        keyword: "type".to_owned(),
        why: "`object`: MCP requires the root of a tool's `inputSchema` to say it".to_owned(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Change;
    use schemars::json_schema;

    fn rendered(schema: Schema) -> (Value, Vec<Change>) {
        let rendered = as_written(&schema).unwrap();
        (Value::Object(rendered.schema), rendered.changes)
    }

    #[test]
    fn a_schema_with_an_object_root_is_kept_to_the_byte() {
        let written = json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Shipping",
            "type": "object",
            "properties": {
                "address": {"$ref": "#/$defs/address"},
                "note": {"type": "string", "default": "none", "x-custom": [1, 2]}
            },
            "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}}}},
            "additionalProperties": false
        });
        let (schema, changes) = rendered(written.clone());
        // The schema's own key order (schemars' `Serialize` would put `$defs` last).
        assert_eq!(
            serde_json::to_string(&schema).unwrap(),
            serde_json::to_string(written.as_value()).unwrap()
        );
        assert!(changes.is_empty(), "{changes:?}");
    }

    #[test]
    fn a_root_type_is_added_after_the_identifiers_and_reported() {
        let (schema, changes) = rendered(json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {"a": {"type": "string"}}
        }));
        assert_eq!(
            serde_json::to_string(&schema).unwrap(),
            r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}}}"#
        );
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].pointer, "");
        assert!(
            matches!(&changes[0].kind, ChangeKind::Added { keyword, .. } if keyword == "type"),
            "{changes:?}"
        );

        let (schema, changes) = rendered(json_schema!(true));
        assert_eq!(schema, json!({"type": "object"}));
        assert_eq!(changes.len(), 1);

        let (schema, changes) = rendered(json_schema!({"type": ["object"], "properties": {}}));
        assert_eq!(schema, json!({"type": "object", "properties": {}}));
        assert!(
            matches!(&changes[0].kind, ChangeKind::Rewritten { .. }),
            "{changes:?}"
        );
    }

    #[test]
    fn roots_that_are_not_objects_are_refused() {
        for (schema, found) in [
            (json_schema!({"type": "string"}), "a string"),
            (
                json_schema!({"type": ["object", "null"]}),
                "an object or null",
            ),
            (
                json_schema!(false),
                "the `false` schema, which accepts nothing",
            ),
        ] {
            assert_eq!(
                as_written(&schema),
                Err(SchemaError::RootNotObject {
                    target: Target::Mcp,
                    found: found.to_owned()
                })
            );
        }
    }
}
