//! The conversation loop, written once for every client API: inject the tools, send the round,
//! read the calls, run the gateway's, append the results, ask again, within the request's
//! bounds, and give the client one answer (`whole.rs`) or one stream (`stream.rs`). `entry.rs`
//! is the way in: the request read, its tools chosen, what the store kept put back. What differs
//! between APIs is their [`ClientApi`] implementation's; what differs between upstreams, the
//! link's (`crate::upstream::Link`).

mod entry;
mod stream;
mod whole;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderMap;
use serde_json::{Map, Value};
use tooldef::calls::ToolCall;

use crate::api::{AfterCalls, Choice, ClientApi, Names};
use crate::body::Outgoing;
use crate::conversation::{Bound, Budget, add_usage};
use crate::disposition::Disposition;
use crate::error::ApiError;
use crate::execute::execute_within;
use crate::gateway::Inner;
use crate::injection::Injection;
use crate::store::{KeptStore, StoreError};
use crate::translate::ir::Finish;
use crate::upstream::{Link, Sent};

pub use entry::{ClientRequest, serve};

/// One round's reply, in any API: what the loop decides by.
#[derive(Debug, Clone)]
pub struct Round {
    /// The reply's id, as the API writes it.
    pub id: Value,
    /// When it was made (`created`, `created_at`).
    pub created: Value,
    /// Its calls, in order, each with what happens to it.
    pub calls: Vec<(ToolCall, Disposition)>,
    /// Why it ended.
    pub finish: Finish,
    /// What it cost, in the API's words.
    pub usage: Option<Value>,
    /// The reply itself (a stream's, as its events made it).
    pub reply: Value,
}

impl Round {
    /// The calls the gateway answers now, in order.
    pub fn runs(&self) -> Vec<ToolCall> {
        self.calls
            .iter()
            .filter(|(_, disposition)| disposition.runs_here())
            .map(|(call, _)| call.clone())
            .collect()
    }

    /// The calls of `disposition`.
    pub fn of(&self, disposition: Disposition) -> impl Iterator<Item = &ToolCall> {
        self.calls
            .iter()
            .filter(move |(_, d)| *d == disposition)
            .map(|(call, _)| call)
    }

    /// Whether the gateway handles any of its calls.
    pub fn calls_the_gateways(&self) -> bool {
        self.calls.iter().any(|(_, d)| d.is_gateways())
    }

    /// Whether the call of id `id` is one the gateway handles, by the dispositions of this reply.
    pub fn is_gateways(&self, id: &str) -> bool {
        self.calls
            .iter()
            .any(|(call, d)| call.id == id && d.is_gateways())
    }
}

/// How the rounds ended, for the answer.
#[derive(Debug, Clone)]
pub struct End {
    /// How many rounds there were.
    pub rounds: u32,
    /// The gateway's bound that made the last round the last, if one did.
    pub bound: Option<Bound>,
    /// Whether the last reply was cut at the token limit.
    pub cut: bool,
    /// The first reply's id: the answer's.
    pub id: Value,
    /// The first reply's time: the answer's.
    pub created: Value,
    /// Every round's usage, summed.
    pub usage: Value,
}

/// What a forced `tool_choice` forces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Forced {
    /// Any call.
    Any,
    /// A call of this tool.
    Tool(String),
}

/// Why a round is the last.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ending {
    /// The gateway's bound that made it the last, if one did.
    pub bound: Option<Bound>,
    /// Whether it was cut at the token limit.
    pub cut: bool,
}

/// One client request's conversation with the upstream.
pub struct Rounds<A: ClientApi> {
    pub(crate) inner: Arc<Inner>,
    /// The upstream's API, and the way there.
    pub(crate) link: Link,
    pub(crate) injection: Injection,
    /// The client's headers as they go upstream.
    pub(crate) headers: HeaderMap,
    /// What the client's `tool_choice` forces (in the first round only).
    pub(crate) forced: Option<Forced>,
    /// The request's bounds, and the calls run so far.
    pub(crate) budget: Budget,
    /// The request without its conversation.
    pub(crate) request: Map<String, Value>,
    /// The client's conversation.
    pub(crate) conversation: Vec<Value>,
    /// What the rounds added to it.
    pub(crate) added: Vec<Value>,
    /// The API's own state of the request.
    pub(crate) api: A,
}

impl<A: ClientApi> Rounds<A> {
    /// What the request's injected names stand for.
    pub fn names(&self) -> Names<'_> {
        Names {
            injection: &self.injection,
            sources: &self.inner.sources,
        }
    }

    /// The request of round `round` (from 1).
    pub fn body(&self, round: u32) -> Outgoing<'_> {
        let mut only = None;
        let tool_choice = if self.budget.bound_at(round).is_some() {
            // The last round: the model must answer rather than leave a call dangling.
            Some(Choice::None)
        } else if round > 1 && self.forced.is_some() {
            Some(Choice::Auto)
        } else if let Some(Forced::Tool(name)) = &self.forced {
            // A named choice is said as `required` with that tool alone: what every upstream
            // takes (llama.cpp's server refuses a named one and falls back to `auto`).
            only = Some(name.as_str());
            Some(Choice::Required)
        } else {
            None
        };
        Outgoing {
            request: &self.request,
            conversation: Some((A::CONVERSATION, &self.conversation, &self.added)),
            tool_choice: tool_choice.map(|choice| {
                self.api
                    .tool_choice(choice, self.request.get("tool_choice"))
            }),
            only,
            tool_name: A::tool_name,
            injection: &self.injection,
        }
    }

    /// Whether the rounds end with `reply`, the reply of round `round`, and why: it was cut at the
    /// token limit (nothing of it runs: a call cut off has half its arguments), a bound makes it
    /// the last, or the gateway has nothing to do for it.
    pub fn ends(&self, round: u32, reply: &Round) -> Option<Ending> {
        let cut = reply.finish == Finish::Length;
        let bound = self.budget.bound_at(round);
        if !(cut || bound.is_some() || !reply.calls_the_gateways()) {
            return None;
        }
        if reply.calls_the_gateways() {
            tracing::warn!(
                round,
                cut,
                "the model called tools in the last round; they were not run"
            );
        }
        Some(Ending { bound, cut })
    }

    /// Runs the gateway's calls of `reply`, and adds them to the conversation or keeps what the
    /// follow-up needs: an error when it could not be kept, so that the client is not given a
    /// turn it could not follow up.
    pub async fn run(&mut self, reply: &Round) -> Result<AfterCalls, StoreError> {
        let runs = reply.runs();
        let outcomes = execute_within(
            &mut self.budget,
            &self.inner.sources,
            &self.injection,
            &runs,
            Duration::from_secs(self.inner.config.tool_timeout_secs),
        )
        .await;
        let names = Names {
            injection: &self.injection,
            sources: &self.inner.sources,
        };
        let ran: Vec<(ToolCall, _)> = runs.into_iter().zip(outcomes).collect();
        let after = self.api.after_calls(reply, &ran, &mut self.added, &names);
        for (keys, kept) in &after.keep {
            self.inner.store.put(keys.clone(), kept.clone()).await?;
        }
        Ok(after)
    }

    /// Sends round `round`.
    pub async fn send(&self, round: u32) -> Result<Sent, ApiError> {
        self.inner
            .upstream
            .send(
                &self.inner.store,
                self.link,
                &self.headers,
                &self.body(round),
            )
            .await
    }

    /// Keeps what a round that ends the rounds without running anything needs kept, before the
    /// client is answered.
    pub async fn at_end(&mut self, last: &Round) -> Result<(), StoreError> {
        for (keys, kept) in self.api.at_end(last) {
            self.inner.store.put(keys, kept).await?;
        }
        Ok(())
    }
}

/// What the rounds so far add up to: the first reply's id and time, and the usage of all.
#[derive(Debug, Default)]
pub struct Tally {
    first: Option<(Value, Value)>,
    usage: Value,
}

impl Tally {
    /// Counts a round's reply.
    pub fn count(&mut self, reply: &Round) {
        if self.first.is_none() {
            self.first = Some((reply.id.clone(), reply.created.clone()));
        }
        if let Some(usage) = reply.usage.as_ref().filter(|usage| !usage.is_null()) {
            add_usage(&mut self.usage, usage);
        }
    }

    /// How the rounds ended.
    pub fn end(&self, rounds: u32, ending: Ending) -> End {
        let (id, created) = self.first.clone().unwrap_or_default();
        End {
            rounds,
            bound: ending.bound,
            cut: ending.cut,
            id,
            created,
            usage: self.usage.clone(),
        }
    }
}
