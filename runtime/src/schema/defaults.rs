//! `DescribeDefaults`: every `default` is said in words, as the last sentence.
//!
//! OpenAI (strict, and Azure) and Gemini reject or ignore `default`; even where it is accepted,
//! models read descriptions, not keywords. The sentence comes last ("… Default: 3."), so this
//! transform runs after every other one that appends sentences.

use schemars::Schema;
use schemars::transform::Transform;

use super::describe::{append_sentences, default_sentence, says};
use super::node::take;
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// Appends "Default: <compact JSON>." to the description of every node with a `default`, and
/// removes the keyword unless `keep_keyword` (MCP, which is full JSON Schema).
#[derive(Debug, Clone, Default)]
pub(crate) struct DescribeDefaults {
    /// Keep the `default` keyword after describing it.
    pub keep_keyword: bool,
    /// What was said and removed.
    pub rec: Recorder,
}

impl DescribeDefaults {
    /// Says every default, keeping the keyword or not.
    pub(crate) fn new(keep_keyword: bool) -> Self {
        DescribeDefaults {
            keep_keyword,
            rec: Recorder::default(),
        }
    }
}

impl Transform for DescribeDefaults {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut()
            && let Some(value) = node.get("default").cloned()
        {
            let sentence = default_sentence(&value);
            // A description that already ends with the sentence (a tooldef rendering
            // converted again) is not told twice.
            let said = says(node, &sentence);
            if !said {
                append_sentences(node, std::slice::from_ref(&sentence));
            }
            let change = match (self.keep_keyword, said) {
                (true, true) => None,
                (true, false) => Some(ChangeKind::Said {
                    keyword: "default".to_owned(),
                    sentence,
                }),
                (false, false) => Some(ChangeKind::Described {
                    keywords: vec!["default".to_owned()],
                    sentence,
                }),
                (false, true) => Some(ChangeKind::Removed {
                    keyword: "default".to_owned(),
                    why: "the description already says it".to_owned(),
                }),
            };
            if !self.keep_keyword {
                take(node, "default");
            }
            if let Some(change) = change {
                self.rec.record(change);
            }
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(DescribeDefaults);

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
            DescribeDefaults::new(false),
            input.clone(),
            json_schema!({"properties": {
                "days": {"description": "How many days. Default: 3.", "type": "integer"},
                "mode": {"description": "Default: \"auto\".", "type": "string"},
                "opts": {"description": "Default: {\"a\":[1,null]}.", "type": "object"},
                "n": {"anyOf": [{"description": "Default: null.", "type": "string"}]}
            }}),
        );
        check(
            DescribeDefaults::new(true),
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
            DescribeDefaults::new(false),
            data,
            json_schema!({
                "description": "Default: {\"default\":1}.",
                "enum": [{"default": 2}],
                "dependentSchemas": {"a": {"description": "Default: 4."}}
            }),
        );
        check(
            DescribeDefaults::new(false),
            json_schema!(false),
            json_schema!(false),
        );
    }
}
