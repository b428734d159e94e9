//! Reading a Messages upstream's stream: its events, block by block, as deltas.

use serde_json::Value;

use crate::translate::common::parse_reply;
use crate::translate::ir::{Delta, ErrorBody, Part, Usage};

use super::error::read_error;
use super::reply::{MessagesReply, MessagesUsage, block_part, read_stop};

/// What a content block of a stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Block {
    Text,
    Thinking,
    /// A call: its index among the reply's calls.
    Call(usize),
    /// A block that says nothing to a client of another API.
    Other,
}

/// Reads a Messages upstream's events.
#[derive(Debug, Default)]
pub struct Reader {
    /// The blocks so far, by their index.
    blocks: Vec<(u64, Block)>,
    calls: usize,
    /// The usage of `message_start` (its input tokens), which `message_delta` completes.
    usage: MessagesUsage,
}

impl Reader {
    /// The deltas of one event.
    pub fn read(&mut self, event: &Value) -> Result<Vec<Delta>, ErrorBody> {
        let mut deltas = Vec::new();
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => {
                let message = event.get("message").unwrap_or(&Value::Null);
                let start: MessagesReply =
                    parse_reply("A Messages `message_start`", message).map_err(upstream_error)?;
                deltas.push(Delta::Start {
                    id: start.id,
                    model: start.model,
                    created: None,
                });
                self.usage = start.usage.unwrap_or_default();
                if let Some(usage) = self.usage() {
                    deltas.push(Delta::Usage(usage));
                }
            }
            "content_block_start" => {
                let index = event
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or_default();
                let block = event.get("content_block").unwrap_or(&Value::Null);
                self.start_block(index, block, &mut deltas);
            }
            "content_block_delta" => {
                let index = event
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or_default();
                let delta = event.get("delta").unwrap_or(&Value::Null);
                self.block_delta(index, delta, &mut deltas);
            }
            "message_delta" => {
                let usage: MessagesUsage = match event.get("usage") {
                    Some(usage) => parse_reply("A Messages `message_delta`'s usage", usage)
                        .map_err(upstream_error)?,
                    None => MessagesUsage::default(),
                };
                // The delta's counts are cumulative; what it does not give, the start gave.
                let merge = |new: Option<u64>, old: Option<u64>| new.or(old);
                self.usage = MessagesUsage {
                    input_tokens: merge(usage.input_tokens, self.usage.input_tokens),
                    output_tokens: merge(usage.output_tokens, self.usage.output_tokens),
                    cache_read_input_tokens: merge(
                        usage.cache_read_input_tokens,
                        self.usage.cache_read_input_tokens,
                    ),
                    cache_creation_input_tokens: merge(
                        usage.cache_creation_input_tokens,
                        self.usage.cache_creation_input_tokens,
                    ),
                };
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    deltas.push(Delta::Finish(read_stop(reason)));
                }
                if let Some(usage) = self.usage() {
                    deltas.push(Delta::Usage(usage));
                }
            }
            "error" => {
                return Err(read_error(event).unwrap_or_else(|| upstream_error(event.to_string())));
            }
            // `ping`, `message_stop`, `content_block_stop`, and events a newer API added.
            _ => {}
        }
        Ok(deltas)
    }

    fn usage(&self) -> Option<Usage> {
        Some(Usage {
            input: self.usage.input()?,
            output: self.usage.output_tokens.unwrap_or(0),
            cached_input: self.usage.cache_read_input_tokens,
            reasoning: None,
        })
    }

    fn start_block(&mut self, index: u64, block: &Value, deltas: &mut Vec<Delta>) {
        let kind = match block.get("type").and_then(Value::as_str) {
            Some("text") => Block::Text,
            Some("thinking") => Block::Thinking,
            Some("tool_use") => {
                let call = self.calls;
                self.calls += 1;
                Block::Call(call)
            }
            _ => Block::Other,
        };
        self.blocks.push((index, kind));
        // A start may already hold some of the block (llama.cpp's text, a whole `input`).
        match (kind, block_part(block)) {
            (Block::Text, Some(Part::Text { text })) => deltas.push(Delta::Text(text)),
            (Block::Thinking, Some(Part::Reasoning { text, signature })) => {
                if !text.is_empty() {
                    deltas.push(Delta::Reasoning(text));
                }
                if let Some(signature) = signature {
                    deltas.push(Delta::ReasoningSignature(signature));
                }
            }
            (Block::Call(index), Some(Part::Call(call))) => {
                deltas.push(Delta::CallStart {
                    index,
                    id: call.id,
                    name: call.name,
                });
                let input = block.get("input");
                if input
                    .and_then(Value::as_object)
                    .is_some_and(|input| !input.is_empty())
                {
                    deltas.push(Delta::CallArguments {
                        index,
                        delta: call.arguments,
                    });
                }
            }
            _ => {}
        }
    }

    fn block_delta(&mut self, index: u64, delta: &Value, deltas: &mut Vec<Delta>) {
        let Some(&(_, kind)) = self.blocks.iter().rev().find(|(at, _)| *at == index) else {
            return;
        };
        let text = |field: &str| {
            delta
                .get(field)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .map(str::to_owned)
        };
        let read = match (delta.get("type").and_then(Value::as_str), kind) {
            (Some("text_delta"), _) => text("text").map(Delta::Text),
            (Some("thinking_delta"), _) => text("thinking").map(Delta::Reasoning),
            (Some("signature_delta"), _) => text("signature").map(Delta::ReasoningSignature),
            (Some("input_json_delta"), Block::Call(index)) => {
                text("partial_json").map(|delta| Delta::CallArguments { index, delta })
            }
            // Citations of a text, and what a newer API added.
            _ => None,
        };
        deltas.extend(read);
    }
}

fn upstream_error(message: String) -> ErrorBody {
    ErrorBody {
        message,
        kind: "upstream_error".to_owned(),
        code: None,
        param: None,
    }
}
