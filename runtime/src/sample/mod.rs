//! [`Sample`]: a tool asks the client's model for a message while it runs (MCP sampling).
//!
//! See [`Sample`]; the request is in `request.rs`, the reply in `reply.rs`.

mod reply;
mod request;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub use reply::{SampleReply, SampleStopReason};
pub use request::{
    IncludeContext, ModelPreferences, SampleContent, SampleMessage, SampleRequest, SampleTool,
    SampleToolChoice, SampleToolResult, SampleToolUse,
};

use crate::context::{CallContext, ContextError, FromCallContext};

/// The future a [`SampleHandler`] returns (boxed, so that handlers can be trait objects).
pub type SampleFuture<'a> =
    Pin<Box<dyn Future<Output = Result<SampleReply, SampleError>> + Send + 'a>>;

/// Why [`Sample::create`] has no reply. `Unsupported`, `ToolsUnsupported` and
/// `ContextUnsupported` say what the client cannot do, which a tool handles (do without, or
/// ask more simply); `InvalidRequest` is a mistake in the tool's request; the rest are the
/// client's refusal or failures.
///
/// A tool may return it as its error (`Result<_, SampleError>`), or `?` it into a
/// `Result<_, String>`: either way, its text is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SampleError {
    /// Nobody's model can be asked: the client does not declare sampling, or the tool runs
    /// where no [`SampleHandler`] was installed.
    #[error("the client's model cannot be asked here: the client does not support sampling")]
    Unsupported,
    /// The request offers the model tools (or carries tool uses or results), and the client
    /// does not declare sampling with tools (`sampling.tools`).
    #[error(
        "the client's model cannot be given tools: the client does not declare sampling with \
         tools (`sampling.tools`); ask without tools"
    )]
    ToolsUnsupported,
    /// The request asks for context from the client's MCP servers (`includeContext`
    /// `thisServer` or `allServers`), and the client does not declare it
    /// (`sampling.context`).
    #[error(
        "the client cannot include its servers' context: it does not declare \
         `sampling.context`; ask with `IncludeContext::None`"
    )]
    ContextUnsupported,
    /// The request is not one MCP takes: what is wrong with it.
    #[error("the sampling request is not valid: {0}")]
    InvalidRequest(String),
    /// The client (or its user, who may review each request) refused it: its message.
    #[error("the client refused the sampling request: {0}")]
    Refused(String),
    /// The reply came too late (the server stopped waiting for the client to send it).
    #[error("the client's model did not reply in time")]
    TimedOut,
    /// The request was cancelled before the reply came (the task it belongs to was).
    #[error("the sampling request was cancelled")]
    Cancelled,
    /// The client's reply is not one MCP allows: what is wrong with it.
    #[error("the client's reply is not valid: {0}")]
    InvalidReply(String),
    /// The request could not be sent or answered (the connection failed, say).
    #[error("asking the client's model failed: {0}")]
    Failed(String),
}

impl From<SampleError> for String {
    fn from(error: SampleError) -> String {
        error.to_string()
    }
}

/// What a [`Sample`]'s handler can do beyond plain messages: MCP's `sampling.tools` and
/// `sampling.context` capabilities. A request that needs more is refused before it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SampleFeatures {
    /// Tools for the model, tool choice, and tool uses and results in messages.
    pub tools: bool,
    /// An `includeContext` other than `none`.
    pub context: bool,
}

impl SampleFeatures {
    /// Everything: what an application's own handler is taken to do.
    pub const ALL: SampleFeatures = SampleFeatures {
        tools: true,
        context: true,
    };

    /// Plain messages only.
    pub const PLAIN: SampleFeatures = SampleFeatures {
        tools: false,
        context: false,
    };

    /// These features, with tools or without.
    #[must_use]
    pub fn with_tools(self, tools: bool) -> SampleFeatures {
        SampleFeatures { tools, ..self }
    }

    /// These features, with context or without.
    #[must_use]
    pub fn with_context(self, context: bool) -> SampleFeatures {
        SampleFeatures { context, ..self }
    }
}

impl Default for SampleFeatures {
    fn default() -> SampleFeatures {
        SampleFeatures::ALL
    }
}

/// Where a call's sampling requests go. Install one with [`CallContext::with_sample`].
///
/// The request it gets has been checked ([`SampleError::InvalidRequest`] and the features of
/// the [`Sample`] it is installed in); the reply it gives is checked in turn. A closure
/// `Fn(SampleRequest) -> impl Future<Output = Result<SampleReply, SampleError>>` is a handler:
///
/// ```
/// use tooldef::{CallContext, Sample, SampleReply, SampleRequest};
///
/// // An agent loop's own model (a test double here: it says the same thing every time).
/// let context = CallContext::new().with_sample(Sample::new(|request: SampleRequest| async move {
///     let _ = request.messages;
///     Ok(SampleReply::text_from("my-model", "Paris"))
/// }));
/// # let _ = context;
/// ```
pub trait SampleHandler: Send + Sync + 'static {
    /// Asks the model, and gives its reply.
    fn sample(&self, request: SampleRequest) -> SampleFuture<'_>;
}

impl<F, Fut> SampleHandler for F
where
    F: Fn(SampleRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<SampleReply, SampleError>> + Send + 'static,
{
    fn sample(&self, request: SampleRequest) -> SampleFuture<'_> {
        Box::pin(self(request))
    }
}

/// A tool's way to ask the client's model (MCP sampling), injected into a tool parameter of
/// this type.
///
/// A tool takes a `Sample` parameter (injected context, not an argument), and asks:
///
/// ```
/// use tooldef::{Sample, SampleError, tool};
///
/// /// Summarise a text in one sentence.
/// #[tool(read_only)]
/// async fn summarise(
///     /// The text.
///     text: String,
///     sample: Sample,
/// ) -> Result<String, SampleError> {
///     sample.text(format!("Summarise in one sentence:\n\n{text}"), 200).await
/// }
/// ```
///
/// [`Sample::create`] takes the whole of MCP's `sampling/createMessage`: several messages
/// (text, images, audio), a system prompt, model preferences, a temperature, stop sequences,
/// the context to include, and tools the model may use, and gives the whole reply:
///
/// ```
/// use tooldef::{IncludeContext, ModelPreferences, Sample, SampleContent, SampleError, SampleRequest};
///
/// async fn describe(sample: &Sample, png: &[u8]) -> Result<String, SampleError> {
///     let request = SampleRequest::new(300)
///         .system_prompt("You describe images for screen readers, in plain words.")
///         .user(SampleContent::image_bytes(png, "image/png"))
///         .user("What is in this image?")
///         .model_preferences(ModelPreferences::new().hint("claude-3-5-sonnet").speed(0.8))
///         .temperature(0.2)
///         .stop_sequence("\n\n\n")
///         .include_context(IncludeContext::None);
///     let reply = sample.create(request).await?;
///     Ok(format!("{} (by {})", reply.text().unwrap_or_default(), reply.model))
/// }
/// ```
///
/// An application that runs a [`ToolSet`](crate::ToolSet) itself answers with a handler of its
/// own (its model, or a test double):
///
/// ```
/// use tooldef::{CallContext, Sample, SampleReply, SampleRequest, ToolSet, tool};
///
/// /// Name a colour.
/// #[tool]
/// async fn colour(sample: Sample) -> String {
///     sample.text("Name a colour.", 10).await.unwrap_or_else(|error| error.to_string())
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = ToolSet::builder().tool(Colour).build()?;
/// let model = Sample::new(|_request: SampleRequest| async {
///     Ok(SampleReply::text_from("test-model", "teal"))
/// });
/// let call = CallContext::new().with_sample(model);
/// assert_eq!(tools.call_with("colour", "{}", call).await?.to_text(), "teal");
/// // Without a handler, nobody's model can be asked.
/// let output = tools.call("colour", "{}").await?;
/// assert!(output.to_text().contains("sampling"));
/// # Ok(())
/// # }
/// ```
///
/// Where the request goes is the caller's business: a [`SampleHandler`] installed in the call's
/// context with [`CallContext::with_sample`]. The MCP server (feature `mcp`) installs one per
/// call, as it does for [`Elicit`](crate::Elicit) and through the same machinery:
/// `sampling/createMessage` to clients of MCP 2025-11-25 and earlier, an `input_required` result
/// and the client's retry for MCP 2026-07-28, `tasks/get`'s `inputRequests` inside a task. A
/// client that does not declare the `sampling` capability gets no request: the tool hears
/// [`SampleError::Unsupported`] at once. Tools for the model (and tool results) need the
/// client's `sampling.tools`, and a context other than `none` its `sampling.context`; without
/// them the request is refused before it is sent ([`SampleError::ToolsUnsupported`],
/// [`SampleError::ContextUnsupported`]).
///
/// Every request is checked before it goes ([`SampleError::InvalidRequest`]: no messages, a
/// tool result without its tool use, a priority out of 0 to 1…) and every reply when it comes
/// ([`SampleError::InvalidReply`]: a reply said by the user, a tool the request did not offer).
#[derive(Clone)]
pub struct Sample {
    handler: Option<Arc<dyn SampleHandler>>,
    features: SampleFeatures,
}

impl Default for Sample {
    fn default() -> Sample {
        Sample::unsupported()
    }
}

impl Sample {
    /// Requests go to `handler`, which takes every feature ([`SampleFeatures::ALL`]; say
    /// otherwise with [`with_features`](Sample::with_features)).
    pub fn new(handler: impl SampleHandler) -> Sample {
        Sample {
            handler: Some(Arc::new(handler)),
            features: SampleFeatures::ALL,
        }
    }

    /// Nobody's model to ask: every request is answered [`SampleError::Unsupported`].
    pub fn unsupported() -> Sample {
        Sample {
            handler: None,
            features: SampleFeatures::PLAIN,
        }
    }

    /// The same handler, taking only `features`: a request that needs more is refused before
    /// it reaches the handler.
    #[must_use]
    pub fn with_features(self, features: SampleFeatures) -> Sample {
        Sample { features, ..self }
    }

    /// Whether there is a model to ask (a handler was installed).
    pub fn is_supported(&self) -> bool {
        self.handler.is_some()
    }

    /// What the handler takes beyond plain messages (nothing without a handler).
    pub fn features(&self) -> SampleFeatures {
        if self.is_supported() {
            self.features
        } else {
            SampleFeatures::PLAIN
        }
    }

    /// Asks the model `prompt` (one user message), in at most `max_tokens` tokens, and gives
    /// the text of its reply. A reply without text (an image, say) is
    /// [`SampleError::InvalidReply`]; use [`create`](Sample::create) for those.
    pub async fn text(
        &self,
        prompt: impl Into<String>,
        max_tokens: u32,
    ) -> Result<String, SampleError> {
        let reply = self
            .create(SampleRequest::new(max_tokens).user(prompt.into()))
            .await?;
        reply.text().ok_or_else(|| {
            SampleError::InvalidReply(format!(
                "the model replied with no text ({})",
                reply.describe_content()
            ))
        })
    }

    /// Sends `request` to the model and gives its reply, once both are checked.
    pub async fn create(&self, request: SampleRequest) -> Result<SampleReply, SampleError> {
        let Some(handler) = &self.handler else {
            return Err(SampleError::Unsupported);
        };
        request.check(self.features)?;
        let offered: Vec<String> = request
            .tools
            .iter()
            .filter_map(|tool| tool.name().map(str::to_owned))
            .collect();
        let reply = handler.sample(request).await?;
        reply.check(&offered).map_err(SampleError::InvalidReply)?;
        Ok(reply)
    }
}

impl fmt::Debug for Sample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sample")
            .field("supported", &self.is_supported())
            .field("features", &self.features())
            .finish()
    }
}

impl CallContext {
    /// Where the tools of this call send their sampling requests (see [`Sample`]).
    #[must_use]
    pub fn with_sample(self, sample: Sample) -> CallContext {
        self.with_state(sample)
    }
}

/// Never fails: without a handler in the context, the tool gets one that answers every request
/// [`SampleError::Unsupported`].
impl FromCallContext for Sample {
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
        Ok(context.state::<Sample>().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    /// A handler that records what it was sent and replies `reply`.
    fn answering(reply: SampleReply) -> (Sample, Arc<Mutex<Vec<SampleRequest>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        let sample = Sample::new(move |request: SampleRequest| {
            record.lock().unwrap().push(request);
            let reply = reply.clone();
            async move { Ok(reply) }
        });
        (sample, seen)
    }

    #[test]
    fn text_asks_one_user_message_and_gives_the_reply_text() {
        let (sample, seen) = answering(SampleReply::text_from("m", "Paris"));
        assert_eq!(
            block_on(sample.text("Capital of France?", 10)),
            Ok("Paris".into())
        );
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].max_tokens, 10);
        assert_eq!(
            seen[0].messages,
            [SampleMessage::user("Capital of France?")]
        );
    }

    #[test]
    fn without_a_handler_or_a_feature_nothing_is_sent() {
        block_on(async {
            assert_eq!(
                Sample::unsupported().text("hi", 5).await,
                Err(SampleError::Unsupported)
            );
            let context = CallContext::new();
            let sample = Sample::from_call_context(&context).unwrap();
            assert_eq!(sample.text("hi", 5).await, Err(SampleError::Unsupported));

            let (sample, seen) = answering(SampleReply::text_from("m", "ok"));
            let plain = sample.with_features(SampleFeatures::PLAIN);
            let tool =
                SampleTool::new("lookup", "Look a word up.", json!({"type": "object"})).unwrap();
            assert_eq!(
                plain
                    .create(SampleRequest::new(5).user("hi").tool(tool))
                    .await,
                Err(SampleError::ToolsUnsupported)
            );
            assert_eq!(
                plain
                    .create(
                        SampleRequest::new(5)
                            .user("hi")
                            .include_context(IncludeContext::ThisServer)
                    )
                    .await,
                Err(SampleError::ContextUnsupported)
            );
            // `none` is no context, which every client takes.
            assert!(
                plain
                    .create(
                        SampleRequest::new(5)
                            .user("hi")
                            .include_context(IncludeContext::None)
                    )
                    .await
                    .is_ok()
            );
            assert_eq!(seen.lock().unwrap().len(), 1, "only the valid one was sent");
        });
    }

    #[test]
    fn a_reply_with_a_tool_not_offered_or_no_text_is_invalid() {
        block_on(async {
            let mut input = serde_json::Map::new();
            input.insert("word".into(), "hello".into());
            let reply = SampleReply {
                model: "m".into(),
                stop_reason: Some(SampleStopReason::ToolUse),
                content: vec![SampleContent::ToolUse(SampleToolUse {
                    id: "t1".into(),
                    name: "delete_everything".into(),
                    input,
                })],
            };
            let (sample, _) = answering(reply.clone());
            let tool =
                SampleTool::new("lookup", "Look a word up.", json!({"type": "object"})).unwrap();
            let Err(SampleError::InvalidReply(why)) = sample
                .create(SampleRequest::new(5).user("hi").tool(tool))
                .await
            else {
                panic!("a tool not offered is refused");
            };
            assert!(why.contains("delete_everything"), "{why}");
            let Err(SampleError::InvalidReply(why)) = sample.text("hi", 5).await else {
                panic!("a tool use where no tool was offered is refused");
            };
            assert!(why.contains("offered no tools"), "{why}");

            let (sample, _) = answering(SampleReply {
                model: "m".into(),
                stop_reason: None,
                content: vec![SampleContent::image("aGk=", "image/png")],
            });
            let Err(SampleError::InvalidReply(why)) = sample.text("draw", 5).await else {
                panic!("no text");
            };
            assert!(why.contains("image/png"), "{why}");
        });
    }
}
