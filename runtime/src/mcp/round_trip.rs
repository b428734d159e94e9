//! MCP 2026-07-28's results that ask for more input (SEP-2322), for a tool that asks the user
//! ([`Elicit`](crate::Elicit)) or the client's model ([`Sample`](crate::Sample)) mid-call.
//!
//! MCP 2026-07-28 has no server-to-client requests: a call whose tool asks a question (or
//! samples) is answered with an `input_required` result holding the request and a
//! `requestState`, and the client sends the call again with the answer (`inputResponses`) and
//! that state. Both kinds of request go through one [`Channel`](asking::Channel), the
//! [`Asker`] here. The tool is
//! not run again: its future is parked under the state (a random handle, bound to the tool's
//! name and arguments), and the retry hands it the answer and polls it on to what it does next,
//! the result or another question. So code before `ask` runs once, as with a 2025-11-25 client.
//! The future is polled only within a request's handler, never in a task of its own: rmcp ties
//! what a handler sends (progress, logs) to its request through task-locals, which a spawned
//! task would not have. While parked, the tool waits for its answer and is not polled.
//!
//! A retry whose state is unknown here (it expired, or another instance of the server made it)
//! runs the tool afresh with the answers it carries, each given to the question of its key as it
//! is asked again, so a stateless deployment behind a load balancer still works, at the cost of
//! running the code before the first question once more.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use rmcp::model::{InputRequest, InputRequests, InputRequiredResult};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::asking::{self, Channel, ClientTakes, Failure, Keys, Kind};
use crate::{CallContext, ToolError, ToolOutput, ToolSet};

/// How long a parked call waits for the client's retry before it is stopped.
pub const INPUT_WAIT: Duration = Duration::from_secs(600);

/// How many calls may wait at once; beyond, the one parked longest is stopped.
const MAX_PARKED: usize = 1024;

/// A request the tool made, on its way to the client.
struct Asked {
    key: String,
    request: InputRequest,
    answer: oneshot::Sender<Value>,
}

/// A tool's call under way, and the questions it asks.
struct Running {
    call: BoxFuture<'static, Result<ToolOutput, ToolError>>,
    questions: mpsc::UnboundedReceiver<Asked>,
    /// Told when the call is dropped (the client cancelled a round, or it waited too long):
    /// what the tool started with its token stops too.
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A call waiting for the client's retry.
struct Parked {
    tool: String,
    arguments: Value,
    running: Running,
    waiting: Asked,
    since: Instant,
}

/// What a round of a call came to.
pub(super) enum Round {
    /// The tool finished.
    Done(Result<ToolOutput, ToolError>),
    /// The tool asked a question: send this, and wait for the retry.
    Asks(InputRequiredResult),
}

/// The calls waiting for their client's retry, by `requestState`.
#[derive(Default)]
pub(super) struct RoundTrips {
    parked: Mutex<HashMap<String, Parked>>,
}

/// One call of a 2026-07-28 client.
pub(super) struct Call {
    pub tools: ToolSet,
    pub tool: String,
    pub arguments: Value,
    /// The call's context, less its cancellation, `Elicit` and `Sample`, which are this
    /// module's.
    pub context: CallContext,
    /// What the client takes (its capabilities in this request).
    pub takes: ClientTakes,
    pub request_state: Option<String>,
    pub input_responses: Option<rmcp::model::InputResponses>,
}

impl RoundTrips {
    /// Runs a round of `call`: a parked call resumed with the client's answer, or the tool
    /// started; until it finishes, asks a question, or `cancelled` (the client cancelled this
    /// request) fires, which stops the tool.
    pub(super) async fn round(
        &self,
        call: Call,
        cancelled: CancellationToken,
    ) -> Result<Round, ToolError> {
        let Call {
            tools,
            tool,
            arguments,
            context,
            takes,
            request_state,
            input_responses,
        } = call;
        let mut answers = input_responses.unwrap_or_default();
        let resumed = request_state
            .as_deref()
            .and_then(|state| self.take(state, &tool, &arguments));
        let running = match resumed {
            Some(parked) => {
                let Parked {
                    running, waiting, ..
                } = parked;
                match answers.remove(&waiting.key) {
                    Some(answer) => {
                        // The tool may have been stopped meanwhile; the round then says so.
                        let _ = waiting.answer.send(answer);
                        running
                    }
                    // A retry without the answer: ask again.
                    None => return Ok(self.park(tool, arguments, running, waiting)),
                }
            }
            None => {
                let (ask, questions) = mpsc::unbounded_channel();
                let asker = Asker {
                    ask,
                    answers: Mutex::new(answers.into_iter().collect()),
                    keys: Keys::default(),
                };
                let stop = CancellationToken::new();
                let context = context.with_cancellation(stop.clone());
                let context = asking::install(context, std::sync::Arc::new(asker), takes);
                let (name, given) = (tool.clone(), arguments.clone());
                Running {
                    call: Box::pin(async move { tools.call_with(&name, given, context).await }),
                    questions,
                    stop,
                }
            }
        };
        self.drive(tool, arguments, running, cancelled).await
    }

    /// Waits for the tool's next move.
    async fn drive(
        &self,
        tool: String,
        arguments: Value,
        mut running: Running,
        cancelled: CancellationToken,
    ) -> Result<Round, ToolError> {
        tokio::select! {
            finished = &mut running.call => Ok(Round::Done(finished)),
            Some(asked) = running.questions.recv() => Ok(self.park(tool, arguments, running, asked)),
            () = cancelled.cancelled() => Err(ToolError::Failed {
                tool,
                message: "the client cancelled the call".into(),
            }),
        }
    }

    /// Parks the call under a new state, and gives the result that asks the client.
    fn park(&self, tool: String, arguments: Value, running: Running, waiting: Asked) -> Round {
        let state = handle();
        let mut requests = InputRequests::new();
        requests.insert(waiting.key.clone(), waiting.request.clone());
        let mut parked = self.parked.lock().unwrap_or_else(PoisonError::into_inner);
        parked.retain(|_, call| call.since.elapsed() < INPUT_WAIT);
        if parked.len() >= MAX_PARKED
            && let Some(oldest) = parked
                .iter()
                .min_by_key(|(_, call)| call.since)
                .map(|(state, _)| state.clone())
        {
            parked.remove(&oldest);
        }
        parked.insert(
            state.clone(),
            Parked {
                tool,
                arguments,
                running,
                waiting,
                since: Instant::now(),
            },
        );
        Round::Asks(InputRequiredResult::new(Some(requests), Some(state)))
    }

    /// The call parked under `state`, if it is this tool with these arguments and still
    /// waiting.
    fn take(&self, state: &str, tool: &str, arguments: &Value) -> Option<Parked> {
        let mut parked = self.parked.lock().unwrap_or_else(PoisonError::into_inner);
        let fits = parked.get(state).is_some_and(|call| {
            call.tool == tool && call.arguments == *arguments && call.since.elapsed() < INPUT_WAIT
        });
        if fits { parked.remove(state) } else { None }
    }
}

/// A call's requests: sent to the round that polls the call, unless the retry that started it
/// came with their answers (a state this server did not know).
struct Asker {
    ask: mpsc::UnboundedSender<Asked>,
    /// The answers the retry came with, by key, taken as the requests are made again.
    answers: Mutex<BTreeMap<String, Value>>,
    keys: Keys,
}

impl Channel for Asker {
    fn send(&self, kind: Kind, request: InputRequest) -> BoxFuture<'_, Result<Value, Failure>> {
        Box::pin(async move {
            let key = self.keys.next(kind);
            let given = self
                .answers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&key);
            if let Some(answer) = given {
                return Ok(answer);
            }
            let (answer, answered) = oneshot::channel();
            self.ask
                .send(Asked {
                    key,
                    request,
                    answer,
                })
                .map_err(|_| Failure::Failed("the call has ended".into()))?;
            // Dropped unanswered: the client did not come back in time.
            answered.await.map_err(|_| Failure::TimedOut)
        })
    }
}

/// A `requestState`: 122 random bits (a version 4 UUID), so that no client can guess another's.
fn handle() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}
