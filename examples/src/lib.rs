//! Tools shared by tooldef's examples and tests.
#![deny(missing_docs)]

pub mod batch;
pub mod conformance;
pub mod conformance_asking;
pub mod conformance_schema;
pub mod mcp_features;
pub mod showcase;
pub mod travel_desk;
