//! A POST's body, read within the size bound and judged as the stdio transport judges a line
//! (`admission`), before rmcp sees it: rmcp answers a body it cannot parse with 415 and serde's
//! words, and one over its bound with a bare 413; here each gets a JSON-RPC error that carries
//! the request's id whenever the body lets it be known, and says what is wrong and what to send.
//!
//! The statuses follow the Streamable HTTP transport: a body the server cannot accept is a 4xx
//! with a JSON-RPC error in it (400, or 413 for size); a request whose tool arguments are at
//! fault is accepted and answered 200 with a tool error the model reads, as over stdio.

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use futures_util::StreamExt;
use rmcp::model::ErrorCode;
use serde_json::{Value, json};

use crate::mcp::WireLimits;
use crate::mcp::admission::{Admission, admit};
use crate::mcp::envelope::{Captured, Envelope};

/// Past the bound, a body up to this many times the bound is still read (and dropped, so in no
/// memory) before it is refused: a client still sending when the 413 comes would see a broken
/// connection instead of the answer. A larger body is refused at once.
const DRAINED_BOUNDS: usize = 16;

/// The body as rmcp should get it (`Ok`), or the answer to give instead.
pub(super) async fn admit_post(request: Request, limits: &WireLimits) -> Result<Request, Response> {
    let (parts, body) = request.into_parts();
    let mut envelope = Envelope::default();
    let drained = limits.max_bytes.saturating_mul(DRAINED_BOUNDS);
    if let Some(length) = content_length(&parts.headers)
        && length > drained
    {
        return Err(too_large(&format!("{length} bytes"), limits, &envelope));
    }
    let mut kept = Vec::new();
    let mut read = 0_usize;
    let mut chunks = body.into_data_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|error| {
            error_response(
                StatusCode::BAD_REQUEST,
                &Value::Null,
                ErrorCode::PARSE_ERROR,
                &format!("Parse error: the request body could not be read to its end: {error}"),
            )
        })?;
        // Scanned whole, kept or not, so that the id of an oversized body can be answered.
        envelope.feed(&chunk);
        read = read.saturating_add(chunk.len());
        if read <= limits.max_bytes {
            kept.extend_from_slice(&chunk);
        } else if read > drained {
            // Not read any further: a body without end must not hold the connection.
            return Err(too_large(
                &format!("more than {} bytes", limits.max_bytes),
                limits,
                &envelope,
            ));
        } else if !kept.is_empty() {
            kept = Vec::new();
        }
    }
    if read > limits.max_bytes {
        return Err(too_large(&format!("{read} bytes"), limits, &envelope));
    }
    match admit(Some(&kept), &envelope, limits) {
        Admission::Deliver(_) => {
            // serde_json refuses the byte order mark the line transport forgives.
            if kept.starts_with(b"\xEF\xBB\xBF") {
                kept.drain(..3);
            }
            Ok(Request::from_parts(parts, Body::from(kept)))
        }
        Admission::Reply(line) => Err(reply(line)),
        Admission::Ignore(why) => Err(unaccepted(&kept, &why)),
    }
}

fn content_length(headers: &HeaderMap) -> Option<usize> {
    headers.get(CONTENT_LENGTH)?.to_str().ok()?.parse().ok()
}

fn too_large(size: &str, limits: &WireLimits, envelope: &Envelope) -> Response {
    error_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        &echoed_id(&envelope.id),
        ErrorCode::INVALID_REQUEST,
        &format!(
            "Invalid request: the request body is {size}; this server reads at most {} bytes per \
             message: send less data (a large input is better passed by reference, a path or a \
             URL, than inline)",
            limits.max_bytes
        ),
    )
}

/// The line transport's answer: a JSON-RPC error (or a refused batch's array of them) is a 400,
/// a result (a tool error the model reads) a 200.
fn reply(line: Vec<u8>) -> Response {
    let is_error = serde_json::from_slice::<Value>(&line)
        .map(|answer| answer.is_array() || answer.get("error").is_some())
        .unwrap_or(true);
    let status = if is_error {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    json_response(status, line)
}

/// What the line transport ignores, which an HTTP server must still answer: an empty body, or
/// a notification it cannot read (there is no id to answer with).
fn unaccepted(body: &[u8], why: &str) -> Response {
    let message = if body.trim_ascii().is_empty() {
        "Invalid request: the request body is empty: POST one JSON-RPC message (a request, a \
         notification or a response) as JSON"
            .to_owned()
    } else {
        format!("Invalid request: {why}")
    };
    error_response(
        StatusCode::BAD_REQUEST,
        &Value::Null,
        ErrorCode::INVALID_REQUEST,
        &message,
    )
}

/// The request's id as an answer can carry it back unchanged: a string, or an integer rmcp
/// holds exactly; `null` otherwise (JSON-RPC's id for "could not be known").
fn echoed_id(captured: &Captured) -> Value {
    let Captured::Raw(raw) = captured else {
        return Value::Null;
    };
    let plain_integer = raw
        .strip_prefix(b"-")
        .unwrap_or(raw)
        .iter()
        .all(u8::is_ascii_digit);
    match serde_json::from_slice::<Value>(raw) {
        Ok(id @ Value::String(_)) => id,
        Ok(Value::Number(number)) if plain_integer && number.is_i64() => Value::Number(number),
        _ => Value::Null,
    }
}

fn error_response(status: StatusCode, id: &Value, code: ErrorCode, message: &str) -> Response {
    let answer = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code.0, "message": message},
    });
    json_response(status, answer.to_string().into_bytes())
}

fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: WireLimits = WireLimits {
        max_bytes: 200,
        max_depth: 10,
    };

    async fn judged(body: &str) -> Result<Vec<u8>, (StatusCode, Value)> {
        let request = Request::post("/mcp")
            .body(Body::from(body.to_owned()))
            .unwrap();
        match admit_post(request, &LIMITS).await {
            Ok(request) => Ok(axum::body::to_bytes(request.into_body(), usize::MAX)
                .await
                .unwrap()
                .to_vec()),
            Err(response) => {
                let status = response.status();
                let body = axum::body::to_bytes(response.into_body(), usize::MAX)
                    .await
                    .unwrap();
                Err((status, serde_json::from_slice(&body).unwrap()))
            }
        }
    }

    #[tokio::test]
    async fn a_valid_message_goes_on_unchanged_but_for_a_byte_order_mark() {
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(judged(ping).await.unwrap(), ping.as_bytes());
        let with_bom = format!("\u{feff}{ping}");
        assert_eq!(judged(&with_bom).await.unwrap(), ping.as_bytes());
        // Spread over lines, as a person types it with curl.
        let pretty = "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"method\": \"ping\"\n}\n";
        assert_eq!(judged(pretty).await.unwrap(), pretty.as_bytes());
    }

    #[tokio::test]
    async fn what_cannot_be_read_is_a_400_with_what_is_wrong() {
        let (status, answer) = judged("this is not json").await.unwrap_err();
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(answer["error"]["code"], -32700);

        let (status, answer) = judged(r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#)
            .await
            .unwrap_err();
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(answer["id"], "a");
        assert_eq!(answer["error"]["code"], -32600);

        let (_, answer) = judged("[]").await.unwrap_err();
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("batches are not supported"), "{message}");
        // A batch's requests are each answered, under their ids.
        let (status, answer) = judged(r#"[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":"x","method":"ping"}]"#)
            .await
            .unwrap_err();
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(answer[0]["id"], 3);
        assert_eq!(answer[1]["id"], "x");
        assert_eq!(answer[1]["error"]["code"], -32600);

        let (status, answer) = judged("  ").await.unwrap_err();
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("the request body is empty"), "{message}");

        // An id given twice: answered under the last, the one the sender's JSON reads.
        let (status, answer) = judged(r#"{"jsonrpc":"2.0","id":5,"id":6,"method":"ping"}"#)
            .await
            .unwrap_err();
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(answer["id"], 6);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("the key `id` is given twice"), "{message}");

        let (status, answer) = judged(r#"{"jsonrpc":"2.0","method":"notifications/x","params":3}"#)
            .await
            .unwrap_err();
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(answer["id"], Value::Null);
    }

    #[tokio::test]
    async fn bad_tool_arguments_are_a_tool_error_the_model_reads() {
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"a","city":"b"}}}"#;
        let (status, answer) = judged(call).await.unwrap_err();
        assert_eq!(status, StatusCode::OK);
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["result"]["isError"], true);
    }

    #[tokio::test]
    async fn an_oversized_body_is_a_413_with_its_id() {
        let big = |length: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{{"name":"t","arguments":{{"s":"{}"}}}}}}"#,
                "x".repeat(length)
            )
        };
        // Read to its end (within 16 times the bound), so its length is known.
        let body = big(500);
        let (status, answer) = judged(&body).await.unwrap_err();
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(answer["id"], "big");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("is {} bytes", body.len()))
                && message.contains("at most 200 bytes")
                && message.contains("send less data"),
            "{message}"
        );
        // Beyond, no further than that.
        let (status, answer) = judged(&big(5000)).await.unwrap_err();
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(answer["id"], "big");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("is more than 200 bytes"), "{message}");

        // Said by its length before a byte is read.
        let request = Request::post("/mcp")
            .header(CONTENT_LENGTH, "100000")
            .body(Body::empty())
            .unwrap();
        let response = admit_post(request, &LIMITS).await.unwrap_err();
        assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let answer: Value = serde_json::from_slice(&body).unwrap();
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("is 100000 bytes"), "{message}");
    }

    #[test]
    fn only_ids_that_go_back_unchanged_are_echoed() {
        let id = |raw: &str| echoed_id(&Captured::Raw(raw.as_bytes().to_vec()));
        assert_eq!(id("\"x\""), "x");
        assert_eq!(id("-12"), -12);
        assert_eq!(id("7e3"), Value::Null);
        assert_eq!(id("1.0"), Value::Null);
        assert_eq!(id("18446744073709551616"), Value::Null);
        assert_eq!(id("{}"), Value::Null);
        assert_eq!(echoed_id(&Captured::Absent), Value::Null);
    }
}
