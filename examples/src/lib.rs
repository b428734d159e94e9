//! Tools shared by tooldef's examples and tests.
#![deny(missing_docs)]

#[cfg(feature = "mcp")]
pub mod batch;
#[cfg(feature = "mcp")]
pub mod conformance;
#[cfg(feature = "mcp")]
pub mod conformance_asking;
#[cfg(feature = "mcp")]
pub mod conformance_schema;
#[cfg(feature = "mcp")]
pub mod mcp_features;
pub mod showcase;
#[cfg(feature = "mcp")]
pub mod travel_desk;
