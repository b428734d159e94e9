//! OpenAI Responses (`POST /v1/responses`), as OpenAI speaks it and as llama.cpp and vLLM copy
//! it: requests, replies and stream events, read into the conversation of [`ir`](super::ir) and
//! written from it.

mod error;
mod read;
mod read_input;
mod reader;
mod reply;
#[cfg(test)]
mod tests;
mod write;
mod writer;

pub use error::write_error_event;
pub use read::read_request;
pub use reader::Reader;
pub use reply::{read_reply, write_reply};
pub use write::write_request;
pub use writer::Writer;

/// The API's name in refusals.
const API: &str = "Responses";
