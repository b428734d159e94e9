//! OpenAI Chat Completions (`POST /v1/chat/completions`), as OpenAI and the servers that copy
//! it (llama.cpp, vLLM, Ollama, DeepSeek) speak it: requests, replies, stream chunks and errors,
//! read into the conversation of [`ir`](super::ir) and written from it.

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
pub(super) use read::empty_schema;
pub use read::read_request;
pub use reader::Reader;
pub use reply::{read_reply, write_reply};
pub use write::write_request;
pub use writer::Writer;

/// The API's name in refusals.
const API: &str = "Chat Completions";

/// The prefix of a completion's id.
const ID_PREFIX: &str = "chatcmpl-";
