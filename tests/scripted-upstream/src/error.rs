//! OpenAI's error shape, `{"error": {"message", "type", "param", "code"}}`, and the errors this
//! server answers with in it.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

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
