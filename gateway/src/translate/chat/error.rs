//! Error bodies in OpenAI's shape (Chat's and Responses'), read and written.

use serde_json::{Value, json};

use crate::translate::ir::ErrorBody;

/// Reads an error body in OpenAI's shape (`{"error": {"message", "type", "param", "code"}}`),
/// llama.cpp's (a numeric `code`), or a bare `{"error": "…"}`.
pub fn read_error(body: &Value) -> Option<ErrorBody> {
    let error = body.get("error")?;
    let text = |value: Option<&Value>| match value {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Number(number)) => Some(number.to_string()),
        _ => None,
    };
    match error {
        Value::String(message) => Some(ErrorBody {
            message: message.clone(),
            kind: "api_error".to_owned(),
            code: None,
            param: None,
        }),
        Value::Object(error) => Some(ErrorBody {
            message: text(error.get("message"))
                .unwrap_or_else(|| Value::Object(error.clone()).to_string()),
            kind: text(error.get("type")).unwrap_or_else(|| "api_error".to_owned()),
            code: text(error.get("code")),
            param: text(error.get("param")),
        }),
        _ => None,
    }
}

/// An error body in OpenAI's shape.
pub fn write_error(error: &ErrorBody) -> Value {
    json!({"error": {
        "message": error.message,
        "type": error.kind,
        "param": error.param,
        "code": error.code,
    }})
}
