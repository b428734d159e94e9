//! `OneOfToAnyOf`: `oneOf` becomes `anyOf`.
//!
//! OpenAI strict mode and Gemini take `anyOf` but not `oneOf`. For the schemas Rust types produce
//! (enums whose variants are told apart by a tag or by their shape) at most one branch matches
//! anyway, so nothing a model can send changes meaning.

use schemars::Schema;
use schemars::transform::Transform;

use super::node::rename;
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Renames every `oneOf` to `anyOf` (in place). A node that already has an `anyOf` keeps its
/// `oneOf` (both must hold, and one keyword cannot say that); a note says where, and the strict
/// check then refuses the schema.
#[derive(Debug, Clone, Default)]
pub(crate) struct OneOfToAnyOf {
    pub(crate) rec: Recorder,
}

impl Transform for OneOfToAnyOf {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut()
            && node.contains_key("oneOf")
        {
            if rename(node, "oneOf", "anyOf") {
                self.rec.record(ChangeKind::Rewritten {
                    from: "`oneOf`".to_owned(),
                    to: "`anyOf`".to_owned(),
                });
                let here = self.rec.pointer.clone();
                self.rec
                    .moved(format!("{here}/oneOf"), format!("{here}/anyOf"));
            } else {
                self.rec.record(ChangeKind::Kept {
                    keyword: "oneOf".to_owned(),
                    why: "the node has an `anyOf` too, so it cannot become one; OpenAI strict \
                              mode and Gemini refuse it"
                        .to_owned(),
                });
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(OneOfToAnyOf);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn renames_in_place_everywhere() {
        let t = check(
            OneOfToAnyOf::default(),
            json_schema!({
                "description": "Shape.",
                "oneOf": [{"oneOf": [true, false]}, {"type": "null"}],
                "type": "object",
                "$defs": {"A": {"oneOf": [{}]}},
                "items": [{"oneOf": [{}]}]
            }),
            json_schema!({
                "description": "Shape.",
                "anyOf": [{"anyOf": [true, false]}, {"type": "null"}],
                "type": "object",
                "$defs": {"A": {"anyOf": [{}]}},
                "items": [{"anyOf": [{}]}]
            }),
        );
        assert_eq!(t.rec.changes().len(), 4);
    }

    #[test]
    fn keeps_one_of_next_to_any_of_with_a_note() {
        let both = json_schema!({"properties": {"x": {"oneOf": [{}], "anyOf": [{}]}}});
        let t = check(OneOfToAnyOf::default(), both.clone(), both);
        let changes = t.rec.changes();
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].pointer, "/properties/x");
        assert!(matches!(&changes[0].kind, ChangeKind::Kept { keyword, .. } if keyword == "oneOf"));
        check(
            OneOfToAnyOf::default(),
            json_schema!(false),
            json_schema!(false),
        );
    }
}
