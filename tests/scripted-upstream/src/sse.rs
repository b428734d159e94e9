//! Server-sent events: the framing the APIs use, and a body that hands each event to the
//! connection as its own frame, so a client (the gateway) sees each delta as it is written.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::Response;
use bytes::Bytes;
use futures_util::{StreamExt, stream};
use serde_json::Value;

/// The line that ends a Chat Completions stream.
pub const DONE: &str = "data: [DONE]\n\n";

/// `data: <json>\n\n` (Chat Completions).
pub fn data(json: &Value) -> Bytes {
    Bytes::from(format!("data: {json}\n\n"))
}

/// `event: <type>\ndata: <json>\n\n` (Responses, Messages).
pub fn named(event: &str, json: &Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {json}\n\n"))
}

/// `text` cut into pieces of at most `chars` characters, as a model's deltas come.
pub fn pieces(text: &str, chars: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .char_indices()
            .nth(chars)
            .map_or(rest.len(), |(at, _)| at);
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// A `text/event-stream` response of these events, `gap` apart (the first at once).
pub fn response(events: Vec<Bytes>, gap: Duration) -> Response {
    let body = if gap.is_zero() {
        Body::from_stream(stream::iter(events.into_iter().map(Ok::<_, Infallible>)))
    } else {
        Body::from_stream(stream::iter(events.into_iter().enumerate()).then(
            move |(i, event)| async move {
                if i > 0 {
                    tokio::time::sleep(gap).await;
                }
                Ok::<_, Infallible>(event)
            },
        ))
    };
    Response::builder()
        .header(CONTENT_TYPE, "text/event-stream")
        .header(CACHE_CONTROL, "no-cache")
        .body(body)
        .expect("static headers are valid")
}

/// Parses a stream back into `(event name, data)` pairs, as a client would.
#[cfg(test)]
pub fn parse(text: &str) -> Vec<(Option<String>, String)> {
    text.split("\n\n")
        .filter(|event| !event.is_empty())
        .map(|event| {
            let mut name = None;
            let mut data = String::new();
            for line in event.lines() {
                if let Some(value) = line.strip_prefix("event: ") {
                    name = Some(value.to_owned());
                } else if let Some(value) = line.strip_prefix("data: ") {
                    data.push_str(value);
                } else {
                    panic!("unexpected line in an event: {line:?}");
                }
            }
            (name, data)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_respect_characters() {
        assert_eq!(
            pieces("héllo wörld", 4).collect::<Vec<_>>(),
            ["héll", "o wö", "rld"]
        );
        assert_eq!(pieces("", 4).count(), 0);
    }
}
