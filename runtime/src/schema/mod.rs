//! Schemas: canonical normalisation and the per-target transforms.
//!
//! A tool's input schema is generated once (schemars, draft 2020-12, declaration order kept),
//! made canonical by [`canonicalize`], and rendered per target by [`render_for`]. Rendering is
//! a pipeline of small `schemars::transform::Transform`s, one idea per file, composed per
//! target in `pipeline.rs`; `docs/TARGET_RULES.md` has the table of which transform implements
//! which rule, and the exact sentences they write into descriptions.
//!
//! Helpers: `walk` (every subschema location), `node` (order-preserving edits), `describe`
//! (keywords as sentences), `merge` (two schemas as one), `root` (the root must be an object).

mod canonical;
mod describe;
mod merge;
mod node;
mod pipeline;
mod root;
mod walk;

mod all_of;
mod anthropic_strict;
mod const_enum;
mod defaults;
mod dialect;
mod discriminator;
mod exclusive_bounds;
mod formats;
mod gemini;
mod inline_refs;
mod loose_lists;
mod mcp_header;
mod objects;
mod one_of;
mod openai_limits;
mod plainly_valid;
mod repair;
mod root_combinators;
mod strict;
mod strict_check;
mod titles;
mod unit_enums;
mod unsupported;
mod upgrade;
mod written;

#[cfg(test)]
mod pipeline_tests;
#[cfg(test)]
mod test_util;

pub(crate) use anthropic_strict::strict_cost;
pub(crate) use canonical::{canonicalize, canonicalize_output};
pub(crate) use describe::format_phrase;
pub(crate) use dialect::{declared_draft, dialect_problems, written_faults};
pub(crate) use formats::integer_range;
pub(crate) use node::get as get_key;
pub(crate) use pipeline::{Policy, render_for, render_output_for};
pub(crate) use written::as_written;
