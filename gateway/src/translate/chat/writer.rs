//! Writing deltas as Chat chunks for a Chat client: the role's chunk first, the finish and the
//! usage last.

use serde_json::{Value, json};

use crate::translate::common::{id_with_prefix, new_id, now};
use crate::translate::ir::{Delta, Finish, Request, Usage};

use super::ID_PREFIX;
use super::reply::{write_finish, write_usage};

/// Writes deltas as Chat chunks, for a Chat client.
#[derive(Debug)]
pub struct Writer {
    id: String,
    created: i64,
    model: String,
    include_usage: bool,
    started: bool,
    called: bool,
    finish: Option<Finish>,
    usage: Option<Usage>,
    finished: bool,
}

impl Writer {
    /// A writer for a client whose request was `request`.
    pub fn new(request: &Request) -> Writer {
        Writer {
            id: new_id(ID_PREFIX),
            created: now(),
            model: request.model.clone().unwrap_or_default(),
            include_usage: request.include_usage,
            started: false,
            called: false,
            finish: None,
            usage: None,
            finished: false,
        }
    }

    /// The chunks that say `delta`.
    pub fn write(&mut self, delta: Delta) -> Vec<Value> {
        let mut chunks = Vec::new();
        if let Delta::Start { id, model, created } = &delta {
            self.id = id_with_prefix(id, ID_PREFIX);
            if let Some(model) = model {
                self.model.clone_from(model);
            }
            if let Some(created) = created {
                self.created = *created;
            }
        }
        self.start(&mut chunks);
        match delta {
            Delta::Start { .. } | Delta::ReasoningSignature(_) => {}
            Delta::Text(text) => chunks.push(self.chunk(json!({"content": text}), None)),
            Delta::Reasoning(text) => {
                chunks.push(self.chunk(json!({"reasoning_content": text}), None));
            }
            Delta::CallStart { index, id, name } => {
                self.called = true;
                chunks.push(self.chunk(
                    json!({"tool_calls": [{
                        "index": index,
                        "id": id,
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }]}),
                    None,
                ));
            }
            Delta::CallArguments { index, delta } => chunks.push(self.chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": delta}}]}),
                None,
            )),
            Delta::Finish(finish) => self.finish = Some(finish),
            Delta::Usage(usage) => self.usage = Some(usage),
        }
        chunks
    }

    /// The chunk with the `finish_reason` and, when the client asked for it and it is known,
    /// the chunk of usage.
    pub fn finish(&mut self) -> Vec<Value> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let mut chunks = Vec::new();
        self.start(&mut chunks);
        let finish = self.finish.clone().unwrap_or(Finish::Stop);
        let reason = write_finish(&finish, self.called);
        chunks.push(self.chunk(json!({}), Some(reason)));
        if let (true, Some(usage)) = (self.include_usage, &self.usage) {
            let mut chunk = self.envelope();
            chunk["choices"] = json!([]);
            chunk["usage"] = write_usage(usage);
            chunks.push(chunk);
        }
        chunks
    }

    /// The first chunk, which says who speaks.
    fn start(&mut self, chunks: &mut Vec<Value>) {
        if !self.started {
            self.started = true;
            chunks.push(self.chunk(json!({"role": "assistant", "content": null}), None));
        }
    }

    fn envelope(&self) -> Value {
        json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
        })
    }

    fn chunk(&self, delta: Value, finish_reason: Option<String>) -> Value {
        let mut chunk = self.envelope();
        chunk["choices"] = json!([{
            "index": 0,
            "delta": delta,
            "logprobs": null,
            "finish_reason": finish_reason,
        }]);
        chunk
    }
}
