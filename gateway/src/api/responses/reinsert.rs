//! A Responses follow-up completed into the conversation the model had: a
//! `previous_response_id` the client was shown stands for the last upstream response of its
//! rounds (whose injected calls get their outputs back), and the client's calls of a turn that
//! mixed calls get the injected calls and outputs of that turn put back before them.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::input_items;
use crate::error::ApiError;
use crate::store::{self, Kept, Key};

/// Whether an input item is a message of `role`.
fn is_message(item: &Value, role: &str) -> bool {
    item.get("role").and_then(Value::as_str) == Some(role)
        && item
            .get("type")
            .and_then(Value::as_str)
            .is_none_or(|kind| kind == "message")
}

/// The call id of a `function_call` item.
fn function_call_id(item: &Value) -> Option<&str> {
    (item.get("type").and_then(Value::as_str) == Some("function_call"))
        .then(|| item.get("call_id").and_then(Value::as_str))
        .flatten()
}

/// The keys of the previous response and of every `function_call`'s id, and whether the request
/// needs them: it has a `previous_response_id`, or calls in the turn in progress (see
/// [`store::in_progress`]).
pub fn store_keys(request: &Map<String, Value>) -> (Vec<String>, bool) {
    let previous = request
        .get("previous_response_id")
        .and_then(Value::as_str)
        .map(Key::response);
    let items = request
        .get("input")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let since = store::in_progress(
        items.iter().rposition(|item| is_message(item, "user")),
        items.iter().rposition(|item| is_message(item, "assistant")),
    );
    let ids = |item| function_call_id(item).into_iter();
    let (calls, latest) = store::call_keys(items, since, ids, Key::responses_call);
    let needed = latest || previous.is_some();
    (previous.into_iter().chain(calls).collect(), needed)
}

/// Puts back what was kept; gives the `server_label`s whose tools the previous response's
/// conversation listed.
pub fn reinsert(
    request: &mut Map<String, Value>,
    kept: &HashMap<String, Arc<Kept>>,
) -> Result<Vec<String>, ApiError> {
    let mut listed = Vec::new();
    if kept.is_empty() {
        return Ok(listed);
    }
    let previous = request
        .get("previous_response_id")
        .and_then(Value::as_str)
        .map(Key::response);
    let mut items = None;
    if let Some(Kept::Response {
        last_id,
        outputs,
        listed: previously,
    }) = previous.and_then(|key| kept.get(&key)).map(Arc::as_ref)
    {
        request.insert("previous_response_id".to_owned(), json!(last_id));
        let mut input = input_items(request.remove("input"))?;
        input.splice(0..0, outputs.iter().cloned());
        items = Some(input);
        listed.clone_from(previously);
    }
    let mut input = match items {
        Some(items) => items,
        None => match request.remove("input") {
            Some(Value::Array(items)) => items,
            other => {
                if let Some(other) = other {
                    request.insert("input".to_owned(), other);
                }
                return Ok(listed);
            }
        },
    };
    let mut i = 0;
    while i < input.len() {
        let found = function_call_id(&input[i]).and_then(|id| kept.get(&Key::responses_call(id)));
        if let Some(Kept::ResponsesTurn {
            earlier,
            calls,
            outputs,
        }) = found.map(Arc::as_ref)
        {
            let first_id = calls.first().and_then(|item| item.get("call_id"));
            let present = input.iter().any(|item| {
                item.get("type").and_then(Value::as_str) == Some("function_call")
                    && item.get("call_id") == first_id
            });
            if !present {
                // The turn's calls together, as the model made them, then their outputs.
                input.splice(i..i, earlier.iter().chain(calls).cloned());
                i += earlier.len() + calls.len();
                while input.get(i + 1).is_some_and(|item| {
                    item.get("type").and_then(Value::as_str) == Some("function_call")
                }) {
                    i += 1;
                }
                input.splice(i + 1..i + 1, outputs.iter().cloned());
                i += outputs.len();
            }
        }
        i += 1;
    }
    request.insert("input".to_owned(), Value::Array(input));
    Ok(listed)
}
