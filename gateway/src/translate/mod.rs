//! Every client API over every upstream API: each API is read into the conversation of [`ir`]
//! and written from it, once (`chat/`, `responses/`, `messages/`), so that a request in the
//! client's API reaches an upstream that speaks another, and the upstream's reply (whole, or as a
//! stream of events) reaches the client in its own API. Nothing here talks to the network or
//! keeps anything: what a Chat upstream cannot keep (a `previous_response_id`'s conversation) is
//! the caller's to keep.
//!
//! What one API cannot say is refused on the way ([`Refusal`]), never dropped.

// Nothing calls the translation yet: the gateway's handlers will.

pub mod ir;

mod chat;
mod collector;
mod common;
#[cfg(test)]
mod fixtures;
mod messages;
mod responses;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value};

use crate::api::Api;
use ir::{Delta, ErrorBody, Refusal, Reply, Request};

pub use collector::Collector;

/// Reads a request of `api` (the whole JSON body) into the conversation it asks for.
pub fn read_request(api: Api, request: &Map<String, Value>) -> Result<Request, Refusal> {
    match api {
        Api::Chat => chat::read_request(request),
        Api::Responses => responses::read_request(request),
        Api::Messages => messages::read_request(request),
    }
}

/// Writes a request for an upstream speaking `api`; refuses what that API cannot say.
pub fn write_request(api: Api, request: &Request) -> Result<Map<String, Value>, Refusal> {
    match api {
        Api::Chat => chat::write_request(request),
        Api::Responses => responses::write_request(request),
        Api::Messages => messages::write_request(request),
    }
}

/// Reads a whole reply of `api`.
pub fn read_reply(api: Api, reply: &Value) -> Result<Reply, String> {
    match api {
        Api::Chat => chat::read_reply(reply),
        Api::Responses => responses::read_reply(reply),
        Api::Messages => messages::read_reply(reply),
    }
}

/// Writes a whole reply in `api`, for a client whose request was `request`.
pub fn write_reply(api: Api, reply: &Reply, request: &Request) -> Value {
    match api {
        Api::Chat => chat::write_reply(reply, request),
        Api::Responses => responses::write_reply(reply, request),
        Api::Messages => messages::write_reply(reply, request),
    }
}

/// Reads an error body of `api` (or any body an upstream answered an error with), answered with
/// `status`; a body that says no kind of error (not JSON, a server's own shape) has the status's.
pub fn read_error(api: Api, status: http::StatusCode, body: &[u8]) -> ErrorBody {
    let value = serde_json::from_slice::<Value>(body).ok();
    let read = value.as_ref().and_then(|value| match api {
        Api::Chat | Api::Responses => chat::read_error(value),
        Api::Messages => messages::read_error(value),
    });
    read.or_else(|| value.as_ref().and_then(chat::read_error))
        .or_else(|| value.as_ref().and_then(messages::read_error))
        .unwrap_or_else(|| ErrorBody {
            message: String::from_utf8_lossy(body).trim().to_owned(),
            kind: kind_of(status).to_owned(),
            code: None,
            param: None,
        })
}

/// The kind of error a status says.
fn kind_of(status: http::StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        503 | 529 => "overloaded_error",
        400..=499 => "invalid_request_error",
        _ => "api_error",
    }
}

/// An error body in `api`'s shape, for an HTTP answer.
pub fn write_error(api: Api, error: &ErrorBody) -> Value {
    match api {
        Api::Chat | Api::Responses => chat::write_error(error),
        Api::Messages => messages::write_error(error),
    }
}

/// An error as the last event of a stream in `api`.
pub fn write_error_event(api: Api, error: &ErrorBody) -> Value {
    match api {
        Api::Chat => chat::write_error(error),
        Api::Responses => responses::write_error_event(error),
        Api::Messages => messages::write_error(error),
    }
}

/// Reads the events of a streamed reply of one API as [`Delta`]s.
pub enum Reader {
    /// Chat Completions chunks.
    Chat(chat::Reader),
    /// Responses events.
    Responses(responses::Reader),
    /// Messages events.
    Messages(messages::Reader),
}

impl Reader {
    /// A reader of `api`'s events.
    pub fn new(api: Api) -> Reader {
        match api {
            Api::Chat => Reader::Chat(chat::Reader::default()),
            Api::Responses => Reader::Responses(responses::Reader::default()),
            Api::Messages => Reader::Messages(messages::Reader::default()),
        }
    }

    /// The deltas of one event's `data` (Chat's `[DONE]` is not given here); an error event, or
    /// one that cannot be read, is an `Err` saying what the upstream said.
    pub fn read(&mut self, event: &Value) -> Result<Vec<Delta>, ErrorBody> {
        match self {
            Reader::Chat(reader) => reader.read(event),
            Reader::Responses(reader) => reader.read(event),
            Reader::Messages(reader) => reader.read(event),
        }
    }
}

/// Writes [`Delta`]s as the events of a streamed reply of one API, for a client whose request
/// was given: every event the API's stream has, with its indexes and ids, in a valid order.
pub enum Writer {
    /// Chat Completions chunks.
    Chat(chat::Writer),
    /// Responses events.
    Responses(responses::Writer),
    /// Messages events.
    Messages(messages::Writer),
}

impl Writer {
    /// A writer of `api`'s events for a client whose request was `request`.
    pub fn new(api: Api, request: &Request) -> Writer {
        match api {
            Api::Chat => Writer::Chat(chat::Writer::new(request)),
            Api::Responses => Writer::Responses(responses::Writer::new(request)),
            Api::Messages => Writer::Messages(messages::Writer::new(request)),
        }
    }

    /// The events (each one's `data`) that say `delta`.
    pub fn write(&mut self, delta: Delta) -> Vec<Value> {
        match self {
            Writer::Chat(writer) => writer.write(delta),
            Writer::Responses(writer) => writer.write(delta),
            Writer::Messages(writer) => writer.write(delta),
        }
    }

    /// The events that end the stream, once the upstream's has ended (Chat's `[DONE]` is not
    /// among them: the stream's writer adds it).
    pub fn finish(&mut self) -> Vec<Value> {
        match self {
            Writer::Chat(writer) => writer.finish(),
            Writer::Responses(writer) => writer.finish(),
            Writer::Messages(writer) => writer.finish(),
        }
    }
}
