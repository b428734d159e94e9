//! One streamed response as the client sees it, across the rounds: one `response.created`, each
//! round's items re-indexed after those shown before (an upstream that gives no `output_index`,
//! as llama.cpp's server does not, has its items found by `item_id`), the gateway's calls held
//! back, every event numbered, and one closing event with the whole response.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::Responses;
use crate::api::{Api, ClientApi, Event, Failure, Names, StreamFace};
use crate::injection::Injection;
use crate::mcp_items;
use crate::rounds::{End, Round};
use crate::translate::ir::ErrorBody;

/// The client's stream of a Responses request.
#[derive(Default)]
pub struct ResponsesStream {
    sequence: u64,
    /// Whether `response.created` was sent.
    created: bool,
    /// The items shown before this round's, once the round started.
    base: usize,
    /// This round's items: per upstream `output_index` (or item id, where the upstream gives
    /// none), the client's index, `None` for a call the gateway handles.
    indexes: HashMap<String, Option<usize>>,
    /// This round's items the client is shown, so far.
    shown_this_round: usize,
    /// This round's whole response, once it came.
    completed: Option<Value>,
    /// The `mcp_call` items shown starting, before their calls ran.
    starting: usize,
    /// Whether the items shown before the first round's (hosted `mcp_list_tools`, the
    /// `mcp_call`s approvals ran) were.
    leading_shown: bool,
}

/// The key an item's events are matched by: their `output_index`, or the item's id.
fn item_key(event: &Value) -> Option<String> {
    if let Some(index) = event.get("output_index").and_then(Value::as_u64) {
        return Some(format!("#{index}"));
    }
    event
        .get("item_id")
        .or_else(|| event.pointer("/item/id"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

impl ResponsesStream {
    /// An event as the client gets it: numbered.
    fn numbered(&mut self, mut event: Value) -> Value {
        event["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        event
    }

    /// The events showing items the gateway made, whole, from client index `base`.
    fn show(&mut self, items: &[Value], base: usize) -> Vec<Event> {
        items
            .iter()
            .enumerate()
            .flat_map(|(k, item)| mcp_items::shown(item, base + k))
            .map(|event| self.numbered(event))
            .collect()
    }

    /// The client's index of an item event of this round, deciding it at the item's first event
    /// (`None`: a call the gateway handles, held back).
    fn client_index(
        &mut self,
        api: &Responses,
        injection: &Injection,
        event: &Value,
    ) -> Option<usize> {
        let key = item_key(event)?;
        if let Some(known) = self.indexes.get(&key) {
            return *known;
        }
        let gateways = event.get("item").is_some_and(|item| {
            let kind = item.get("type").and_then(Value::as_str);
            // The provider's client-executed search is the gateway's to answer and never shown.
            (kind == Some("tool_search_call")
                && injection
                    .discovery
                    .as_ref()
                    .is_some_and(|discovery| discovery.is_tool_search()))
                || kind == Some("function_call")
                    && item
                        .get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|name| {
                            injection
                                .disposition(name, api.hosted.is_some())
                                .is_gateways()
                        })
        });
        let index = (!gateways).then(|| {
            self.shown_this_round += 1;
            self.base + self.shown_this_round - 1
        });
        self.indexes.insert(key, index);
        // Later events of an item an upstream numbers are matched by its id too.
        if let Some(id) = event.pointer("/item/id").and_then(Value::as_str) {
            self.indexes.insert(id.to_owned(), index);
        }
        index
    }
}

impl StreamFace<Responses> for ResponsesStream {
    fn new(_api: &Responses, _request: &Map<String, Value>) -> ResponsesStream {
        ResponsesStream::default()
    }

    fn event(
        &mut self,
        api: &Responses,
        injection: &Injection,
        round: u32,
        mut event: Value,
    ) -> Result<Vec<Event>, Failure> {
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        let mut out = Vec::new();
        if matches!(kind.as_str(), "response.created" | "response.in_progress") {
            if round == 1 {
                self.created = true;
                api.show_client_tools(&mut event["response"]);
                out.push(self.numbered(event));
            }
            return Ok(out);
        }
        if !self.leading_shown {
            self.leading_shown = true;
            let leading = api.visible.clone();
            out.extend(self.show(&leading, 0));
        }
        match kind.as_str() {
            "response.completed" | "response.incomplete" => {
                self.completed = Some(event["response"].take());
            }
            "response.failed" | "error" => {
                if event.get("response").is_some() {
                    api.show_client_tools(&mut event["response"]);
                    if let Some(id) = &api.first_id {
                        event["response"]["id"] = json!(id);
                    }
                }
                let event = self.numbered(event);
                return Err(Failure::Upstream(event));
            }
            _ => {
                if self.indexes.is_empty() && self.shown_this_round == 0 {
                    // The round's first item: those shown before it are the client's so far.
                    self.base = api.visible.len();
                }
                if let Some(index) = self.client_index(api, injection, &event) {
                    event["output_index"] = json!(index);
                    if kind.contains("output_text") && event.get("content_index").is_none() {
                        event["content_index"] = json!(0);
                    }
                    out.push(self.numbered(event));
                } else if item_key(&event).is_none() {
                    out.push(self.numbered(event));
                }
            }
        }
        Ok(out)
    }

    fn round(&mut self, api: &Responses, injection: &Injection) -> Result<Round, Failure> {
        let Some(response) = self.completed.take() else {
            return Err(Failure::Gateway(ErrorBody::upstream(
                "The upstream's stream ended before `response.completed`.",
            )));
        };
        self.indexes.clear();
        self.shown_this_round = 0;
        api.read_reply(response, injection)
            .map_err(|why| Failure::Gateway(ErrorBody::upstream(why)))
    }

    fn running(&mut self, api: &Responses, round: &Round, names: &Names<'_>) -> Vec<Event> {
        if api.hosted.is_none() {
            return Vec::new();
        }
        let base = api.visible.len();
        let starting: Vec<Value> = round
            .runs()
            .iter()
            .filter_map(|call| {
                let (label, tool) = names.server_and_tool(&call.name)?;
                Some(mcp_items::call_item(call, label, tool, None, None))
            })
            .collect();
        self.starting = starting.len();
        starting
            .iter()
            .enumerate()
            .flat_map(|(k, item)| mcp_items::call_started(item, base + k))
            .map(|event| self.numbered(event))
            .collect::<Vec<_>>()
    }

    fn ran(&mut self, api: &Responses, shown: Vec<Value>) -> Vec<Event> {
        let base = api.visible.len() - shown.len();
        let starting = std::mem::take(&mut self.starting).min(shown.len());
        let mut out: Vec<Event> = shown[..starting]
            .iter()
            .enumerate()
            .flat_map(|(k, item)| mcp_items::call_finished(item, base + k))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|event| self.numbered(event))
            .collect();
        out.extend(self.show(&shown[starting..], base + starting));
        out
    }

    fn finish(&mut self, api: &mut Responses, last: Round, end: &End) -> Vec<Event> {
        let mut out = Vec::new();
        if !self.created {
            // An upstream that sent no `response.created`: the client's stream still starts with
            // one.
            out.push(self.numbered(json!({"type": "response.created", "response": {"id": end.id, "object": "response", "status": "in_progress", "output": []}})));
        }
        let response = api.answer(last, end);
        let kind = if response["status"] == "incomplete" {
            "response.incomplete"
        } else {
            "response.completed"
        };
        out.push(self.numbered(json!({"type": kind, "response": response})));
        out
    }

    fn fail(&mut self, error: &ErrorBody) -> Event {
        let event = crate::translate::write_error_event(Api::Responses, error);
        self.numbered(event)
    }
}
