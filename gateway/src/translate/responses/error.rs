//! A Responses stream's `error` event, read and written.

use serde_json::{Value, json};

use crate::translate::ir::ErrorBody;

/// An `error` event: `{"type": "error", "code", "message", "param"}` (or, from some servers,
/// an OpenAI error body with its `error` object).
pub(super) fn read_error_event(event: &Value) -> ErrorBody {
    if let Some(error) = crate::translate::chat::read_error(event) {
        return error;
    }
    let text = |field: &str| event.get(field).and_then(Value::as_str).map(str::to_owned);
    ErrorBody {
        message: text("message").unwrap_or_else(|| event.to_string()),
        kind: text("code")
            .filter(|code| code.ends_with("_error"))
            .unwrap_or_else(|| "api_error".to_owned()),
        code: text("code"),
        param: text("param"),
    }
}

/// An error as the last event of a Responses stream.
pub fn write_error_event(error: &ErrorBody) -> Value {
    json!({
        "type": "error",
        "code": error.code.as_deref().unwrap_or(&error.kind),
        "message": error.message,
        "param": error.param,
    })
}
