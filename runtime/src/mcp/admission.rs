//! What becomes of one line from the client: a message for rmcp, or the one answer JSON-RPC 2.0
//! requires, carrying the request's id whenever the line lets it be known. rmcp drops lines it
//! cannot parse and answers some malformed ones without an id, which leaves a client waiting for
//! ever; this is where every such line gets its answer instead.

use rmcp::RoleServer;
use std::borrow::Cow;

use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, CallToolRequestParams, ClientRequest,
    CompleteRequestParams, CustomRequest, ErrorCode, GetPromptRequestParams, JsonObject,
    JsonRpcMessage, JsonRpcRequest, JsonRpcVersion2_0, PaginatedRequestParams,
    ReadResourceRequestParams, RequestId, RequestMetaObject, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::RxJsonRpcMessage;
use serde::Deserialize;
use serde_json::Value;

use crate::arguments::{Text, Unreadable, dispose, read_unique};
use crate::{ArgumentProblem, ToolError};

use super::envelope::{Captured, Envelope, MAX_TRACKED_DEPTH};
use super::transport::WireLimits;

/// What to do with a line.
#[derive(Debug)]
pub(super) enum Admission {
    /// Hand it to rmcp.
    Deliver(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answer it with this line (newline included) and read on.
    Reply(Vec<u8>),
    /// Nothing to answer (a blank line, a notification, a response): read on, saying why in
    /// the log.
    Ignore(String),
}

/// The line's `id` as an answer can carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Id {
    /// No `id`: a notification if it has a `method`.
    Absent,
    /// A string or an integer rmcp represents exactly: its raw text.
    Valid(String),
    /// An `id` rmcp cannot carry back unchanged, with the raw text to echo when it is a JSON
    /// string or number (`null` otherwise), and why.
    Invalid { echo: Option<String>, why: String },
}

impl Id {
    fn of(captured: &Captured) -> Id {
        let raw = match captured {
            Captured::Absent => return Id::Absent,
            Captured::Unusable => {
                return Id::Invalid {
                    echo: None,
                    why: "`id` is longer than 1024 bytes".to_owned(),
                };
            }
            Captured::Raw(raw) => String::from_utf8_lossy(raw).into_owned(),
        };
        match serde_json::from_str::<Value>(&raw) {
            Ok(Value::String(_)) => Id::Valid(raw),
            Ok(Value::Number(_)) if is_plain_i64(&raw) => Id::Valid(raw),
            Ok(Value::Number(_)) => Id::Invalid {
                why: format!(
                    "`id` must be a string or an integer from -2^63 to 2^63-1 written without a \
                     fraction or exponent; got `{raw}`"
                ),
                echo: Some(raw),
            },
            _ => Id::Invalid {
                why: format!(
                    "`id` must be a string or an integer; got `{}`",
                    crate::describe_value::shorten(&raw, 40)
                ),
                echo: None,
            },
        }
    }

    /// The text for the answer's `id` member.
    fn echo(&self) -> &str {
        match self {
            Id::Valid(raw)
            | Id::Invalid {
                echo: Some(raw), ..
            } => raw,
            Id::Absent | Id::Invalid { echo: None, .. } => "null",
        }
    }
}

/// An integer written as one (no fraction, no exponent) that fits an `i64`: what rmcp's ids
/// hold, so that the answer's id is the request's, character for character.
fn is_plain_i64(raw: &str) -> bool {
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && raw.parse::<i64>().is_ok()
}

/// A problem with a request, and how it is answered.
struct Refusal {
    code: ErrorCode,
    message: String,
    /// A problem with the arguments of a `tools/call`: answered as a tool error, which the
    /// model reads and can act on (MCP 2025-11-25 asks for input errors to be tool errors).
    arguments: Option<ArgumentProblem>,
}

impl Refusal {
    fn invalid_request(message: String) -> Refusal {
        Refusal {
            code: ErrorCode::INVALID_REQUEST,
            message: format!("Invalid request: {message}"),
            arguments: None,
        }
    }
}

/// Decides for one line. `line` is `None` when it was longer than the limit and was not kept.
pub(super) fn admit(line: Option<&[u8]>, envelope: &Envelope, limits: &WireLimits) -> Admission {
    let id = Id::of(&envelope.id);
    let Some(line) = line else {
        let message = format!(
            "the request is {} bytes long; this server reads at most {} bytes per message. Send \
             less data",
            envelope.bytes, limits.max_bytes
        );
        return refuse(envelope, &id, too_large(message));
    };
    let line = trim(line);
    if line.is_empty() {
        return Admission::Ignore("a blank line".to_owned());
    }
    if envelope.max_depth > limits.max_depth {
        let message = format!(
            "the request is nested {} levels deep; this server reads at most {}",
            envelope.max_depth, limits.max_depth
        );
        return refuse(envelope, &id, too_large(message));
    }
    if let Err(error) = std::str::from_utf8(line) {
        return Admission::Reply(error_line(
            "null",
            ErrorCode::PARSE_ERROR,
            &format!(
                "Parse error: the message is not valid UTF-8 (at byte {})",
                error.valid_up_to()
            ),
        ));
    }
    if let Some(message) = straight(line, envelope, &id) {
        return Admission::Deliver(Box::new(message));
    }
    // The whole message is read here: when it is not JSON, its arguments were never reached.
    let value = match read_unique(line, Text::Message) {
        Ok(value) => value,
        Err(Unreadable::Syntax(problem)) => {
            // Not JSON: JSON-RPC answers with a null id, since none can be trusted.
            return Admission::Reply(error_line(
                "null",
                ErrorCode::PARSE_ERROR,
                &format!("Parse error: {}", problem.message),
            ));
        }
        Err(Unreadable::Duplicate(problem)) => {
            return refuse(envelope, &id, duplicate(envelope, problem));
        }
    };
    if let Value::Array(batch) = &value
        && let Some(line) = batch_refusal(batch)
    {
        dispose(value);
        return Admission::Reply(line);
    }
    match checked(value, envelope, &id) {
        Ok(message) => Admission::Deliver(Box::new(message)),
        Err(refusal) => refuse(envelope, &id, refusal),
    }
}

/// A JSON-RPC batch (which MCP 2025-03-26 allowed) refused as JSON-RPC answers one: an array
/// with an error for each request in it, under its id, so that a client waiting on each id hears
/// of each; notifications get none. `None` when no request in it has an id that can go back
/// (then one error, under a `null` id, says why).
fn batch_refusal(batch: &[Value]) -> Option<Vec<u8>> {
    let answers: Vec<String> = batch
        .iter()
        .filter_map(|message| {
            let id = message.as_object()?.get("id")?;
            let raw = serde_json::to_vec(id).ok()?;
            match Id::of(&Captured::Raw(raw)) {
                Id::Valid(raw) => Some(raw),
                _ => None,
            }
        })
        .map(|id| {
            let line = error_line(&id, ErrorCode::INVALID_REQUEST, BATCHES_REFUSED);
            String::from_utf8_lossy(line.trim_ascii_end()).into_owned()
        })
        .collect();
    (!answers.is_empty()).then(|| format!("[{}]\n", answers.join(",")).into_bytes())
}

/// Why a batch is refused, and what to send instead.
const BATCHES_REFUSED: &str = "Invalid request: batches are not supported (MCP removed JSON-RPC \
                               batching in 2025-06-18): send one message per line";

/// The common case, read straight from the text as rmcp itself reads it: a message in which the
/// scan found every member as JSON-RPC wants it and no key given twice. Anything else, and a
/// message serde or rmcp refuses, takes the exact path (a `Value` that refuses duplicate keys,
/// then the checks), which says what is wrong; so this path only saves the work of that one.
fn straight(line: &[u8], envelope: &Envelope, id: &Id) -> Option<RxJsonRpcMessage<RoleServer>> {
    let plain = envelope.first == Some(b'{')
        && envelope.max_depth <= MAX_TRACKED_DEPTH
        && !envelope.maybe_duplicate
        && !envelope.escaped_key
        && matches!(&envelope.jsonrpc, Captured::Raw(raw) if raw == b"\"2.0\"")
        && matches!(id, Id::Absent | Id::Valid(_))
        && envelope.params_first.is_none_or(|first| first == b'{')
        && match &envelope.method {
            Captured::Raw(raw) => raw.first() == Some(&b'"'),
            Captured::Absent => envelope.has_result_or_error,
            Captured::Unusable => false,
        };
    if !plain {
        return None;
    }
    if matches!(&envelope.method, Captured::Raw(raw) if raw == b"\"tools/call\"")
        && let Ok(call) = serde_json::from_slice::<ToolsCall>(line)
    {
        return Some(call.into_message());
    }
    let message = serde_json::from_slice(line).ok()?;
    misread(&message).is_none().then_some(message)
}

/// The message nearly every line is, a `tools/call` with only the members a plain call has, read
/// into rmcp's types directly. rmcp reads a message through untagged and flattened enums, which
/// buffer it and try each kind of request in turn: about 40k instructions for a small call, a
/// third of what the whole call costs. A call with any other member (`inputResponses`, a task)
/// is left to rmcp, as is everything this refuses.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolsCall {
    #[allow(dead_code, reason = "read to refuse any other version")]
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[allow(dead_code, reason = "read to refuse any other method")]
    method: CallToolRequestMethod,
    params: ToolsCallParams,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolsCallParams {
    #[serde(rename = "_meta", default)]
    meta: Option<JsonObject>,
    name: Cow<'static, str>,
    #[serde(default)]
    arguments: Option<JsonObject>,
}

impl ToolsCall {
    /// The message as rmcp builds it from the same text: `_meta` in the request's extensions.
    fn into_message(self) -> RxJsonRpcMessage<RoleServer> {
        let mut params = CallToolRequestParams::new(self.params.name);
        params.arguments = self.params.arguments;
        let mut request = CallToolRequest::new(params);
        if let Some(meta) = self.params.meta {
            request.extensions.insert(RequestMetaObject::from(meta));
        }
        JsonRpcMessage::Request(JsonRpcRequest::new(
            self.id,
            ClientRequest::CallToolRequest(request),
        ))
    }
}

/// A line without its byte order mark, carriage return and surrounding whitespace.
fn trim(line: &[u8]) -> &[u8] {
    let line = line.trim_ascii();
    line.strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(line)
        .trim_ascii()
}

fn too_large(message: String) -> Refusal {
    Refusal {
        code: ErrorCode::INVALID_REQUEST,
        arguments: Some(ArgumentProblem {
            pointer: String::new(),
            message: message.clone(),
        }),
        message: format!("Invalid request: {message}"),
    }
}

/// A key given twice: a `Value` would keep only the last, silently changing what was sent.
fn duplicate(envelope: &Envelope, problem: ArgumentProblem) -> Refusal {
    let in_arguments = problem
        .pointer
        .strip_prefix("/params/arguments")
        .filter(|rest| rest.is_empty() || rest.starts_with('/'))
        .filter(|_| envelope.method.as_str().as_deref() == Some("tools/call"));
    Refusal {
        code: ErrorCode::INVALID_REQUEST,
        message: format!(
            "Invalid request: at `{}`: {}",
            problem.pointer, problem.message
        ),
        arguments: in_arguments.map(|rest| ArgumentProblem {
            pointer: rest.to_owned(),
            message: problem.message.clone(),
        }),
    }
}

/// The checks JSON-RPC 2.0 and MCP ask of a message, then rmcp's own reading of it.
fn checked(
    value: Value,
    envelope: &Envelope,
    id: &Id,
) -> Result<RxJsonRpcMessage<RoleServer>, Refusal> {
    let Value::Object(message) = &value else {
        let refusal = match value {
            Value::Array(_) => Refusal {
                code: ErrorCode::INVALID_REQUEST,
                message: BATCHES_REFUSED.to_owned(),
                arguments: None,
            },
            _ => Refusal::invalid_request(
                "a JSON-RPC message is an object with `jsonrpc`, `method` and `id`".to_owned(),
            ),
        };
        dispose(value);
        return Err(refusal);
    };
    if message.get("jsonrpc") != Some(&Value::from("2.0")) {
        let got = message
            .get("jsonrpc")
            .map_or_else(|| "it is missing".to_owned(), |got| format!("got `{got}`"));
        return Err(Refusal::invalid_request(format!(
            "`jsonrpc` must be \"2.0\"; {got}"
        )));
    }
    if let Id::Invalid { why, .. } = id {
        return Err(Refusal::invalid_request(why.clone()));
    }
    let method = message.get("method");
    if method.is_some_and(|method| !method.is_string()) {
        return Err(Refusal::invalid_request(
            "`method` must be a string".to_owned(),
        ));
    }
    if let Some(params) = message.get("params")
        && !params.is_object()
    {
        return Err(Refusal {
            code: ErrorCode::INVALID_PARAMS,
            message: format!(
                "Invalid params: `params` must be an object (MCP names every parameter); got {}",
                crate::describe_value::type_name(params)
            ),
            arguments: None,
        });
    }
    if method.is_none() && !message.contains_key("result") && !message.contains_key("error") {
        return Err(Refusal::invalid_request(
            "a message has a `method` (a request or notification) or a `result` or `error` (a \
             response)"
                .to_owned(),
        ));
    }
    let method = envelope.method.as_str();
    let message = serde_json::from_value(value).map_err(|error| Refusal {
        code: ErrorCode::INVALID_PARAMS,
        message: match method {
            Some(method) => format!("Invalid params for `{method}`: {error}"),
            None => format!("Invalid request: {error}"),
        },
        arguments: None,
    })?;
    match misread(&message) {
        Some(refusal) => Err(refusal),
        None => Ok(message),
    }
}

/// rmcp reads a standard request whose params it cannot read as a custom request, which its
/// server answers with "method not found"; for the methods a tool server serves, what is wrong
/// with the params instead.
fn misread(message: &RxJsonRpcMessage<RoleServer>) -> Option<Refusal> {
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    let ClientRequest::CustomRequest(custom) = &request.request else {
        return None;
    };
    misread_params(custom).map(|why| Refusal {
        code: ErrorCode::INVALID_PARAMS,
        message: format!("Invalid params for `{}`: {why}", custom.method),
        arguments: None,
    })
}

/// What is wrong with the params of a standard method rmcp read as a custom one.
fn misread_params(custom: &CustomRequest) -> Option<String> {
    let error = match custom.method.as_str() {
        "tools/call" if custom.params.is_none() => {
            return Some("`params` with the tool's `name` is required".to_owned());
        }
        "tools/call" => custom.params_as::<CallToolRequestParams>().err(),
        "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
            custom.params_as::<PaginatedRequestParams>().err()
        }
        "prompts/get"
        | "resources/read"
        | "resources/subscribe"
        | "resources/unsubscribe"
        | "completion/complete"
            if custom.params.is_none() =>
        {
            return Some(format!(
                "`params` are required: {}",
                required_params(&custom.method)
            ));
        }
        "prompts/get" => custom.params_as::<GetPromptRequestParams>().err(),
        "resources/read" => custom.params_as::<ReadResourceRequestParams>().err(),
        "resources/subscribe" => custom.params_as::<SubscribeRequestParams>().err(),
        "resources/unsubscribe" => custom.params_as::<UnsubscribeRequestParams>().err(),
        "completion/complete" => custom.params_as::<CompleteRequestParams>().err(),
        _ => None,
    };
    error.map(|error| error.to_string())
}

/// What the params of a request that needs them hold.
fn required_params(method: &str) -> &'static str {
    match method {
        "prompts/get" => "the prompt's `name`, and its `arguments` as strings",
        "completion/complete" => {
            "`ref` (a prompt or a resource template), and `argument` with its `name` and `value`"
        }
        _ => "the resource's `uri`",
    }
}

/// The answer to a refused line: none for a notification (JSON-RPC never answers those), a
/// tool error for a `tools/call` whose arguments are at fault, a JSON-RPC error otherwise.
fn refuse(envelope: &Envelope, id: &Id, refusal: Refusal) -> Admission {
    let method = envelope.method.as_str();
    if *id == Id::Absent && method.is_some() {
        return Admission::Ignore(format!(
            "a notification that cannot be read: {}",
            refusal.message
        ));
    }
    if method.as_deref() == Some("tools/call")
        && let (Some(problem), Some(tool), Id::Valid(raw)) =
            (refusal.arguments, envelope.tool_name.as_str(), id)
    {
        let text = ToolError::InvalidArguments {
            tool,
            problems: vec![problem],
        }
        .to_string();
        return Admission::Reply(result_line(raw, &text));
    }
    Admission::Reply(error_line(id.echo(), refusal.code, &refusal.message))
}

/// A JSON-RPC error as one line. The id is spliced in as raw text so that it goes back exactly
/// as it came, even where serde_json would rewrite it (`18446744073709551616`, `7e3`).
fn error_line(id: &str, code: ErrorCode, message: &str) -> Vec<u8> {
    let error = serde_json::json!({"code": code.0, "message": message});
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{error}}}\n").into_bytes()
}

/// A tool error as one line: the result every protocol version reads (`content`, `isError`).
fn result_line(id: &str, text: &str) -> Vec<u8> {
    let result = serde_json::json!({"content": [{"type": "text", "text": text}], "isError": true});
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}\n").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        let mut envelope = Envelope::default();
        envelope.feed(line.as_bytes());
        match admit(Some(line.as_bytes()), &envelope, &WireLimits::default()) {
            Admission::Reply(bytes) => serde_json::from_slice(&bytes).unwrap(),
            other => panic!("not answered: {other:?}"),
        }
    }

    /// What rmcp reads and what the quick path reads, as rmcp writes each back (which puts the
    /// extensions' `_meta` in `params`).
    fn both_readings(line: &str) -> (Value, Option<Value>) {
        let rmcp: RxJsonRpcMessage<RoleServer> = serde_json::from_str(line).unwrap();
        let quick = serde_json::from_str::<ToolsCall>(line)
            .ok()
            .map(|call| serde_json::to_value(call.into_message()).unwrap());
        (serde_json::to_value(rmcp).unwrap(), quick)
    }

    #[test]
    fn a_plain_tools_call_is_read_as_rmcp_reads_it() {
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":[null,2.5,{"c":"d"}]}}}"#,
            r#"{"jsonrpc":"2.0","id":"x-1","method":"tools/call","params":{"name":"add"}}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"add","arguments":null}}"#,
            r#"{"method":"tools/call","params":{"_meta":{"progressToken":3,"k":[1]},"arguments":{},"name":"é\n"},"id":-4,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add","_meta":null}}"#,
        ] {
            let (rmcp, quick) = both_readings(line);
            assert_eq!(Some(rmcp), quick, "{line}");
        }
    }

    #[test]
    fn any_other_member_is_left_to_rmcp() {
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","requestState":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","task":{"ttl":1}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add"},"extra":1}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"name":"add"}}"#,
            r#"{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{"name":"add"}}"#,
        ] {
            assert!(serde_json::from_str::<ToolsCall>(line).is_err(), "{line}");
        }
    }

    #[test]
    fn ids_rmcp_cannot_carry_go_back_as_sent() {
        for id in ["9223372036854775808", "18446744073709551616", "1.0", "7e3"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let reply = String::from_utf8(
                match admit(
                    Some(line.as_bytes()),
                    &{
                        let mut e = Envelope::default();
                        e.feed(line.as_bytes());
                        e
                    },
                    &WireLimits::default(),
                ) {
                    Admission::Reply(bytes) => bytes,
                    other => panic!("{other:?}"),
                },
            )
            .unwrap();
            assert!(reply.contains(&format!("\"id\":{id},")), "{reply}");
            assert!(reply.contains("-32600"), "{reply}");
        }
    }

    #[test]
    fn malformed_envelopes_are_answered_with_their_id() {
        let reply = answer(r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#);
        assert_eq!(reply["id"], 4);
        assert_eq!(reply["error"]["code"], -32600);
        let reply = answer(r#"{"id":"x","method":"ping"}"#);
        assert_eq!(reply["id"], "x");
        let reply = answer(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[1]}"#);
        assert_eq!(reply["id"], 5);
        assert_eq!(reply["error"]["code"], -32602);
        let reply = answer(r#"{"jsonrpc":"2.0","id":6,"method":"ping","method":"ping"}"#);
        assert_eq!(reply["id"], 6);
        assert_eq!(reply["error"]["code"], -32600);
        let reply = answer(r#"[{"jsonrpc":"2.0","id":7,"method":"ping"}]"#);
        assert_eq!(reply["id"], Value::Null);
        let reply = answer(r#"{"jsonrpc":"2.0","id":8,"#);
        assert_eq!(reply["id"], Value::Null);
        assert_eq!(reply["error"]["code"], -32700);
    }

    #[test]
    fn a_message_cut_short_is_said_to_be_the_message() {
        // Cut inside `arguments`: the message is not JSON, so its arguments were never read.
        let reply =
            answer(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","argu"#);
        assert_eq!(reply["id"], Value::Null);
        assert_eq!(reply["error"]["code"], -32700);
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("Parse error: the message is not complete JSON: it ends too early"),
            "{message}"
        );
        assert!(!message.contains("arguments"), "{message}");
        let reply = answer(r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#);
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("Parse error: the message is not valid JSON: trailing"),
            "{message}"
        );
    }

    #[test]
    fn duplicate_arguments_are_a_tool_error() {
        let reply = answer(
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris","city":"Rome"}}}"#,
        );
        assert_eq!(reply["id"], 9);
        assert_eq!(reply["result"]["isError"], true);
        let text = reply["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("get_weather"), "{text}");
        assert!(text.contains("city"), "{text}");
    }

    #[test]
    fn prompt_resource_and_completion_requests_without_their_params_say_what_they_need() {
        for (method, words) in [
            ("prompts/get", "the prompt's `name`"),
            ("resources/read", "the resource's `uri`"),
            ("resources/subscribe", "the resource's `uri`"),
            ("completion/complete", "`ref`"),
        ] {
            let reply = answer(&format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"{method}"}}"#
            ));
            assert_eq!(reply["id"], 3, "{method}");
            assert_eq!(reply["error"]["code"], -32602, "{method}");
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(message.contains(words), "{method}: {message}");
        }
        let reply =
            answer(r#"{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":5}}"#);
        assert_eq!(reply["error"]["code"], -32602);
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("prompts/get")
        );
    }
}
