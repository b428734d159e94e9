#!/usr/bin/env python3
"""Generates a crate of N tools, with tooldef's compile-time checks on or off.

Checks on: every argument type derives `Portable` and every tool is strict (the default), so
`#[tool]` asserts `Portable` on each argument and the derive asserts it on each field.
Checks off: the same crate without `#[derive(Portable)]` and with `#[tool(strict = false)]`:
no portability bound is emitted. Everything else (argument structs, schemas, defaults, docs)
is identical, so the difference between the two builds is the cost of the checks.

usage: generate.py OUT_DIR on|off [N] [TOOLDEF_PATH]
"""
import os
import sys

out, mode = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 100
tooldef = os.path.abspath(sys.argv[4] if len(sys.argv) > 4 else os.path.join(os.path.dirname(__file__), "../../runtime"))
checks = mode == "on"
derive = "Deserialize, Serialize, JsonSchema, Portable" if checks else "Deserialize, Serialize, JsonSchema"
strict = "" if checks else "strict = false"

os.makedirs(os.path.join(out, "src"), exist_ok=True)
with open(os.path.join(out, "Cargo.toml"), "w") as f:
    f.write(f"""[package]
name = "tools_{mode}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
tooldef = {{ path = "{tooldef}" }}
schemars = {{ version = "1", features = ["preserve_order"] }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[workspace]
""")

lines = [
    "#![allow(dead_code, unused_variables)]",
    "use schemars::JsonSchema;",
    "use serde::{Deserialize, Serialize};",
    "use tooldef::tool;" if not checks else "use tooldef::{Portable, tool};",
    "",
]
for i in range(n):
    lines.append(f"""
/// Kinds of item {i}.
#[derive(Clone, Copy, {derive})]
#[serde(rename_all = "snake_case")]
pub enum Kind{i} {{
    /// The first kind.
    Alpha,
    /// The second kind.
    Beta,
}}

/// A nested record of tool {i}.
#[derive(Clone, {derive})]
pub struct Item{i} {{
    /// The name.
    pub name: String,
    /// How many.
    pub count: u32,
    /// Tags.
    pub tags: Vec<String>,
    /// The kind.
    pub kind: Kind{i},
    /// An optional note.
    pub note: Option<String>,
}}

/// The result of tool {i}.
#[derive({derive})]
pub struct Output{i} {{
    /// Total.
    pub total: u64,
}}

/// Tool number {i}: processes items.
#[tool({strict})]
pub async fn tool_{i}(
    /// The items.
    items: Vec<Item{i}>,
    /// A limit.
    #[arg(default = 10)]
    #[schemars(range(min = 1, max = 100))]
    limit: u32,
    /// The kind to keep.
    #[arg(default = Kind{i}::Alpha)]
    kind: Kind{i},
    /// A filter.
    filter: Option<String>,
    /// Whether to be verbose.
    #[arg(default)]
    verbose: bool,
) -> Output{i} {{
    Output{i} {{ total: items.len() as u64 + u64::from(limit) }}
}}
""")
with open(os.path.join(out, "src", "lib.rs"), "w") as f:
    f.write("\n".join(lines))
