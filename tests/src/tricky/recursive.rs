//! A recursive type: a tree whose nodes hold children and an optional next node. Gemini has no
//! `$ref`, so tooldef refuses to render it there (`SchemaError::Recursive`): only the other
//! targets apply.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooldef::{Portable, tool};

/// A node of a tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct TreeNode {
    /// The node's label.
    pub label: String,
    /// Its children.
    #[serde(default)]
    pub children: Vec<TreeNode>,
    /// The node after it, if any.
    pub next: Option<Box<TreeNode>>,
}

/// Store a tree (a recursive type).
#[tool]
pub fn store_tree(
    /// The root.
    root: TreeNode,
) -> Value {
    json!({"root": root})
}
