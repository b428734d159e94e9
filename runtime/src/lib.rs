//! tooldef: write a tool once as a Rust function; serve it to any LLM.
#![deny(missing_docs)]

pub mod error;
pub mod schema;
pub mod target;

pub use error::SchemaError;
pub use target::Target;
