//! What Chat Completions and Responses conversations share in the gateway's loop: whether the
//! client forced a tool, usage summed over rounds, and the rounds' texts made one answer.

use axum::http::{HeaderName, HeaderValue};
use serde_json::{Map, Value};

/// Whether `tool_choice` forces a call (`"required"` or a named tool): it must not be sent
/// again after the first round, or the model would call tools for ever.
pub fn forces_a_call(tool_choice: Option<&Value>) -> bool {
    match tool_choice {
        Some(Value::String(choice)) => choice == "required",
        Some(Value::Object(_)) => true,
        _ => false,
    }
}

/// Adds every number of `more` into `sum`, field by field (token counts and their details).
pub fn add_usage(sum: &mut Value, more: &Value) {
    match (sum, more) {
        (Value::Object(sum), Value::Object(more)) => {
            for (key, value) in more {
                match sum.get_mut(key) {
                    Some(existing) => add_usage(existing, value),
                    None => {
                        sum.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (sum @ Value::Number(_), Value::Number(more)) => {
            if let (Some(a), Some(b)) = (sum.as_u64(), more.as_u64()) {
                *sum = Value::from(a + b);
            } else if let (Some(a), Some(b)) = (sum.as_f64(), more.as_f64()) {
                *sum = Value::from(a + b);
            }
        }
        (sum @ Value::Null, more) => *sum = more.clone(),
        _ => {}
    }
}

/// The texts of several rounds as one answer: the non-empty ones, a blank line apart.
#[derive(Debug, Default)]
pub struct Texts {
    parts: Vec<String>,
}

impl Texts {
    /// A round's text (nothing for none).
    pub fn push(&mut self, text: Option<&str>) {
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            self.parts.push(text.to_owned());
        }
    }

    /// What goes between the texts of two rounds.
    pub const SEPARATOR: &'static str = "\n\n";

    /// The answer, or `None` when no round said anything.
    pub fn joined(&self) -> Option<String> {
        (!self.parts.is_empty()).then(|| self.parts.join(Self::SEPARATOR))
    }
}

/// The body of a request as a JSON object, or why not.
pub fn request_object(body: &[u8]) -> Result<Map<String, Value>, crate::error::ApiError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(crate::error::ApiError::invalid(
            "The request body must be a JSON object.",
            "invalid_json",
        )),
        Err(err) => Err(crate::error::ApiError::invalid(
            format!(
                "We could not parse the JSON body of your request ({err}). The gateway expects a JSON object, as the OpenAI API does."
            ),
            "invalid_json",
        )),
    }
}

/// The header that tells the client which of its tools took an injected tool's name.
pub fn conflicts_header(conflicts: &[String]) -> Vec<(HeaderName, HeaderValue)> {
    if conflicts.is_empty() {
        return Vec::new();
    }
    HeaderValue::from_str(&conflicts.join(", "))
        .map(|v| vec![(HeaderName::from_static("x-tooldef-conflicts"), v)])
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_adds_up_with_details() {
        let mut sum = Value::Null;
        add_usage(
            &mut sum,
            &json!({"prompt_tokens": 10, "completion_tokens": 2, "details": {"cached_tokens": 1}}),
        );
        add_usage(
            &mut sum,
            &json!({"prompt_tokens": 20, "completion_tokens": 3, "details": {"cached_tokens": 0}}),
        );
        assert_eq!(
            sum,
            json!({"prompt_tokens": 30, "completion_tokens": 5, "details": {"cached_tokens": 1}})
        );
    }

    #[test]
    fn forced_choices() {
        assert!(forces_a_call(Some(&json!("required"))));
        assert!(forces_a_call(Some(
            &json!({"type": "function", "name": "x"})
        )));
        assert!(!forces_a_call(Some(&json!("auto"))));
        assert!(!forces_a_call(None));
    }

    #[test]
    fn texts_join_with_a_blank_line() {
        let mut texts = Texts::default();
        texts.push(Some("Let me look."));
        texts.push(Some(""));
        texts.push(None);
        texts.push(Some("It is sunny."));
        assert_eq!(texts.joined().unwrap(), "Let me look.\n\nIt is sunny.");
        assert_eq!(Texts::default().joined(), None);
    }
}
