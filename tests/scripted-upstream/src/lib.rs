//! The scripted upstream as a library, for tests that run it in their own process: build an
//! [`App`] (`App::new(log)`, or `App::with_config` for `--apis` and `--quirks`) and serve
//! [`router`] on a listener. The `scripted-upstream` binary does the same.

mod chat;
mod error;
mod ids;
mod llamacpp;
mod log;
mod messages;
mod options;
mod partial_json;
mod responses;
mod script;
mod server;
mod sse;
mod store;
mod validate;

#[cfg(test)]
mod http_tests;

pub use options::{Api, Apis, Config, Quirks};
pub use server::{App, router};
