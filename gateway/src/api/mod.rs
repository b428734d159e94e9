//! The client's API: which one a request is in (`kind.rs`).

mod kind;

pub use kind::Api;
