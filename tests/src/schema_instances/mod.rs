//! A small, honest JSON Schema instance generator and the oracle around it, for the property
//! tests of `tests/tests/schema_properties.rs` ("what the schema allows, the call accepts").
//!
//! Instances are generated from the schema a target shows the model ([`generate`]), in the
//! dialect translated to JSON Schema 2020-12 where needed ([`dialect`]); invalid ones are
//! mutations of valid ones ([`mutate`]). Each is judged against the full constraints (the MCP
//! rendering, optional `null`s removed: [`nulls`]; and the ranges of Rust's number types that
//! no rendering states: [`ranges`]) by [`oracle`], which says whether the call
//! must be accepted, and with what meaning ([`meaning`]), or refused, and with what words
//! ([`messages`]). Everything is a function of a seed ([`rng`]).

pub mod branch;
pub mod dialect;
pub mod formats;
pub mod generate;
pub mod meaning;
pub mod messages;
pub mod mutate;
pub mod node;
pub mod nulls;
pub mod numbers;
pub mod oracle;
pub mod patterns;
pub mod ranges;
pub mod rng;
pub mod strings;
