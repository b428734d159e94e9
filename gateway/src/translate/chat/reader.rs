//! Reading a Chat upstream's stream: each chunk as deltas, the calls told apart by their
//! index and id.

use serde::Deserialize;
use serde_json::Value;

use crate::translate::common::{new_id, null_as_default, parse_reply};
use crate::translate::ir::{Delta, ErrorBody};

use super::error::read_error;
use super::reply::{ChatUsage, read_finish};

/// A chunk of a streamed reply.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default, deserialize_with = "null_as_default")]
    id: String,
    model: Option<String>,
    created: Option<i64>,
    #[serde(default, deserialize_with = "null_as_default")]
    choices: Vec<ChunkChoice>,
    usage: Option<ChatUsage>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default, deserialize_with = "null_as_default")]
    index: u64,
    #[serde(default, deserialize_with = "null_as_default")]
    delta: ChunkDelta,
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct ChunkDelta {
    content: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    refusal: Option<String>,
    tool_calls: Option<Vec<CallFragment>>,
}

#[derive(Deserialize)]
struct CallFragment {
    #[serde(default, deserialize_with = "null_as_default")]
    index: u64,
    id: Option<String>,
    function: Option<FunctionFragment>,
}

#[derive(Deserialize)]
struct FunctionFragment {
    name: Option<String>,
    arguments: Option<String>,
}

/// Reads a Chat upstream's chunks.
#[derive(Debug, Default)]
pub struct Reader {
    started: bool,
    /// The calls started so far: the index Chat gave each, and its id.
    calls: Vec<(u64, String)>,
}

impl Reader {
    /// The deltas of one chunk.
    pub fn read(&mut self, event: &Value) -> Result<Vec<Delta>, ErrorBody> {
        if let Some(error) = read_error(event) {
            return Err(error);
        }
        let chunk: Chunk =
            parse_reply("A Chat Completions chunk", event).map_err(|message| ErrorBody {
                message,
                kind: "upstream_error".to_owned(),
                code: None,
                param: None,
            })?;
        let mut deltas = Vec::new();
        if !self.started {
            self.started = true;
            deltas.push(Delta::Start {
                id: chunk.id,
                model: chunk.model,
                created: chunk.created,
            });
        }
        // One choice is asked for (`n` other than 1 is refused): another is not this reply.
        for choice in chunk.choices.into_iter().filter(|choice| choice.index == 0) {
            self.read_delta(choice.delta, &mut deltas);
            if let Some(reason) = choice.finish_reason {
                deltas.push(Delta::Finish(read_finish(&reason)));
            }
        }
        if let Some(usage) = chunk.usage {
            deltas.push(Delta::Usage(usage.read()));
        }
        Ok(deltas)
    }

    fn read_delta(&mut self, delta: ChunkDelta, deltas: &mut Vec<Delta>) {
        if let Some(text) = delta.reasoning_content.or(delta.reasoning)
            && !text.is_empty()
        {
            deltas.push(Delta::Reasoning(text));
        }
        for text in [delta.content, delta.refusal].into_iter().flatten() {
            if !text.is_empty() {
                deltas.push(Delta::Text(text));
            }
        }
        for fragment in delta.tool_calls.into_iter().flatten() {
            self.read_fragment(fragment, deltas);
        }
    }

    /// A fragment of a call: one with an index not seen, or with an id other than that index's
    /// call (a server that numbers every call 0), starts a call; the others add to the
    /// arguments of the call of their index.
    fn read_fragment(&mut self, fragment: CallFragment, deltas: &mut Vec<Delta>) {
        let (name, arguments) = fragment
            .function
            .map_or((None, None), |function| (function.name, function.arguments));
        let known = self
            .calls
            .iter()
            .rposition(|(index, _)| *index == fragment.index);
        let starts = match (known, &fragment.id) {
            (None, _) => true,
            (Some(position), Some(id)) => !id.is_empty() && self.calls[position].1 != *id,
            (Some(_), None) => false,
        };
        let position = if starts {
            let id = fragment
                .id
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| new_id("call_"));
            deltas.push(Delta::CallStart {
                index: self.calls.len(),
                id: id.clone(),
                name: name.unwrap_or_default(),
            });
            self.calls.push((fragment.index, id));
            self.calls.len() - 1
        } else {
            known.unwrap_or_default()
        };
        if let Some(arguments) = arguments.filter(|arguments| !arguments.is_empty()) {
            deltas.push(Delta::CallArguments {
                index: position,
                delta: arguments,
            });
        }
    }
}
