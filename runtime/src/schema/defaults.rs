//! `DescribeDefaults`: every `default` is said in words, as the last sentence.
//!
//! OpenAI (strict, and Azure) and Gemini reject or ignore `default`; even where it is accepted,
//! models read descriptions, not keywords. The sentence comes last ("… Default: 3."), so this
//! transform runs after every other one that appends sentences.

use schemars::Schema;
use schemars::transform::Transform;

use super::describe::{append_sentences, default_sentence};
use super::node::take;
use super::walk::transform_subschemas_all;

/// Appends "Default: <compact JSON>." to the description of every node with a `default`, and
/// removes the keyword unless `keep_keyword` (MCP, which is full JSON Schema).
#[derive(Debug, Clone, Default)]
pub(crate) struct DescribeDefaults {
    /// Keep the `default` keyword after describing it.
    pub keep_keyword: bool,
}

impl Transform for DescribeDefaults {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut() {
            if let Some(value) = node.get("default").cloned() {
                append_sentences(node, &[default_sentence(&value)]);
                if !self.keep_keyword {
                    take(node, "default");
                }
            }
        }
        transform_subschemas_all(self, schema);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn defaults_end_descriptions() {
        let input = json_schema!({"properties": {
            "days": {"description": "How many days", "type": "integer", "default": 3},
            "mode": {"type": "string", "default": "auto"},
            "opts": {"type": "object", "default": {"a": [1, null]}},
            "n": {"anyOf": [{"type": "string", "default": null}]}
        }});
        check(
            DescribeDefaults {
                keep_keyword: false,
            },
            input.clone(),
            json_schema!({"properties": {
                "days": {"description": "How many days. Default: 3.", "type": "integer"},
                "mode": {"description": "Default: \"auto\".", "type": "string"},
                "opts": {"description": "Default: {\"a\":[1,null]}.", "type": "object"},
                "n": {"anyOf": [{"description": "Default: null.", "type": "string"}]}
            }}),
        );
        check(
            DescribeDefaults { keep_keyword: true },
            input,
            json_schema!({"properties": {
                "days": {"description": "How many days. Default: 3.", "type": "integer", "default": 3},
                "mode": {"description": "Default: \"auto\".", "type": "string", "default": "auto"},
                "opts": {"description": "Default: {\"a\":[1,null]}.", "type": "object", "default": {"a": [1, null]}},
                "n": {"anyOf": [{"description": "Default: null.", "type": "string", "default": null}]}
            }}),
        );
    }

    #[test]
    fn defaults_in_data_are_not_schemas() {
        let data = json_schema!({
            "default": {"default": 1},
            "enum": [{"default": 2}],
            "dependentSchemas": {"a": {"default": 4}}
        });
        check(
            DescribeDefaults {
                keep_keyword: false,
            },
            data,
            json_schema!({
                "description": "Default: {\"default\":1}.",
                "enum": [{"default": 2}],
                "dependentSchemas": {"a": {"description": "Default: 4."}}
            }),
        );
        check(
            DescribeDefaults::default(),
            json_schema!(false),
            json_schema!(false),
        );
    }
}
