//! Where a tool's requests to the client go when it runs under the MCP server: its questions
//! for the user ([`Elicit`]) and its requests for the client's model ([`Sample`]), by how the
//! client talks: a server-to-client request on a session (MCP 2025-11-25 and earlier), an
//! `input_required` result answered by the client's retry (MCP 2026-07-28, in `round_trip`), or
//! `tasks/get`'s `inputRequests` answered through `tasks/update` (a task).
//!
//! The three are one [`Channel`]: it takes rmcp's `InputRequest` (what `inputRequests` holds,
//! and what a session sends as a request) and gives the client's result as JSON. `Elicit` and
//! `Sample` are each one handler over any channel, which converts between tooldef's request and
//! answer and rmcp's; tooldef writes no message of its own.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use futures_util::future::BoxFuture;
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, ServerRequest, TASKS_EXTENSION_ID,
};
use rmcp::service::{PeerRequestOptions, RequestContext, ServiceError};
use rmcp::task_manager::{TaskContext, TaskExit};
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use crate::{
    CallContext, Elicit, ElicitAnswer, ElicitError, ElicitFuture, ElicitHandler,
    ElicitRequest as Question, Sample, SampleError, SampleFeatures, SampleFuture, SampleHandler,
    SampleReply, SampleRequest,
};

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
    /// The `sampling` capability, with what it takes beyond plain messages (`tools`,
    /// `context`); `None` without it.
    pub sampling: Option<SampleFeatures>,
}

/// The `_meta` key of a 2026-07-28 request's client capabilities.
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

impl ClientTakes {
    pub(super) fn of(context: &RequestContext<RoleServer>, modern: bool) -> ClientTakes {
        if let Some(Value::Object(capabilities)) = context.meta.0.0.get(CLIENT_CAPABILITIES) {
            let elicitation = capabilities.get("elicitation").and_then(Value::as_object);
            let extensions = capabilities.get("extensions").and_then(Value::as_object);
            let sampling = capabilities.get("sampling").and_then(Value::as_object);
            return ClientTakes {
                forms: elicitation
                    .is_some_and(|modes| modes.contains_key("form") || !modes.contains_key("url")),
                tasks: extensions.is_some_and(|ids| ids.contains_key(TASKS_EXTENSION_ID)),
                sampling: sampling.map(|sampling| {
                    SampleFeatures::PLAIN
                        .with_tools(sampling.contains_key("tools"))
                        .with_context(sampling.contains_key("context"))
                }),
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
                sampling: info.capabilities.sampling.as_ref().map(|sampling| {
                    SampleFeatures::PLAIN
                        .with_tools(sampling.tools.is_some())
                        .with_context(sampling.context.is_some())
                }),
            },
            _ => ClientTakes::default(),
        }
    }
}

/// What a request to the client is: the first word of its key in `inputRequests`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    /// A question for the user (`elicitation/create`).
    Elicit,
    /// A request for the client's model (`sampling/createMessage`).
    Sample,
}

/// Why a request to the client has no answer.
#[derive(Debug)]
pub(super) enum Failure {
    /// The client did not answer within [`INPUT_WAIT`](super::INPUT_WAIT).
    TimedOut,
    /// The request was withdrawn: the task it belongs to was cancelled.
    Cancelled,
    /// The client answered with an error: its message.
    Refused(String),
    /// The request could not be sent or answered.
    Failed(String),
}

/// Where a call's requests to the client go: each answered with the client's result as JSON
/// (an `ElicitResult`, a `CreateMessageResult`).
pub(super) trait Channel: Send + Sync + 'static {
    fn send(&self, kind: Kind, request: InputRequest) -> BoxFuture<'_, Result<Value, Failure>>;
}

/// `context` with an [`Elicit`] and a [`Sample`] that send through `channel`, each only where
/// the client takes it: a tool whose client cannot answer hears so at once, without a round
/// trip.
pub(super) fn install(
    context: CallContext,
    channel: Arc<dyn Channel>,
    takes: ClientTakes,
) -> CallContext {
    let elicit = if takes.forms {
        Elicit::new(Questions(Arc::clone(&channel)))
    } else {
        Elicit::unsupported()
    };
    let sample = match takes.sampling {
        Some(features) => Sample::new(Samples(channel)).with_features(features),
        None => Sample::unsupported(),
    };
    context.with_elicit(elicit).with_sample(sample)
}

/// `Elicit`'s handler over a channel.
struct Questions(Arc<dyn Channel>);

impl ElicitHandler for Questions {
    fn elicit(&self, question: Question) -> ElicitFuture<'_> {
        Box::pin(async move {
            let request = InputRequest::Elicitation(ElicitRequest::new(form_request(question)?));
            let answer =
                self.0
                    .send(Kind::Elicit, request)
                    .await
                    .map_err(|failure| match failure {
                        Failure::TimedOut => ElicitError::TimedOut,
                        Failure::Cancelled => ElicitError::Cancelled,
                        Failure::Refused(message) => ElicitError::Failed(format!(
                            "the client refused the question: {message}"
                        )),
                        Failure::Failed(message) => ElicitError::Failed(message),
                    })?;
            answer_value(answer)
        })
    }
}

/// `Sample`'s handler over a channel.
struct Samples(Arc<dyn Channel>);

impl SampleHandler for Samples {
    fn sample(&self, request: SampleRequest) -> SampleFuture<'_> {
        Box::pin(async move {
            let request = create_message(&request)?;
            let reply =
                self.0
                    .send(Kind::Sample, request)
                    .await
                    .map_err(|failure| match failure {
                        Failure::TimedOut => SampleError::TimedOut,
                        Failure::Cancelled => SampleError::Cancelled,
                        Failure::Refused(message) => SampleError::Refused(message),
                        Failure::Failed(message) => SampleError::Failed(message),
                    })?;
            SampleReply::from_mcp(&reply).map_err(SampleError::InvalidReply)
        })
    }
}

/// The question as MCP's form request, checked to reach the client whole: rmcp reads a form
/// through untagged enums, which would drop a keyword none of its shapes has rather than
/// refuse it.
pub(super) fn form_request(question: Question) -> Result<ElicitRequestParams, ElicitError> {
    let form = Value::Object(question.schema);
    let requested_schema: ElicitationSchema = serde_json::from_value(form.clone())
        .map_err(|error| ElicitError::InvalidForm(format!("MCP does not take it: {error}")))?;
    let sent = serde_json::to_value(&requested_schema)
        .map_err(|error| ElicitError::InvalidForm(error.to_string()))?;
    if let Some(lost) = first_difference(&form, &sent, "") {
        return Err(ElicitError::InvalidForm(format!(
            "the form would not reach the client whole: {lost}"
        )));
    }
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.message,
        requested_schema,
    })
}

/// Where `sent` says less than or other than `made` (numbers compared as numbers: rmcp keeps
/// a number field's bounds as `f64`, so `1` comes back `1.0`).
fn first_difference(made: &Value, sent: &Value, at: &str) -> Option<String> {
    match (made, sent) {
        (Value::Object(made), Value::Object(sent)) => made.iter().find_map(|(key, value)| {
            let here = format!("{at}/{key}");
            match sent.get(key) {
                Some(other) => first_difference(value, other, &here),
                None => Some(format!("`{here}` would be dropped")),
            }
        }),
        (Value::Array(made), Value::Array(sent)) if made.len() == sent.len() => made
            .iter()
            .zip(sent)
            .enumerate()
            .find_map(|(i, (value, other))| first_difference(value, other, &format!("{at}/{i}"))),
        (Value::Number(made), Value::Number(sent)) if made.as_f64() == sent.as_f64() => None,
        (made, sent) if made == sent => None,
        (made, sent) => Some(format!("`{at}` {made} would be sent as {sent}")),
    }
}

/// The client's answer to a question.
pub(super) fn answer_value(value: Value) -> Result<ElicitAnswer, ElicitError> {
    let result = serde_json::from_value::<ElicitResult>(value).map_err(|error| {
        ElicitError::Invalid(format!(
            "the client's answer is not an elicitation result: {error}"
        ))
    })?;
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

/// The request as MCP's `sampling/createMessage`, read by rmcp from the JSON tooldef writes.
// Sampling is deprecated by MCP's SEP-2577, and rmcp's types with it: MCP 2025-11-25 and
// 2026-07-28 still have it, and rmcp has no other way to send it.
#[allow(deprecated)]
fn create_message(request: &SampleRequest) -> Result<InputRequest, SampleError> {
    let params: rmcp::model::CreateMessageRequestParams = serde_json::from_value(request.to_mcp())
        .map_err(|error| SampleError::InvalidRequest(format!("MCP does not take it: {error}")))?;
    Ok(InputRequest::CreateMessage(
        rmcp::model::CreateMessageRequest::new(params),
    ))
}

/// Keys for a call's requests, unique within the call: `elicit-1`, `sample-2`, …, in the order
/// the tool makes them (so that a tool run afresh asks under the same keys).
#[derive(Default)]
pub(super) struct Keys(AtomicU32);

impl Keys {
    pub(super) fn next(&self, kind: Kind) -> String {
        let word = match kind {
            Kind::Elicit => "elicit",
            Kind::Sample => "sample",
        };
        format!("{word}-{}", self.0.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

/// MCP 2025-11-25 and earlier: requests to the session's client, which answers them while the
/// call waits, for [`INPUT_WAIT`](super::INPUT_WAIT) at most (as long as a 2026-07-28 call
/// stays parked): a client that never answers is a timeout, not a tool waiting for ever.
pub(super) struct Session(pub Peer<RoleServer>);

impl Channel for Session {
    // `ServerRequest::CreateMessageRequest`: see `create_message`.
    #[allow(deprecated)]
    fn send(&self, _kind: Kind, request: InputRequest) -> BoxFuture<'_, Result<Value, Failure>> {
        Box::pin(async move {
            let request = match request {
                InputRequest::Elicitation(request) => ServerRequest::ElicitRequest(request),
                InputRequest::CreateMessage(request) => {
                    ServerRequest::CreateMessageRequest(request)
                }
                other => {
                    return Err(Failure::Failed(format!(
                        "tooldef does not send {other:?} to a client"
                    )));
                }
            };
            let options = PeerRequestOptions::with_timeout(super::INPUT_WAIT);
            let failure = |error: ServiceError| match error {
                ServiceError::Timeout { .. } => Failure::TimedOut,
                ServiceError::McpError(error) => Failure::Refused(error.message.into_owned()),
                other => Failure::Failed(other.to_string()),
            };
            let handle = self
                .0
                .send_request_with_option(request, options)
                .await
                .map_err(failure)?;
            let result = handle.await_response().await.map_err(failure)?;
            // Whatever rmcp read the result as, its JSON is what the handler checks.
            serde_json::to_value(result).map_err(|error| Failure::Failed(error.to_string()))
        })
    }
}

/// Inside a task: the request is in `tasks/get`'s `inputRequests` (the task `input_required`)
/// until the client answers it with `tasks/update`. A task cancelled meanwhile is the request
/// cancelled.
pub(super) struct InTask {
    task: TaskContext,
    keys: Keys,
}

impl InTask {
    pub(super) fn new(task: TaskContext) -> InTask {
        InTask {
            task,
            keys: Keys::default(),
        }
    }
}

impl Channel for InTask {
    fn send(&self, kind: Kind, request: InputRequest) -> BoxFuture<'_, Result<Value, Failure>> {
        Box::pin(async move {
            match self.task.request_input(self.keys.next(kind), request).await {
                Ok(value) => Ok(value),
                Err(TaskExit::Cancelled) => Err(Failure::Cancelled),
                Err(TaskExit::Error(error)) => Err(Failure::Failed(error.message.into_owned())),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Elicitable;

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

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[schemars(extend("enumNames" = ["Thin", "Thick"]))]
    enum Crust {
        Thin,
        Thick,
    }

    fn two() -> u8 {
        2
    }

    /// Every kind of field a form takes.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Order {
        name: String,
        #[serde(default = "two")]
        count: u8,
        tip: Option<f64>,
        gift: bool,
        size: Size,
        crust: Crust,
        toppings: Vec<Topping>,
        sizes: Vec<Size>,
        other_size: Option<Size>,
        #[schemars(email)]
        email: String,
    }
    impl crate::Elicitable for Order {}

    /// What `Elicit` shows is what rmcp sends: each field one of MCP's primitive schemas,
    /// nothing lost on the way.
    #[test]
    fn every_kind_of_field_is_a_form_rmcp_takes() {
        let form = Order::form().unwrap();
        let request = form_request(Question {
            message: "Your order?".into(),
            schema: form.clone(),
        })
        .expect("rmcp takes the form whole");
        let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = request
        else {
            unreachable!()
        };
        let sent = serde_json::to_value(&requested_schema).unwrap();
        assert_eq!(
            sent["properties"]["toppings"],
            json!({"type": "array", "items": {"type": "string", "enum": ["cheese", "olives"]}})
        );
        assert_eq!(
            sent["properties"]["sizes"],
            json!({"type": "array", "items": {"anyOf": [
                {"const": "Small", "title": "30 cm"},
                {"const": "Large", "title": "40 cm"}
            ]}})
        );
        assert_eq!(
            sent["properties"]["size"],
            json!({"type": "string", "oneOf": [
                {"const": "Small", "title": "30 cm"},
                {"const": "Large", "title": "40 cm"}
            ]})
        );
        assert_eq!(
            sent["properties"]["crust"],
            json!({"type": "string", "enum": ["Thin", "Thick"], "enumNames": ["Thin", "Thick"]})
        );
        assert_eq!(sent["properties"]["count"]["default"], json!(2));
        assert_eq!(
            sent["required"],
            json!([
                "name", "gift", "size", "crust", "toppings", "sizes", "email"
            ])
        );
    }

    /// A form rmcp would send with less than it says is refused, not sent short.
    #[test]
    fn a_form_rmcp_would_cut_short_is_refused() {
        let mut schema = serde_json::Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert(
            "properties".into(),
            json!({"size": {"type": "string", "enum": ["a"], "x-extra": 1}}),
        );
        let refused = form_request(Question {
            message: "?".into(),
            schema,
        });
        let Err(ElicitError::InvalidForm(why)) = refused else {
            panic!("refused: {refused:?}");
        };
        assert!(why.contains("/properties/size/x-extra"), "{why}");
    }

    /// Every field of tooldef's sampling request reaches rmcp's, so the client gets it whole.
    #[test]
    #[allow(deprecated)]
    fn a_sampling_request_reaches_rmcp_whole() {
        use crate::{
            IncludeContext, ModelPreferences, SampleContent, SampleMessage, SampleTool,
            SampleToolChoice, SampleToolResult, SampleToolUse, ToolOutput,
        };
        let input = json!({"word": "hi"}).as_object().unwrap().clone();
        let request = SampleRequest::new(100)
            .system_prompt("Be brief.")
            .user(SampleContent::image("cG5n", "image/png"))
            .assistant(SampleContent::ToolUse(SampleToolUse::new(
                "t1", "lookup", input,
            )))
            .message(SampleMessage::tool_results([SampleToolResult::new(
                "t1",
                ToolOutput::text("a greeting"),
            )]))
            .user(SampleContent::audio("d2F2", "audio/wav"))
            .model_preferences(
                ModelPreferences::new()
                    .hint("claude")
                    .cost(0.25)
                    .speed(0.5)
                    .intelligence(1.0),
            )
            .include_context(IncludeContext::AllServers)
            .temperature(0.5)
            .stop_sequence("END")
            .metadata(json!({"k": "v"}).as_object().unwrap().clone())
            .tool(SampleTool::new("lookup", "Look up.", json!({"type": "object"})).unwrap())
            .tool_choice(SampleToolChoice::Required);
        let InputRequest::CreateMessage(sent) = create_message(&request).unwrap() else {
            unreachable!()
        };
        assert_eq!(sent.params.validate(), Ok(()), "rmcp's own checks agree");
        let sent = serde_json::to_value(&sent.params).unwrap();
        assert_eq!(first_difference(&request.to_mcp(), &sent, ""), None);
        assert_eq!(sent["toolChoice"], json!({"mode": "required"}));
    }

    #[test]
    fn keys_are_unique_within_a_call_and_say_their_kind() {
        let keys = Keys::default();
        assert_eq!(keys.next(Kind::Elicit), "elicit-1");
        assert_eq!(keys.next(Kind::Sample), "sample-2");
        assert_eq!(keys.next(Kind::Elicit), "elicit-3");
    }
}
