//! What the three APIs' readers and writers share: reading a field with a refusal that names
//! it, fresh ids, `data:` URLs, and the one way a conversation's turns are gathered into
//! messages (so that reading any API and writing any other gives the same messages back).

use serde::Deserialize;
use serde_json::{Map, Value};

use super::ir::{Call, Finish, Message, Part, Refusal, Role, ToolResult};

/// Reads `value` (found at `at`, in the request field `param`) as a `T`. A value of the wrong
/// shape is a refusal that says where, down to the nested field (`messages[2].content[0].text`),
/// and what was expected: the client fixes its request, nothing is guessed.
pub(super) fn parse<'a, T: Deserialize<'a>>(
    param: &'static str,
    at: &str,
    value: &'a Value,
) -> Result<T, Refusal> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let place = if path == "." {
            at.to_owned()
        } else if path.starts_with('[') {
            format!("{at}{path}")
        } else {
            format!("{at}.{path}")
        };
        Refusal::new(
            param,
            format!("`{place}` cannot be read: {}.", error.into_inner()),
        )
    })
}

/// Reads a reply's `value` as a `T`, or says what in it is not as the API has it.
pub(super) fn parse_reply<'a, T: Deserialize<'a>>(
    what: &str,
    value: &'a Value,
) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        format!(
            "{what} cannot be read at `{}`: {}",
            error.path(),
            error.inner()
        )
    })
}

/// A field of the request that no API this gateway translates between has: refused rather than
/// dropped, since the client asked for something and would not get it.
pub(super) fn unknown_field(api: &str, key: &str) -> Refusal {
    Refusal::new(
        "request",
        format!(
            "`{key}` is not a field of the {api} API that the gateway can carry to an upstream \
             that speaks another API: remove it, or point the gateway at an upstream that speaks \
             the {api} API."
        ),
    )
}

/// A field of the request whose value only the client's own API can honour.
pub(super) fn untranslatable(param: &'static str, api: &str, what: &str) -> Refusal {
    Refusal::new(
        param,
        format!(
            "`{param}` {what}, which only the {api} API has: an upstream that speaks another API \
             cannot honour it. Remove it, or point the gateway at an upstream that speaks the \
             {api} API."
        ),
    )
}

/// Whether a JSON value says nothing: `null`, or an empty list. Such fields are taken as
/// absent, as the APIs take them.
pub(super) fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// A fresh id: `prefix` and 32 hex digits, as OpenAI's and Anthropic's ids look.
pub(super) fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", uuid::Uuid::new_v4().simple())
}

/// `id` when it already has the prefix the client's API gives its ids (the upstream speaks the
/// same kind of id), else a fresh one: SDKs and clients may check the prefix.
pub(super) fn id_with_prefix(id: &str, prefix: &str) -> String {
    if id.starts_with(prefix) && id.len() > prefix.len() {
        id.to_owned()
    } else {
        new_id(prefix)
    }
}

/// Now, in seconds since the epoch: the creation time of a reply the upstream gave none.
pub(super) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        })
}

/// A `data:` URL's media type and base64 data, if it is a base64 `data:` URL.
pub(super) fn split_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (header, data) = rest.split_once(',')?;
    let media_type = header.strip_suffix(";base64")?;
    Some((media_type, data))
}

/// A base64 `data:` URL.
pub(super) fn data_url(media_type: &str, data: &str) -> String {
    format!("data:{media_type};base64,{data}")
}

/// Adds a tool result to the conversation. Results that follow each other are one user message
/// (as Messages has them, and as Chat's consecutive `tool` messages and Responses'
/// consecutive `function_call_output` items are read).
pub(super) fn push_result(messages: &mut Vec<Message>, result: ToolResult) {
    match messages.last_mut() {
        Some(last)
            if last.role == Role::User
                && last
                    .parts
                    .iter()
                    .all(|part| matches!(part, Part::Result(_))) =>
        {
            last.parts.push(Part::Result(result));
        }
        _ => messages.push(Message {
            role: Role::User,
            parts: vec![Part::Result(result)],
        }),
    }
}

/// Adds a user's message. One that comes right after tool results joins their message, as the
/// user's words after the results of a turn are one user message in Messages: every API's
/// reader gathers them so, and every writer writes such a message as the results first and then
/// the words, so that any API read and written in any other gives the same messages back.
pub(super) fn push_user(messages: &mut Vec<Message>, parts: Vec<Part>) {
    match messages.last_mut() {
        Some(last)
            if last.role == Role::User && matches!(last.parts.last(), Some(Part::Result(_))) =>
        {
            last.parts.extend(parts);
        }
        _ => messages.push(Message {
            role: Role::User,
            parts,
        }),
    }
}

/// The text of a system message, for the APIs whose system prompt is a string: its text parts,
/// a blank line between them. Anything but text cannot be a system prompt.
pub(super) fn system_text(message: &Message, param: &'static str) -> Result<String, Refusal> {
    let mut texts = Vec::new();
    for part in &message.parts {
        match part {
            Part::Text { text } => texts.push(text.as_str()),
            other => {
                return Err(Refusal::new(
                    param,
                    format!(
                        "A system message can only hold text, and this one holds {}: move it to a \
                         user message.",
                        part_name(other)
                    ),
                ));
            }
        }
    }
    Ok(texts.join("\n\n"))
}

/// What a part is, in words, for refusals.
pub(super) fn part_name(part: &Part) -> &'static str {
    match part {
        Part::Text { .. } => "text",
        Part::Image { .. } => "an image",
        Part::File { .. } => "a file",
        Part::Reasoning { .. } => "reasoning",
        Part::Call(_) => "a tool call",
        Part::Result(_) => "a tool result",
    }
}

/// A part that `role`'s messages cannot hold in any API (a call in a user message, a result in
/// an assistant message): the conversation is not one a model can be given.
pub(super) fn misplaced(param: &'static str, role: Role, part: &Part) -> Refusal {
    let role = match role {
        Role::System => "a system",
        Role::User => "a user",
        Role::Assistant => "an assistant",
    };
    Refusal::new(
        param,
        format!(
            "{} cannot be in {role} message: tool calls are the assistant's, tool results and \
             files the user's.",
            capitalised(part_name(part))
        ),
    )
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The reply's calls.
pub(super) fn calls(parts: &[Part]) -> impl Iterator<Item = &Call> {
    parts.iter().filter_map(|part| match part {
        Part::Call(call) => Some(call),
        _ => None,
    })
}

/// Why a reply ended, as the client's API will say it: a reply that called tools and was not cut
/// ended for its calls (Responses says so only by its calls, and some servers say `stop`); one
/// that says it ended for calls but made none simply stopped.
pub(super) fn effective_finish(finish: &Finish, called: bool) -> Finish {
    match finish {
        Finish::Stop | Finish::ToolCalls if called => Finish::ToolCalls,
        Finish::ToolCalls => Finish::Stop,
        other => other.clone(),
    }
}

/// A call's arguments as a JSON object, for the APIs that carry them as one (Messages'
/// `input`). Arguments that are not an object (a reply cut short in the middle of them) are the
/// empty object: the API has no way to say them, and the call can only fail anyway.
pub(super) fn arguments_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => Value::Object(Map::new()),
    }
}

/// Pushes `text` as a text part, unless it is empty: an empty text says nothing (llama.cpp
/// writes `content: ""` beside calls), and Messages refuses empty text blocks.
pub(super) fn push_text(parts: &mut Vec<Part>, text: &str) {
    if text.is_empty() {
        return;
    }
    parts.push(Part::Text {
        text: text.to_owned(),
    });
}

/// Messages' thinking budget for an OpenAI reasoning effort: `low` 1024 tokens (the least
/// Messages takes), `medium` 4096, `high` 16384, `xhigh` 32768; `minimal` and `none` ask for no
/// thinking at all.
pub(super) fn budget_of_effort(effort: &str) -> Result<Option<u64>, Refusal> {
    match effort {
        "none" | "minimal" => Ok(None),
        "low" => Ok(Some(1024)),
        "medium" => Ok(Some(4096)),
        "high" => Ok(Some(16384)),
        "xhigh" => Ok(Some(32768)),
        other => Err(Refusal::new(
            "reasoning_effort",
            format!(
                "The reasoning effort `{other}` has no thinking budget the gateway knows: use \
                 `none`, `minimal`, `low`, `medium`, `high` or `xhigh`."
            ),
        )),
    }
}

/// The OpenAI reasoning effort for a Messages thinking budget: the highest effort whose budget
/// (as [`budget_of_effort`] gives them) the budget reaches, `low` below 4096. `xhigh` is never
/// written: few models take it, and every reasoning model takes `high`.
pub(super) fn effort_of_budget(budget: u64) -> &'static str {
    match budget {
        0..4096 => "low",
        4096..16384 => "medium",
        _ => "high",
    }
}

/// An image's `detail`: `auto`, both OpenAI APIs' default, is read as not given, so that an image
/// is the same whichever API said it (Responses writes `auto`, which its SDK requires).
pub(super) fn read_detail(detail: Option<String>) -> Option<String> {
    detail.filter(|detail| detail != "auto")
}

/// Deserializes a reply's field that some servers write `null` when it is empty, as its
/// default (with `#[serde(default, deserialize_with = "null_as_default")]`): replies are read
/// tolerantly.
pub(super) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}
