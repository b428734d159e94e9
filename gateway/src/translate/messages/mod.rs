//! Anthropic Messages (`POST /v1/messages`), as Anthropic speaks it and as llama.cpp copies it:
//! requests, replies, stream events and errors, read into the conversation of
//! [`ir`](super::ir) and written from it.

mod error;
mod read;
mod read_messages;
mod reader;
mod reply;
#[cfg(test)]
mod tests;
mod write;
mod writer;

pub use error::{read_error, write_error};
pub use read::read_request;
pub use reader::Reader;
pub use reply::{read_reply, write_reply};
pub use write::write_request;
pub use writer::Writer;

/// The API's name in refusals.
const API: &str = "Messages";
