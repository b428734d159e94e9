//! The scripted upstream as a library, for tests that run it in their own process: build an
//! [`App`] and serve [`router`] on a listener. The `scripted-upstream` binary does the same.

mod chat;
mod error;
mod ids;
mod log;
mod responses;
mod script;
mod server;
mod sse;
mod store;
mod validate;

pub use server::{App, router};
