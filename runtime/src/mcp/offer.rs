//! What an [`McpServer`](super::McpServer) serves beside its tools, from the same
//! [`ToolSet`](crate::ToolSet): prompts (`prompts/list`, `prompts/get`), resources
//! (`resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`,
//! `resources/unsubscribe`) and completion of their arguments (`completion/complete`).

use std::collections::BTreeSet;
use std::sync::Arc;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptResult, Prompt as RmcpPrompt,
    PromptMessage, ReadResourceResult, Reference, Resource as RmcpResource,
    ResourceContents as RmcpContents, ResourceTemplate as RmcpTemplate,
};
use rmcp::{ErrorData, Peer, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::sessions::Sessions;
use crate::{
    CallContext, CompletionRequest, PromptError, ResourceDefinition, ResourceError, StringArgs,
    ToolSet,
};

/// The prompts, resources and templates of a tool set as rmcp's types, made once per set.
pub(super) struct Offer {
    pub(super) prompts: Arc<[RmcpPrompt]>,
    pub(super) resources: Arc<[RmcpResource]>,
    pub(super) templates: Arc<[RmcpTemplate]>,
}

impl Offer {
    pub(super) fn of(tools: &ToolSet) -> Result<Offer, String> {
        Ok(Offer {
            prompts: rmcp_items(tools.prompts().map(|p| p.to_mcp()), "prompt")?,
            resources: rmcp_items(
                tools.resources().map(ResourceDefinition::to_mcp),
                "resource",
            )?,
            templates: rmcp_items(
                tools.resource_templates().map(ResourceDefinition::to_mcp),
                "resource template",
            )?,
        })
    }
}

fn rmcp_items<T: DeserializeOwned>(
    values: impl Iterator<Item = Value>,
    kind: &str,
) -> Result<Arc<[T]>, String> {
    values
        .map(|value| {
            serde_json::from_value(value)
                .map_err(|err| format!("a {kind} definition rmcp cannot read: {err}"))
        })
        .collect::<Result<Vec<T>, _>>()
        .map(Arc::from)
}

/// One page of a listing: where it starts and ends, and the cursor of the next.
pub(super) struct Page {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) next_cursor: Option<String>,
}

impl Page {
    /// The page `cursor` names of `len` items listed `size` a page, for the listing of
    /// `generation`. Cursors are opaque to clients: `<generation>.<offset>`, in hex, so that a
    /// cursor from before a swap of the set is refused rather than silently paging through
    /// another list.
    pub(super) fn of(
        cursor: Option<&str>,
        generation: u64,
        len: usize,
        size: usize,
    ) -> Result<Page, ErrorData> {
        let start = match cursor {
            None => 0,
            Some(given) => match parse_cursor(given) {
                Some((of, offset)) if of == generation && offset <= len => offset,
                _ => {
                    return Err(ErrorData::invalid_params(
                        "this cursor is not valid (the list may have changed): list again from \
                         the start",
                        None,
                    ));
                }
            },
        };
        let end = (start + size).min(len);
        Ok(Page {
            start,
            end,
            next_cursor: (end < len).then(|| format!("{generation:x}.{end:x}")),
        })
    }
}

fn parse_cursor(cursor: &str) -> Option<(u64, usize)> {
    let (generation, offset) = cursor.split_once('.')?;
    Some((
        u64::from_str_radix(generation, 16).ok()?,
        usize::from_str_radix(offset, 16).ok()?,
    ))
}

/// A prompt's arguments as MCP sends them: strings. A number or a boolean is taken as its
/// JSON text, since some clients send them unquoted; anything else is refused.
pub(super) fn prompt_arguments(
    arguments: Option<Map<String, Value>>,
) -> Result<StringArgs, ErrorData> {
    let mut args = StringArgs::new();
    for (name, value) in arguments.unwrap_or_default() {
        let text = match value {
            Value::String(text) => text,
            Value::Number(_) | Value::Bool(_) => value.to_string(),
            // An argument left out, in the only way some forms can.
            Value::Null => continue,
            Value::Array(_) | Value::Object(_) => {
                return Err(ErrorData::invalid_params(
                    format!("prompt argument `{name}` must be a string, not {value}"),
                    None,
                ));
            }
        };
        args.insert(name, text);
    }
    Ok(args)
}

/// `prompts/get`'s answer.
pub(super) async fn get_prompt(
    tools: &ToolSet,
    name: &str,
    arguments: StringArgs,
    context: CallContext,
) -> Result<GetPromptResult, ErrorData> {
    let reply = tools
        .get_prompt(name, arguments, context)
        .await
        .map_err(prompt_error)?;
    let messages = reply
        .messages
        .iter()
        .map(|message| serde_json::from_value::<PromptMessage>(message.to_mcp()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| {
            ErrorData::internal_error(
                format!("prompt `{name}` made a message rmcp cannot send: {err}"),
                None,
            )
        })?;
    // rmcp's constructor marks the result `complete`, which MCP 2026-07-28 requires.
    let result = GetPromptResult::new(messages);
    Ok(match reply.description {
        Some(description) => result.with_description(description),
        None => result,
    })
}

fn prompt_error(error: PromptError) -> ErrorData {
    if let PromptError::Unavailable { reason, .. }
    | PromptError::Panicked {
        message: reason, ..
    } = &error
    {
        tracing::error!(%error, %reason, "prompt failed");
    }
    if error.is_invalid_params() {
        ErrorData::invalid_params(error.to_string(), None)
    } else {
        ErrorData::internal_error(error.to_string(), None)
    }
}

/// `resources/read`'s answer.
pub(super) async fn read_resource(
    tools: &ToolSet,
    uri: &str,
    context: CallContext,
) -> Result<ReadResourceResult, ErrorData> {
    let contents = tools
        .read_resource(uri, context)
        .await
        .map_err(resource_error)?;
    let contents = contents
        .iter()
        .map(|contents| serde_json::from_value::<RmcpContents>(contents.to_mcp()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| {
            ErrorData::internal_error(
                format!("`{uri}` gave contents rmcp cannot send: {err}"),
                None,
            )
        })?;
    // As for prompts: rmcp's constructor marks the result `complete`.
    Ok(ReadResourceResult::new(contents))
}

fn resource_error(error: ResourceError) -> ErrorData {
    match &error {
        ResourceError::NotFound { uri } => ErrorData::resource_not_found(
            error.to_string(),
            Some(serde_json::json!({ "uri": uri })),
        ),
        ResourceError::Variable { .. } => ErrorData::invalid_params(error.to_string(), None),
        ResourceError::Unavailable { reason, .. }
        | ResourceError::Panicked {
            message: reason, ..
        } => {
            tracing::error!(%error, %reason, "resource failed");
            ErrorData::internal_error(error.to_string(), None)
        }
        _ => ErrorData::internal_error(error.to_string(), None),
    }
}

/// `completion/complete`'s answer, for a prompt's argument or a template's variable.
pub(super) async fn complete(
    tools: &ToolSet,
    request: CompleteRequestParams,
    context: CallContext,
) -> Result<CompleteResult, ErrorData> {
    let others: StringArgs = request
        .context
        .and_then(|context| context.arguments)
        .unwrap_or_default()
        .into_iter()
        .collect();
    let asked = CompletionRequest::new(request.argument.name, request.argument.value)
        .with_arguments(others);
    let completions = match &request.r#ref {
        Reference::Prompt(prompt) => tools
            .complete_prompt(&prompt.name, asked, context)
            .await
            .map_err(prompt_error)?,
        Reference::Resource(template) => tools
            .complete_resource(&template.uri, asked, context)
            .await
            .map_err(|error| match error {
                // The reference names a template: one that is not there is the client's error.
                ResourceError::NotFound { uri } => ErrorData::invalid_params(
                    format!("there is no resource template `{uri}`"),
                    None,
                ),
                other => resource_error(other),
            })?,
        _ => {
            return Err(ErrorData::invalid_params(
                "completion is for `ref/prompt` and `ref/resource` references",
                None,
            ));
        }
    };
    let mut info = CompletionInfo::default();
    info.values = completions.values;
    info.total = completions.total;
    info.has_more = completions.has_more.then_some(true);
    Ok(CompleteResult::new(info))
}

/// The resources each session of MCP 2025-11-25 and earlier subscribed to.
#[derive(Default)]
pub(super) struct Subscriptions {
    sessions: Sessions<BTreeSet<String>>,
}

impl Subscriptions {
    /// `resources/subscribe`: the URI must be one the server can read.
    pub(super) fn subscribe(
        &self,
        tools: &ToolSet,
        peer: &Peer<RoleServer>,
        uri: String,
    ) -> Result<(), ErrorData> {
        if !readable(tools, &uri) {
            return Err(resource_error(ResourceError::NotFound { uri }));
        }
        self.sessions
            .update(peer, BTreeSet::new, |uris| {
                uris.insert(uri);
            })
            .map_err(|_| no_session("resources/subscribe"))
    }

    /// `resources/unsubscribe`.
    pub(super) fn unsubscribe(&self, peer: &Peer<RoleServer>, uri: &str) -> Result<(), ErrorData> {
        self.sessions
            .update(peer, BTreeSet::new, |uris| {
                uris.remove(uri);
            })
            .map_err(|_| no_session("resources/unsubscribe"))
    }

    /// The sessions subscribed to `uri`.
    pub(super) fn subscribers(&self, uri: &str) -> Vec<Peer<RoleServer>> {
        self.sessions.peers(|uris| uris.contains(uri))
    }
}

/// Whether `uri` is a fixed resource's or matches a template.
pub(super) fn readable(tools: &ToolSet, uri: &str) -> bool {
    tools.resources().any(|r| r.uri() == uri)
        || tools.resource_templates().any(|r| match r.address() {
            crate::Address::Template(template) => template.matches(uri).is_some(),
            crate::Address::Fixed(_) => false,
        })
}

fn no_session(method: &str) -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode::METHOD_NOT_FOUND,
        format!(
            "{method} needs a session started with `initialize` (MCP 2025-11-25 and earlier); on \
             MCP 2026-07-28, list the resource's URI in `resourceSubscriptions` of \
             `subscriptions/listen`"
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_follow_their_cursors_and_refuse_others() {
        let first = Page::of(None, 3, 250, 100).unwrap();
        assert_eq!((first.start, first.end), (0, 100));
        let second = Page::of(first.next_cursor.as_deref(), 3, 250, 100).unwrap();
        assert_eq!((second.start, second.end), (100, 200));
        assert!(Page::of(second.next_cursor.as_deref(), 4, 250, 100).is_err());
        assert!(Page::of(Some("nonsense"), 3, 250, 100).is_err());
        assert!(Page::of(Some("3.zz"), 3, 250, 100).is_err());
        let last = Page::of(Some("3.c8"), 3, 250, 100).unwrap();
        assert_eq!((last.start, last.end, last.next_cursor), (200, 250, None));
    }
}
