//! `ConstToEnum`: `const: C` becomes `enum: [C]`.
//!
//! OpenAI strict mode and Gemini do not take `const`; a one-value `enum` says the same thing.
//! This is schemars' `ReplaceConstValue`, but over every subschema location and keeping the
//! keyword where it was.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::describe::{append_sentences, const_sentence};
use super::node::{rename, take};
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Rewrites every `const: C` as `enum: [C]` (in place). Next to an existing `enum` that
/// contains `C`, the `enum` narrows to `[C]`; next to one that does not (a schema nothing
/// satisfies), the `const` moves into the description ("Must be `a`."), as a target without
/// `const` can carry it no other way.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConstToEnum {
    pub(crate) rec: Recorder,
}

impl Transform for ConstToEnum {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut()
            && let Some(change) = const_to_enum(node)
        {
            self.rec.record(change);
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(ConstToEnum);

fn const_to_enum(node: &mut Map<String, Value>) -> Option<ChangeKind> {
    let value = node.get("const").cloned()?;
    match node.get_mut("enum") {
        None => rename(node, "const", "enum").then(|| {
            node.insert("enum".into(), Value::Array(vec![value]));
            ChangeKind::Rewritten {
                from: "`const`".to_owned(),
                to: "`enum` of one value".to_owned(),
            }
        }),
        Some(Value::Array(values)) if values.contains(&value) => {
            *values = vec![value];
            take(node, "const");
            Some(ChangeKind::Rewritten {
                from: "`const` beside an `enum`".to_owned(),
                to: "an `enum` of the constant alone".to_owned(),
            })
        }
        Some(_) => {
            take(node, "const");
            let sentence = const_sentence(&value);
            append_sentences(node, std::slice::from_ref(&sentence));
            Some(ChangeKind::Described {
                keywords: vec!["const".to_owned()],
                sentence,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn const_becomes_enum_in_place() {
        check(
            ConstToEnum::default(),
            json_schema!({"type": "string", "const": "Circle", "description": "Kind."}),
            json_schema!({"type": "string", "enum": ["Circle"], "description": "Kind."}),
        );
    }

    #[test]
    fn everywhere_and_odd_values() {
        check(
            ConstToEnum::default(),
            json_schema!({
                "anyOf": [{"const": null}, {"const": {"a": 1}}],
                "dependentSchemas": {"x": {"const": 1}},
                "unevaluatedProperties": {"const": true},
                "enum": [{"const": "data, not a schema"}]
            }),
            json_schema!({
                "anyOf": [{"enum": [null]}, {"enum": [{"a": 1}]}],
                "dependentSchemas": {"x": {"enum": [1]}},
                "unevaluatedProperties": {"enum": [true]},
                "enum": [{"const": "data, not a schema"}]
            }),
        );
        check(
            ConstToEnum::default(),
            json_schema!(true),
            json_schema!(true),
        );
    }

    #[test]
    fn next_to_an_enum() {
        check(
            ConstToEnum::default(),
            json_schema!({"enum": ["a", "b"], "const": "a"}),
            json_schema!({"enum": ["a"]}),
        );
        // Nothing satisfies both: the `const` is said, not sent.
        check(
            ConstToEnum::default(),
            json_schema!({"enum": ["a"], "const": "z"}),
            json_schema!({"description": "Must be `z`.", "enum": ["a"]}),
        );
    }
}
