//! The error shapes this server answers in: OpenAI's, `{"error": {"message", "type", "param",
//! "code"}}`; Anthropic's, `{"type": "error", "error": {"type", "message"}, "request_id"}`; and the
//! bare 404 of a server that does not serve an API at all.

use axum::Json;
use axum::http::StatusCode;
use axum::http::header::HeaderValue;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::ids;

/// An error reply in OpenAI's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    pub kind: &'static str,
    pub param: Option<String>,
    pub code: Option<&'static str>,
}

impl ApiError {
    /// A 400 `invalid_request_error`.
    pub fn invalid(message: impl Into<String>, param: Option<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
            kind: "invalid_request_error",
            param,
            code: None,
        }
    }

    /// OpenAI's wording for a required parameter that is absent.
    pub fn missing(param: &str) -> Self {
        Self::invalid(
            format!("Missing required parameter: '{param}'."),
            Some(param.to_owned()),
        )
    }

    /// OpenAI's wording for a parameter of the wrong JSON type; `expected` reads "a string".
    pub fn invalid_type(param: &str, expected: &str, got: &Value) -> Self {
        Self::invalid(
            format!(
                "Invalid type for '{param}': expected {expected}, but got {} instead.",
                kind_of(got)
            ),
            Some(param.to_owned()),
        )
    }

    /// OpenAI's 404 for a path or method it does not serve.
    pub fn unknown_url(method: &str, path: &str) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            message: format!(
                "Unknown request URL: {method} {path}. Please check the URL for typos, or see the docs at https://platform.openai.com/docs/api-reference/."
            ),
            kind: "invalid_request_error",
            param: None,
            code: Some("unknown_url"),
        }
    }

    /// The body, as OpenAI sends it.
    pub fn body(&self) -> Value {
        json!({
            "error": {
                "message": self.message,
                "type": self.kind,
                "param": self.param,
                "code": self.code,
            }
        })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body())).into_response()
    }
}

/// How OpenAI names a JSON value's type in its messages.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a decimal",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An error reply in Anthropic's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct AnthropicError {
    pub status: StatusCode,
    pub kind: &'static str,
    pub message: String,
}

impl AnthropicError {
    /// A 400 `invalid_request_error`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            kind: "invalid_request_error",
            message: message.into(),
        }
    }

    /// The body without its `request_id`, which is drawn when the reply is written.
    pub fn error(&self) -> Value {
        json!({"type": "error", "error": {"type": self.kind, "message": self.message}})
    }
}

impl IntoResponse for AnthropicError {
    fn into_response(self) -> Response {
        let request_id = ids::anthropic_request();
        let mut body = self.error();
        body["request_id"] = request_id.clone().into();
        with_anthropic_request_id((self.status, Json(body)).into_response(), request_id)
    }
}

/// Adds the `request-id` header Anthropic sends with every reply.
pub fn with_anthropic_request_id(mut response: Response, request_id: String) -> Response {
    if let Ok(id) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("request-id", id);
    }
    response
}

/// The error `type` Anthropic gives each HTTP status (https://docs.claude.com/en/api/errors);
/// `api_error` for the statuses it does not list.
pub fn anthropic_kind(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "invalid_request_error",
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        529 => "overloaded_error",
        _ => "api_error",
    }
}

/// The 404 of a server that has no such endpoint, as llama-cpp-python or an older vLLM answers a
/// Chat-only server's missing `/v1/responses`: what `--apis` answers for the APIs it leaves out.
pub fn not_served() -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"error": {"message": "Not Found", "type": "not_found_error", "code": "not_found"}})),
    )
        .into_response()
}
