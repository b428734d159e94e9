//! The client's API. The conversation loop (`crate::rounds`) is one algorithm; each API the
//! gateway serves is one implementation of [`ClientApi`], holding only its wire details: its
//! path and target ([`Api`]), its request and reply shapes, how calls are read and results
//! written, its stream events, what it keeps for a follow-up and under which keys, and how an
//! answer cut short is marked. The implementing type is the request's own state across its
//! rounds (what it has shown, what it hides), made by [`ClientApi::prepare`].

mod chat;
mod kind;
mod messages;
mod responses;

use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};
use tooldef::calls::ToolCall;

use crate::conversation::Budget;
use crate::error::ApiError;
use crate::gateway::Inner;
use crate::injection::Injection;
use crate::mcp_tool::McpEntry;
use crate::rounds::{End, Round};
use crate::servers::CallOutcome;
use crate::store::{Kept, StoreError};

pub use chat::Chat;
pub use kind::Api;
pub use messages::{COUNT_TOKENS_PATH, Messages, count_tokens};
pub use responses::Responses;

/// What the loop needs of a request before its rounds.
pub struct Prepare<'a> {
    /// The gateway.
    pub inner: &'a Arc<Inner>,
    /// The client's request, its hosted-MCP entries taken out.
    pub request: &'a mut Map<String, Value>,
    /// Those entries.
    pub entries: &'a [McpEntry],
    /// The request's tools.
    pub injection: &'a Injection,
    /// Its bounds (approvals decided now count against them).
    pub budget: &'a mut Budget,
    /// What the store keeps under the keys [`ClientApi::store_keys`] gave, by key.
    pub kept: &'a std::collections::HashMap<String, Arc<Kept>>,
    /// What [`ClientApi::echoed_tools`] read.
    pub echoed_tools: Option<Value>,
}

/// An event of the client's stream: its `data`, and the name Responses and Messages give it in
/// `event:` (their `type`).
pub type Event = Value;

/// One client API: what the loop cannot know without knowing the API.
pub trait ClientApi: Sized + Send + Sync + 'static {
    /// Which API.
    const API: Api;

    /// The request member holding the conversation (`messages`, `input`).
    const CONVERSATION: &'static str;

    /// Whether its stream's events are named (`event:` lines, as Responses and Messages have
    /// them); Chat Completions' are `data:` only.
    const NAMED_EVENTS: bool = true;

    /// The `data:` that ends its stream after the last event (Chat Completions' `[DONE]`).
    const DONE: Option<&'static str> = None;

    /// What the client's stream has been told so far, across the rounds.
    type Stream: StreamFace<Self>;

    /// The request's bounds: the configuration's, lowered by the request.
    fn budget(
        config: &crate::config::Config,
        request: &mut Map<String, Value>,
    ) -> Result<Budget, ApiError> {
        Budget::of_request(config, request, false)
    }

    /// The hosted-MCP entries of the request (OpenAI's `mcp` tools, Anthropic's MCP connector),
    /// taken out of it: no upstream sees them.
    fn take_entries(request: &mut Map<String, Value>) -> Result<Vec<McpEntry>, ApiError>;

    /// The store keys of what the gateway may keep for this request's conversation (its
    /// `previous_response_id`, the client's call ids), and whether the request cannot go on
    /// without them when the store cannot be read (see `store::in_progress`).
    fn store_keys(request: &Map<String, Value>) -> (Vec<String>, bool);

    /// Everything before the rounds: what the store kept put back into the conversation, the
    /// hosted-MCP items translated for the upstream and the approvals they carry decided. The
    /// request is then what goes upstream, its conversation included.
    fn prepare(context: Prepare<'_>) -> impl Future<Output = Result<Self, ApiError>> + Send;

    /// The client's conversation, taken out of the request (the rounds send it with their
    /// additions).
    fn conversation(request: &mut Map<String, Value>) -> Result<Vec<Value>, ApiError> {
        match request.remove(Self::CONVERSATION) {
            Some(Value::Array(items)) => Ok(items),
            _ => Err(ApiError::invalid(
                format!("`{}` must be an array.", Self::CONVERSATION),
                "invalid_request",
            )
            .param(Self::CONVERSATION)),
        }
    }

    /// The client's `tools` as a reply echoes them, read before its hosted-MCP entries are taken
    /// out (Responses echoes them; the others do not).
    fn echoed_tools(request: &Map<String, Value>) -> Option<Value> {
        let _ = request;
        None
    }

    /// A request the loop does not run (inject mode, or no injected tools): what the client's
    /// hosted-MCP items leave undecided is answered "not run".
    fn unrun(&mut self, request: &mut Map<String, Value>) {
        let _ = request;
    }

    /// Refuses what the rounds cannot do (Chat's `n` above 1).
    fn check_rounds(request: &Map<String, Value>) -> Result<(), ApiError> {
        let _ = request;
        Ok(())
    }

    /// A `tool_choice` in the API's words: OpenAI's `auto`, `none` or `required`, unless the API
    /// says it otherwise.
    fn tool_choice(&self, choice: Choice, client: Option<&Value>) -> Value {
        let _ = client;
        Value::from(match choice {
            Choice::Auto => "auto",
            Choice::None => "none",
            Choice::Required => "required",
        })
    }

    /// What the client's `tool_choice` forces, if it forces a call: it is sent in the first round
    /// only, or the model would call tools for ever.
    fn forced(choice: &Value) -> Option<crate::rounds::Forced>;

    /// Whether the client's `tool_choice` forbids calls (OpenAI's `"none"`): nothing is
    /// injected then.
    fn forbids_calls(choice: &Value) -> bool {
        choice == "none"
    }

    /// The name of one of the client's tools.
    fn tool_name(tool: &Value) -> Option<&str>;

    /// Reads a whole reply (its calls each with what happens to it).
    fn read_reply(&self, reply: Value, injection: &Injection) -> Result<Round, String>;

    /// Takes a round's reply into the answer the client will get (its text, the items it is
    /// shown), when the answer is whole.
    fn absorb(&mut self, round: &Round);

    /// After the round's calls ran (`ran`: each with its outcome, in the order of
    /// `round.runs()`): adds the
    /// round and the results to the conversation (`added`) when the rounds go on, or gives what
    /// the follow-up needs kept (the turn ends with the client's calls or approval requests),
    /// and the items the client is shown of the calls. Calls whose arguments are not a JSON
    /// object are added with `{}`: they were not run, and the upstream is never sent them back.
    fn after_calls(
        &mut self,
        round: &Round,
        ran: &[(ToolCall, CallOutcome)],
        added: &mut Vec<Value>,
        names: &Names<'_>,
    ) -> AfterCalls;

    /// What a round that ends the rounds without running anything keeps (Responses: which
    /// upstream response a visible one stands for), before the client is answered.
    fn at_end(&mut self, last: &Round) -> Vec<(Vec<String>, Kept)> {
        let _ = last;
        Vec::new()
    }

    /// The whole answer: the last reply made the client's.
    fn answer(&mut self, last: Round, end: &End) -> Value;
}

/// What an injected name stands for.
pub struct Names<'a> {
    /// The request's tools.
    pub injection: &'a Injection,
    /// The gateway's sources.
    pub sources: &'a [crate::catalog::Source],
}

impl Names<'_> {
    /// The server (its label) and the tool's own name that an injected name stands for; `None`
    /// for any other name (the gateway's search tool among them).
    pub fn server_and_tool(&self, name: &str) -> Option<(&str, &str)> {
        self.injection.server_and_tool(self.sources, name)
    }
}

/// A kept turn of an API whose follow-up carries the model's message again (Chat, Messages): the
/// rounds before it, the model's whole message, the results of the gateway's calls.
pub struct Turn<'a> {
    /// The rounds before it.
    pub earlier: &'a [Value],
    /// The model's message, every call in it.
    pub assistant: &'a Value,
    /// The gateway's calls' results.
    pub results: &'a [Value],
}

/// Puts the kept turns back into a conversation whose assistant messages carry the client's
/// calls: a message one of whose call ids (`call_ids`) a turn was kept under (`key`), and which
/// does not carry the whole turn itself, becomes the model's whole message, preceded by the
/// rounds before it; `place` puts the results after it, as the API wants them, and gives how
/// many messages they took.
pub fn reinsert_turns<'k, I>(
    messages: &mut Vec<Value>,
    kept: &'k std::collections::HashMap<String, Arc<Kept>>,
    key: fn(&str) -> String,
    call_ids: impl Fn(&Value) -> I,
    turn: fn(&'k Kept) -> Option<Turn<'k>>,
    place: fn(&mut Vec<Value>, usize, &[Value]) -> usize,
) where
    I: Iterator<Item = String>,
{
    let mut i = 0;
    while i < messages.len() && !kept.is_empty() {
        let found = call_ids(&messages[i]).find_map(|id| kept.get(&key(&id)));
        let Some(turn) = found.and_then(|kept| turn(kept)) else {
            i += 1;
            continue;
        };
        if call_ids(&messages[i]).count() >= call_ids(turn.assistant).count() {
            // The client sent the whole turn itself.
            i += 1;
            continue;
        }
        messages[i] = turn.assistant.clone();
        let placed = place(messages, i, turn.results);
        messages.splice(i..i, turn.earlier.iter().cloned());
        i += turn.earlier.len() + 1 + placed;
    }
}

/// What a turn whose calls ran does next.
pub struct AfterCalls {
    /// Whether the rounds end with it (calls went to the client or wait for approval).
    pub ends: bool,
    /// What to keep for the follow-up, each entry under its keys.
    pub keep: Vec<(Vec<String>, Kept)>,
    /// The items the client is shown of the calls (hosted MCP).
    pub shown: Vec<Value>,
}

/// A `tool_choice` the loop sets in place of the client's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// After a round whose call the client forced.
    Auto,
    /// In the last round: the model must answer rather than leave a call dangling.
    None,
    /// A forced round, with its named tool alone in the request (upstreams that refuse a named
    /// choice, as llama.cpp's server does, take this).
    Required,
}

/// The client's stream, across the rounds: the upstream's events made one stream.
pub trait StreamFace<A: ClientApi>: Send + Sized {
    /// A face for the client's request.
    fn new(api: &A, request: &Map<String, Value>) -> Self;

    /// One upstream event of `round`: the events the client is sent (re-indexed, the injected
    /// calls held back), or the error that ends the stream.
    fn event(
        &mut self,
        api: &A,
        injection: &Injection,
        round: u32,
        event: Value,
    ) -> Result<Vec<Event>, Failure>;

    /// The round's reply, once its events ended: read as a whole reply is.
    fn round(&mut self, api: &A, injection: &Injection) -> Result<Round, Failure>;

    /// The events shown before calls run (hosted-MCP calls starting).
    fn running(&mut self, api: &A, round: &Round, names: &Names<'_>) -> Vec<Event>;

    /// The events shown after the calls ran: the items the client is shown of them.
    fn ran(&mut self, api: &A, shown: Vec<Value>) -> Vec<Event>;

    /// The events that end the stream.
    fn finish(&mut self, api: &mut A, last: Round, end: &End) -> Vec<Event>;

    /// The event that ends the stream with an error.
    fn fail(&mut self, error: &crate::translate::ir::ErrorBody) -> Event;
}

/// Why a stream ends early.
pub enum Failure {
    /// The upstream said so in an event of its own, sent on as it came.
    Upstream(Event),
    /// The gateway's own error.
    Gateway(crate::translate::ir::ErrorBody),
}

impl From<StoreError> for Failure {
    fn from(err: StoreError) -> Failure {
        Failure::Gateway(err.on_write().into())
    }
}
