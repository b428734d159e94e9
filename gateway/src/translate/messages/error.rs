//! Error bodies in Anthropic's shape, read and written.

use serde_json::{Value, json};

use crate::translate::ir::ErrorBody;

/// Reads an error body in Anthropic's shape: `{"type": "error", "error": {"type", "message"}}`.
pub fn read_error(body: &Value) -> Option<ErrorBody> {
    if body.get("type").and_then(Value::as_str) != Some("error") {
        return None;
    }
    let error = body.get("error")?;
    let text = |field: &str| error.get(field).and_then(Value::as_str).map(str::to_owned);
    Some(ErrorBody {
        message: text("message").unwrap_or_else(|| error.to_string()),
        kind: text("type").unwrap_or_else(|| "api_error".to_owned()),
        code: None,
        param: None,
    })
}

/// An error body in Anthropic's shape; OpenAI's and llama.cpp's kinds become Anthropic's (by
/// their code where the kind is OpenAI's own word, e.g. `requests` with `rate_limit_exceeded`).
pub fn write_error(error: &ErrorBody) -> Value {
    let kind = anthropic_type(&error.kind)
        .or_else(|| error.code.as_deref().and_then(anthropic_type))
        .unwrap_or("api_error");
    json!({"type": "error", "error": {"type": kind, "message": error.message}})
}

/// Anthropic's type of error for a kind or code of another API's, if one says it.
fn anthropic_type(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "invalid_request_error" => "invalid_request_error",
        "authentication_error" => "authentication_error",
        "permission_error" => "permission_error",
        "not_found_error" => "not_found_error",
        "rate_limit_error" => "rate_limit_error",
        "api_error" => "api_error",
        "overloaded_error" => "overloaded_error",
        "request_too_large" => "request_too_large",
        "exceed_context_size_error" | "not_supported_error" => "invalid_request_error",
        "insufficient_quota" | "rate_limit_exceeded" => "rate_limit_error",
        "unavailable_error" => "overloaded_error",
        // `upstream_error`, `server_error`, `mcp_error`, and kinds the gateway does not know.
        _ => return None,
    })
}
