//! Writing deltas as Messages events for a Messages client: the message, each block
//! opened and closed, and its end.

use serde_json::{Value, json};

use crate::translate::common::{id_with_prefix, new_id};
use crate::translate::ir::{Delta, Finish, Request, Usage};

use super::reader::Block;
use super::reply::{write_stop, write_usage};

/// Writes deltas as Messages events, for a Messages client: `message_start`, each block's
/// `content_block_start`, `content_block_delta`s and `content_block_stop` (a block is closed when
/// another starts), and at the end `message_delta` and `message_stop`.
#[derive(Debug)]
pub struct Writer {
    id: String,
    model: String,
    started: bool,
    /// The open block: its index and kind.
    open: Option<(usize, Block)>,
    blocks: usize,
    /// Each call's block index, by its index among the reply's calls.
    calls: Vec<usize>,
    finish: Option<Finish>,
    usage: Option<Usage>,
    finished: bool,
}

impl Writer {
    /// A writer for a client whose request was `request`.
    pub fn new(request: &Request) -> Writer {
        Writer {
            id: new_id("msg_"),
            model: request.model.clone().unwrap_or_default(),
            started: false,
            open: None,
            blocks: 0,
            calls: Vec::new(),
            finish: None,
            usage: None,
            finished: false,
        }
    }

    /// The events that say `delta`. `message_start` waits for the first content, so that it
    /// can have the input tokens an upstream gave at its start.
    pub fn write(&mut self, delta: Delta) -> Vec<Value> {
        let mut events = Vec::new();
        match delta {
            Delta::Start { id, model, .. } => {
                self.id = id_with_prefix(&id, "msg_");
                if let Some(model) = model {
                    self.model = model;
                }
            }
            Delta::Text(text) => {
                self.block(
                    Block::Text,
                    json!({"type": "text", "text": ""}),
                    &mut events,
                );
                self.delta(json!({"type": "text_delta", "text": text}), &mut events);
            }
            Delta::Reasoning(text) => {
                self.block(
                    Block::Thinking,
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                    &mut events,
                );
                self.delta(
                    json!({"type": "thinking_delta", "thinking": text}),
                    &mut events,
                );
            }
            Delta::ReasoningSignature(signature) => {
                if matches!(self.open, Some((_, Block::Thinking))) {
                    self.delta(
                        json!({"type": "signature_delta", "signature": signature}),
                        &mut events,
                    );
                }
            }
            Delta::CallStart { index, id, name } => {
                self.start(&mut events);
                self.close(&mut events);
                let at = self.open_block(
                    Block::Call(index),
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                    &mut events,
                );
                while self.calls.len() <= index {
                    self.calls.push(usize::MAX);
                }
                self.calls[index] = at;
            }
            Delta::CallArguments { index, delta } => {
                // A piece for a call whose block was closed (a server that interleaves its
                // calls) still goes to that block, by its index.
                if let Some(&at) = self.calls.get(index).filter(|&&at| at != usize::MAX) {
                    self.start(&mut events);
                    events.push(json!({
                        "type": "content_block_delta",
                        "index": at,
                        "delta": {"type": "input_json_delta", "partial_json": delta},
                    }));
                }
            }
            Delta::Finish(finish) => self.finish = Some(finish),
            Delta::Usage(usage) => self.usage = Some(usage),
        }
        events
    }

    /// Closes the open block; `message_delta` with why the reply ended and its usage;
    /// `message_stop`.
    pub fn finish(&mut self) -> Vec<Value> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let mut events = Vec::new();
        self.start(&mut events);
        self.close(&mut events);
        let called = !self.calls.is_empty();
        let finish = self.finish.clone().unwrap_or(Finish::Stop);
        // The delta's usage is cumulative: with the input tokens too when they are known (an
        // upstream of another API gives them only at the end).
        let usage = match &self.usage {
            Some(usage) => write_usage(usage),
            None => json!({"output_tokens": 0}),
        };
        events.push(json!({
            "type": "message_delta",
            "delta": {"stop_reason": write_stop(&finish, called), "stop_sequence": null},
            "usage": usage,
        }));
        events.push(json!({"type": "message_stop"}));
        events
    }

    fn start(&mut self, events: &mut Vec<Value>) {
        if self.started {
            return;
        }
        self.started = true;
        let mut usage = json!({"input_tokens": 0, "output_tokens": 0});
        if let Some(known) = &self.usage {
            usage = write_usage(known);
            usage["output_tokens"] = json!(0);
        }
        events.push(json!({
            "type": "message_start",
            "message": {
                "id": self.id,
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": usage,
            },
        }));
    }

    /// Makes a block of `kind` the open one, unless it is.
    fn block(&mut self, kind: Block, start: Value, events: &mut Vec<Value>) {
        self.start(events);
        if self.open.is_some_and(|(_, open)| open == kind) {
            return;
        }
        self.close(events);
        self.open_block(kind, start, events);
    }

    fn open_block(&mut self, kind: Block, start: Value, events: &mut Vec<Value>) -> usize {
        let at = self.blocks;
        self.blocks += 1;
        events.push(json!({"type": "content_block_start", "index": at, "content_block": start}));
        self.open = Some((at, kind));
        at
    }

    fn delta(&mut self, delta: Value, events: &mut Vec<Value>) {
        if let Some((at, _)) = self.open {
            events.push(json!({"type": "content_block_delta", "index": at, "delta": delta}));
        }
    }

    fn close(&mut self, events: &mut Vec<Value>) {
        if let Some((at, _)) = self.open.take() {
            events.push(json!({"type": "content_block_stop", "index": at}));
        }
    }
}
