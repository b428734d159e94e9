//! One streamed message as the client sees it, across the rounds: one `message_start`, each
//! round's content blocks numbered after those shown before, the gateway's `tool_use` blocks
//! held back, and one `message_delta` (the client's `stop_reason`, every round's output tokens)
//! and `message_stop`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{Messages, client_stop};
use crate::api::{Api, ClientApi, Event, Failure, Names, StreamFace};
use crate::disposition::Disposition;
use crate::injection::Injection;
use crate::rounds::{End, Round};
use crate::translate::ir::ErrorBody;

/// A content block of this round, as its events build it.
struct Block {
    block: Value,
    /// A `tool_use`'s input, as its `input_json_delta`s give it.
    partial_json: String,
    /// Its index in the client's stream; `None`: a call the gateway handles, held back.
    client: Option<usize>,
}

/// The client's stream of a Messages request.
#[derive(Default)]
pub struct MessagesStream {
    /// Whether `message_start` was sent.
    started: bool,
    /// The blocks shown so far, across the rounds.
    shown: usize,
    /// This round's: its id, its blocks by the upstream's index, how it stopped, its usage.
    id: Value,
    model: Value,
    blocks: BTreeMap<u64, Block>,
    stop_reason: Option<String>,
    usage: Map<String, Value>,
    /// Whether the client's calls were streamed.
    client_calls: bool,
}

impl MessagesStream {
    fn next_index(&mut self) -> usize {
        self.shown += 1;
        self.shown - 1
    }

    /// A block the gateway made, whole.
    fn whole_block(&mut self, block: Value) -> [Event; 2] {
        let index = self.next_index();
        [
            json!({"type": "content_block_start", "index": index, "content_block": block}),
            json!({"type": "content_block_stop", "index": index}),
        ]
    }
}

impl StreamFace<Messages> for MessagesStream {
    fn new(_api: &Messages, _request: &Map<String, Value>) -> MessagesStream {
        MessagesStream::default()
    }

    fn event(
        &mut self,
        _api: &Messages,
        injection: &Injection,
        _round: u32,
        mut event: Value,
    ) -> Result<Vec<Event>, Failure> {
        let index = event.get("index").and_then(Value::as_u64);
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => {
                let message = &event["message"];
                self.id = message["id"].clone();
                self.model = message["model"].clone();
                if let Some(usage) = message.get("usage").and_then(Value::as_object) {
                    self.usage = usage.clone();
                }
                if self.started {
                    return Ok(Vec::new());
                }
                self.started = true;
                Ok(vec![event])
            }
            "content_block_start" => {
                let Some(index) = index else {
                    return Ok(Vec::new());
                };
                let block = event["content_block"].clone();
                let gateways = block.get("type").and_then(Value::as_str) == Some("tool_use")
                    && block["name"]
                        .as_str()
                        .is_some_and(|name| injection.disposition(name, false).is_gateways());
                let client = (!gateways).then(|| self.next_index());
                self.client_calls |= client.is_some()
                    && block.get("type").and_then(Value::as_str) == Some("tool_use");
                self.blocks.insert(
                    index,
                    Block {
                        block,
                        partial_json: String::new(),
                        client,
                    },
                );
                Ok(client
                    .map(|client| {
                        event["index"] = json!(client);
                        event
                    })
                    .into_iter()
                    .collect())
            }
            "content_block_delta" => {
                let Some(block) = index.and_then(|index| self.blocks.get_mut(&index)) else {
                    return Ok(Vec::new());
                };
                let delta = &event["delta"];
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => append(&mut block.block, "text", &delta["text"]),
                    Some("thinking_delta") => {
                        append(&mut block.block, "thinking", &delta["thinking"]);
                    }
                    Some("signature_delta") => {
                        block.block["signature"] = delta["signature"].clone();
                    }
                    Some("input_json_delta") => block
                        .partial_json
                        .push_str(delta["partial_json"].as_str().unwrap_or_default()),
                    _ => {}
                }
                Ok(block
                    .client
                    .map(|client| {
                        event["index"] = json!(client);
                        event
                    })
                    .into_iter()
                    .collect())
            }
            "content_block_stop" => {
                let client = index
                    .and_then(|index| self.blocks.get(&index))
                    .and_then(|block| block.client);
                Ok(client
                    .map(|client| {
                        event["index"] = json!(client);
                        event
                    })
                    .into_iter()
                    .collect())
            }
            "message_delta" => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_owned());
                }
                if let Some(usage) = event.get("usage").and_then(Value::as_object) {
                    for (key, value) in usage {
                        self.usage.insert(key.clone(), value.clone());
                    }
                }
                Ok(Vec::new())
            }
            "message_stop" => Ok(Vec::new()),
            "error" => Err(Failure::Upstream(event)),
            _ => Ok(vec![event]),
        }
    }

    fn round(&mut self, api: &Messages, injection: &Injection) -> Result<Round, Failure> {
        let content: Vec<Value> = std::mem::take(&mut self.blocks)
            .into_values()
            .map(|mut block| {
                if block.block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    let text = block.partial_json.trim();
                    block.block["input"] = if text.is_empty() {
                        block
                            .block
                            .get("input")
                            .cloned()
                            .unwrap_or_else(|| json!({}))
                    } else {
                        serde_json::from_str::<Value>(text)
                            .ok()
                            .filter(Value::is_object)
                            .unwrap_or_else(|| Value::String(block.partial_json.clone()))
                    };
                }
                block.block
            })
            .collect();
        let stop = self.stop_reason.take();
        let reply = json!({
            "id": self.id, "type": "message", "role": "assistant", "model": self.model,
            "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": std::mem::take(&mut self.usage),
        });
        api.read_reply(reply, injection)
            .map_err(|why| Failure::Gateway(ErrorBody::upstream(why)))
    }

    fn running(&mut self, _api: &Messages, _round: &Round, _names: &Names<'_>) -> Vec<Event> {
        Vec::new()
    }

    fn ran(&mut self, _api: &Messages, shown: Vec<Value>) -> Vec<Event> {
        shown
            .into_iter()
            .flat_map(|block| self.whole_block(block))
            .collect()
    }

    fn finish(&mut self, _api: &mut Messages, last: Round, end: &End) -> Vec<Event> {
        let client = self.client_calls || last.of(Disposition::Client).next().is_some();
        let mut delta = json!({
            "type": "message_delta",
            "delta": {"stop_reason": client_stop(&last, client), "stop_sequence": null},
            // Every round's usage, summed: a Chat upstream says its usage at the end only.
            "usage": if end.usage.is_null() { json!({"output_tokens": 0}) } else { end.usage.clone() },
        });
        if let Some(member) = crate::api::chat::incomplete_member(end) {
            delta[crate::conversation::EXTENSION] = member;
        }
        let mut events = Vec::new();
        if !self.started {
            events.push(json!({"type": "message_start", "message": {
                "id": end.id, "type": "message", "role": "assistant", "model": self.model,
                "content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 0, "output_tokens": 0}}}));
        }
        events.push(delta);
        events.push(json!({"type": "message_stop"}));
        events
    }

    fn fail(&mut self, error: &ErrorBody) -> Event {
        crate::translate::write_error_event(Api::Messages, error)
    }
}

/// Appends a delta's text to a block's field.
fn append(block: &mut Value, field: &str, piece: &Value) {
    let mut text = block[field].as_str().unwrap_or_default().to_owned();
    text.push_str(piece.as_str().unwrap_or_default());
    block[field] = Value::String(text);
}
