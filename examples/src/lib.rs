//! Tools shared by tooldef's examples and tests.
#![deny(missing_docs)]

pub mod batch;
pub mod conformance_asking;
pub mod mcp_features;
pub mod showcase;
