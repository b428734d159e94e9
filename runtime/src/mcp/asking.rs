//! Where a tool's questions ([`Elicit`]) go when it runs under the MCP server, by how the client
//! talks: `elicitation/create` on a session (MCP 2025-11-25 and earlier), an `input_required`
//! result answered by the client's retry (MCP 2026-07-28, in `round_trip`), or `tasks/get`'s
//! `inputRequests` answered through `tasks/update` (a task). Each question is rmcp's form
//! request; tooldef writes no message of its own.

use std::sync::atomic::{AtomicU32, Ordering};

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest,
    TASKS_EXTENSION_ID,
};
use rmcp::service::{RequestContext, ServiceError};
use rmcp::task_manager::{TaskContext, TaskExit};
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use crate::{Elicit, ElicitAnswer, ElicitError, ElicitRequest as Question};

/// What the client said it takes, read where rmcp's `RequestContext::client_capabilities` reads
/// it (the request's `_meta`, else, before MCP 2026-07-28, the session's `initialize`), from the
/// JSON as it is rather than through rmcp's whole capabilities struct, which every call would
/// pay for.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ClientTakes {
    /// Forms: an `elicitation` capability with `form`, or with neither mode (which MCP reads
    /// as form, for clients from before modes).
    pub forms: bool,
    /// The `io.modelcontextprotocol/tasks` extension.
    pub tasks: bool,
}

/// The `_meta` key of a 2026-07-28 request's client capabilities.
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

impl ClientTakes {
    pub(super) fn of(context: &RequestContext<RoleServer>, modern: bool) -> ClientTakes {
        if let Some(Value::Object(capabilities)) = context.meta.0.0.get(CLIENT_CAPABILITIES) {
            let elicitation = capabilities.get("elicitation").and_then(Value::as_object);
            let extensions = capabilities.get("extensions").and_then(Value::as_object);
            return ClientTakes {
                forms: elicitation
                    .is_some_and(|modes| modes.contains_key("form") || !modes.contains_key("url")),
                tasks: extensions.is_some_and(|ids| ids.contains_key(TASKS_EXTENSION_ID)),
            };
        }
        match context.peer.peer_info() {
            Some(info) if !modern => ClientTakes {
                forms: info
                    .capabilities
                    .elicitation
                    .as_ref()
                    .is_some_and(|modes| modes.form.is_some() || modes.url.is_none()),
                tasks: info.capabilities.supports_tasks(),
            },
            _ => ClientTakes::default(),
        }
    }
}

/// The question as MCP's form request.
pub(super) fn form_request(question: Question) -> Result<ElicitRequestParams, ElicitError> {
    let requested_schema = serde_json::from_value(Value::Object(question.schema))
        .map_err(|error| ElicitError::Failed(format!("the form is not one MCP takes: {error}")))?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.message,
        requested_schema,
    })
}

/// The client's answer, as rmcp read it.
fn answer(result: ElicitResult) -> Result<ElicitAnswer, ElicitError> {
    match result.action {
        ElicitationAction::Accept => match result.content {
            Some(Value::Object(values)) => Ok(ElicitAnswer::Accept(values)),
            Some(other) => Err(ElicitError::Invalid(format!(
                "the client answered with {other} where the form's values (an object) belong"
            ))),
            None => Err(ElicitError::Invalid(
                "the client accepted without sending the form's values".into(),
            )),
        },
        ElicitationAction::Decline => Ok(ElicitAnswer::Decline),
        // Cancel, and any action a later version adds, which this server cannot act on.
        _ => Ok(ElicitAnswer::Cancel),
    }
}

/// An answer that came as JSON (`inputResponses`, `tasks/update`).
pub(super) fn answer_value(value: Value) -> Result<ElicitAnswer, ElicitError> {
    let result = serde_json::from_value::<ElicitResult>(value).map_err(|error| {
        ElicitError::Invalid(format!(
            "the client's answer is not an elicitation result: {error}"
        ))
    })?;
    answer(result)
}

/// The `inputRequests` entry of a question.
pub(super) fn input_request(request: ElicitRequestParams) -> InputRequest {
    InputRequest::Elicitation(ElicitRequest::new(request))
}

/// Keys for a call's questions, unique within the call: `elicit-1`, `elicit-2`, …
#[derive(Default)]
pub(super) struct Keys(AtomicU32);

impl Keys {
    pub(super) fn next(&self) -> String {
        format!("elicit-{}", self.0.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

/// MCP 2025-11-25 and earlier: `elicitation/create` to the session's client, which answers it
/// while the call waits, for [`INPUT_WAIT`](super::INPUT_WAIT) at most (as long as a
/// 2026-07-28 call stays parked): a client that never answers is [`ElicitError::TimedOut`],
/// not a tool waiting for ever.
pub(super) fn over_session(peer: Peer<RoleServer>, forms: bool) -> Elicit {
    if !forms {
        return Elicit::unsupported();
    }
    Elicit::new(move |question: Question| {
        let peer = peer.clone();
        async move {
            let request = form_request(question)?;
            let result = peer
                .create_elicitation_with_timeout(request, Some(super::INPUT_WAIT))
                .await
                .map_err(|error| match error {
                    ServiceError::Timeout { .. } => ElicitError::TimedOut,
                    other => ElicitError::Failed(other.to_string()),
                })?;
            answer(result)
        }
    })
}

/// Inside a task: the question is in `tasks/get`'s `inputRequests` (the task `input_required`)
/// until the client answers it with `tasks/update`. A task cancelled meanwhile is the
/// question cancelled.
pub(super) fn in_task(task: TaskContext, forms: bool) -> Elicit {
    if !forms {
        return Elicit::unsupported();
    }
    let keys = std::sync::Arc::new(Keys::default());
    Elicit::new(move |question: Question| {
        let task = task.clone();
        let keys = std::sync::Arc::clone(&keys);
        async move {
            let request = input_request(form_request(question)?);
            match task.request_input(keys.next(), request).await {
                Ok(value) => answer_value(value),
                Err(TaskExit::Cancelled) => Err(ElicitError::Cancelled),
                Err(TaskExit::Error(error)) => Err(ElicitError::Failed(error.message.into_owned())),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use rmcp::model::ElicitationSchema;
    use serde_json::json;

    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Topping {
        Cheese,
        Olives,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    enum Size {
        /// 30 cm
        Small,
        /// 40 cm
        Large,
    }

    /// Every kind of field a form takes.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Order {
        name: String,
        count: u8,
        tip: Option<f64>,
        gift: bool,
        size: Size,
        toppings: Vec<Topping>,
        other_size: Option<Size>,
        #[schemars(email)]
        email: String,
    }

    /// What `Elicit` shows is what rmcp sends: each field one of MCP's primitive schemas,
    /// nothing lost on the way.
    #[test]
    fn every_kind_of_field_is_a_form_rmcp_takes() {
        let form = crate::elicit::form_of::<Order>();
        let schema: ElicitationSchema =
            serde_json::from_value(Value::Object(form.clone())).expect("rmcp reads the form");
        let sent = serde_json::to_value(&schema).unwrap();
        for (name, property) in form["properties"].as_object().unwrap() {
            assert_eq!(&sent["properties"][name], property, "{name}");
        }
        assert_eq!(
            sent["properties"]["toppings"],
            json!({"type": "array", "items": {"type": "string", "enum": ["cheese", "olives"]}})
        );
        assert_eq!(
            sent["properties"]["size"],
            json!({"type": "string", "oneOf": [
                {"const": "Small", "title": "30 cm"},
                {"const": "Large", "title": "40 cm"}
            ]})
        );
        assert_eq!(
            sent["required"],
            json!(["name", "count", "gift", "size", "toppings", "email"])
        );
    }
}
