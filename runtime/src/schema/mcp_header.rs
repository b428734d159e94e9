//! `DropMcpHeaders`: MCP's `x-mcp-header` is removed for every other target.
//!
//! `"x-mcp-header": "Region"` on a property (MCP 2026-07-28, SEP-2243; `#[arg(header = "…")]`)
//! tells an MCP client to mirror that argument into an `Mcp-Param-Region` HTTP header, so that
//! proxies can route a call without reading its body. It is a transport hint, not a constraint:
//! a provider's model has no HTTP request to put it in, Gemini refuses keywords it does not
//! know, and Anthropic's strict mode refuses any keyword it does not list. So it goes, and the
//! report says where, whether the tool is a Rust tool or a converted foreign one.

use schemars::Schema;
use schemars::transform::Transform;

use super::node::take;
use super::walk::{recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};

/// The keyword.
pub(crate) const MCP_HEADER: &str = "x-mcp-header";

/// Removes `x-mcp-header` wherever it is (a foreign schema may have one off its properties,
/// where it means nothing to anyone).
#[derive(Debug, Clone, Default)]
pub(crate) struct DropMcpHeaders {
    pub(crate) rec: Recorder,
}

impl Transform for DropMcpHeaders {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut()
            && take(node, MCP_HEADER).is_some()
        {
            self.rec.record(ChangeKind::Removed {
                keyword: MCP_HEADER.to_owned(),
                why: "it is an MCP transport hint (MCP clients send the argument in an \
                      `Mcp-Param-…` HTTP header too), meaningless to this provider"
                    .to_owned(),
            });
        }
        transform_subschemas_tracked(self, schema);
    }
}

recording!(DropMcpHeaders);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::check;
    use schemars::json_schema;

    #[test]
    fn removed_wherever_it_is_and_recorded_there() {
        let t = check(
            DropMcpHeaders::default(),
            json_schema!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region", "description": "Where."},
                    "nested": {
                        "type": "object",
                        "properties": {"id": {"type": "integer", "x-mcp-header": "Id"}}
                    },
                    "odd/name": {"anyOf": [{"type": "string", "x-mcp-header": "Odd"}]}
                }
            }),
            json_schema!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "description": "Where."},
                    "nested": {
                        "type": "object",
                        "properties": {"id": {"type": "integer"}}
                    },
                    "odd/name": {"anyOf": [{"type": "string"}]}
                }
            }),
        );
        let pointers: Vec<&str> = t.rec.changes().iter().map(|c| c.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/properties/region",
                "/properties/nested/properties/id",
                "/properties/odd~1name/anyOf/0"
            ]
        );
        assert!(t.rec.changes().iter().all(|c| matches!(
            &c.kind,
            ChangeKind::Removed { keyword, .. } if keyword == MCP_HEADER
        )));
    }

    #[test]
    fn a_schema_without_it_is_unchanged() {
        let schema = json_schema!({"type": "object", "properties": {"a": {"type": "string"}}});
        let t = check(DropMcpHeaders::default(), schema.clone(), schema);
        assert!(t.rec.changes().is_empty());
    }
}
