//! `OneOfToAnyOf`: `oneOf` becomes `anyOf`.
//!
//! OpenAI strict mode and Gemini take `anyOf` but not `oneOf`. For the schemas Rust types produce
//! (enums whose variants are told apart by a tag or by their shape) at most one branch matches
//! anyway, so nothing a model can send changes meaning.

use schemars::Schema;
use schemars::transform::Transform;

use super::node::rename;
use super::walk::{Tracked, show_pointer, transform_subschemas_tracked};

/// Renames every `oneOf` to `anyOf` (in place). A node that already has an `anyOf` keeps its
/// `oneOf` (both must hold, and one keyword cannot say that); a note says where, and the strict
/// check then refuses the schema.
#[derive(Debug, Clone, Default)]
pub(crate) struct OneOfToAnyOf {
    /// Where a `oneOf` had to be kept.
    pub notes: Vec<String>,
    pointer: String,
}

impl Transform for OneOfToAnyOf {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            if node.contains_key("oneOf") && !rename(node, "oneOf", "anyOf") {
                self.notes.push(format!(
                    "{}: has both `oneOf` and `anyOf`; `oneOf` was kept",
                    show_pointer(&self.pointer)
                ));
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

impl Tracked for OneOfToAnyOf {
    fn pointer_mut(&mut self) -> &mut String {
        &mut self.pointer
    }
}

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
        assert!(t.notes.is_empty());
    }

    #[test]
    fn keeps_one_of_next_to_any_of_with_a_note() {
        let both = json_schema!({"properties": {"x": {"oneOf": [{}], "anyOf": [{}]}}});
        let t = check(OneOfToAnyOf::default(), both.clone(), both);
        assert_eq!(
            t.notes,
            ["`/properties/x`: has both `oneOf` and `anyOf`; `oneOf` was kept"]
        );
        check(
            OneOfToAnyOf::default(),
            json_schema!(false),
            json_schema!(false),
        );
    }
}
