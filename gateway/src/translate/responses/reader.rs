//! Reading a Responses upstream's stream: its events, item by item, as deltas.

use serde_json::Value;

use crate::translate::common::parse_reply;
use crate::translate::ir::{Delta, ErrorBody};

use super::error::read_error_event;
use super::reply::{Response, item_text, string_field};

/// What a reader knows of an output item.
#[derive(Debug)]
struct ItemState {
    /// Its id, when the upstream gave one.
    id: Option<String>,
    /// Its place in the output, when the upstream gave one (llama.cpp does not).
    output_index: Option<u64>,
    /// Its index among the reply's calls, when it is a call.
    call: Option<usize>,
    /// Whether it is reasoning (its deltas are reasoning, not text).
    reasoning: bool,
    /// Which of a reasoning's texts (summary, or full text) the deltas gave: the first given.
    reasoning_source: Option<&'static str>,
    /// The text (or arguments) its deltas have given so far.
    given: String,
}

/// Reads a Responses upstream's events. Events may come with or without `output_index` and
/// `sequence_number` (llama.cpp gives neither): an item is found by its id, else its place.
#[derive(Debug, Default)]
pub struct Reader {
    started: bool,
    items: Vec<ItemState>,
    calls: usize,
}

impl Reader {
    /// The deltas of one event.
    pub fn read(&mut self, event: &Value) -> Result<Vec<Delta>, ErrorBody> {
        let mut deltas = Vec::new();
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "response.created" | "response.in_progress" if !self.started => {
                let response = read_response(event)?;
                self.start(&response, &mut deltas);
            }
            "response.output_item.added" => {
                if let Some(item) = event.get("item") {
                    let at = self.find_item(item.get("id"), event.get("output_index"));
                    let at = at.unwrap_or_else(|| self.add_item(item, event, &mut deltas));
                    self.complete(at, item, &mut deltas);
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let at = self.item_of(event, false);
                self.give(at, event, None, &mut deltas);
            }
            "response.reasoning_summary_text.delta" => {
                let at = self.item_of(event, true);
                self.give(at, event, Some("summary"), &mut deltas);
            }
            "response.reasoning_text.delta" => {
                let at = self.item_of(event, true);
                self.give(at, event, Some("content"), &mut deltas);
            }
            "response.reasoning_summary_part.added" => {
                // The summaries of one reasoning are one text, a blank line between them (as a
                // whole reply's are read).
                let at = self.item_of(event, true);
                let item = &mut self.items[at];
                if item.reasoning_source == Some("summary") && !item.given.is_empty() {
                    item.given.push_str("\n\n");
                    deltas.push(Delta::Reasoning("\n\n".to_owned()));
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(at) = self.find_item(event.get("item_id"), event.get("output_index")) {
                    self.give(at, event, None, &mut deltas);
                }
                // Arguments of a call never announced have no name to start it with: the
                // item's `output_item.done` will give the whole call.
            }
            "response.output_text.done" => {
                if let Some(text) = event.get("text").and_then(Value::as_str) {
                    let at = self.item_of(event, false);
                    self.give_missing(at, text, &mut deltas);
                }
            }
            "response.function_call_arguments.done" => {
                let at = self.find_item(event.get("item_id"), event.get("output_index"));
                if let (Some(at), Some(arguments)) =
                    (at, event.get("arguments").and_then(Value::as_str))
                {
                    self.give_missing(at, arguments, &mut deltas);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = event.get("item") {
                    self.complete_item(item, event, &mut deltas);
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = read_response(event)?;
                self.start(&response, &mut deltas);
                // A server that gave an item only whole, in the final response, has given it
                // now.
                for item in &response.output {
                    self.complete_item(item, &Value::Null, &mut deltas);
                }
                let finish = response.finish(self.calls > 0)?;
                if let Some(usage) = response.usage {
                    deltas.push(Delta::Usage(usage.read()));
                }
                deltas.push(Delta::Finish(finish));
            }
            "response.failed" => return Err(read_response(event)?.failure()),
            "error" => return Err(read_error_event(event)),
            // Events that say nothing of the reply's content (`response.content_part.added`,
            // the `.done` of parts, a built-in tool's progress) or that a newer API added.
            _ => {}
        }
        Ok(deltas)
    }

    fn start(&mut self, response: &Response, deltas: &mut Vec<Delta>) {
        if !self.started {
            self.started = true;
            deltas.push(Delta::Start {
                id: response.id.clone(),
                model: response.model.clone(),
                created: response.created(),
            });
        }
    }

    /// The item an event is about, by its `item_id`, else its `output_index`.
    fn find_item(&self, id: Option<&Value>, output_index: Option<&Value>) -> Option<usize> {
        if let Some(id) = id.and_then(Value::as_str)
            && let Some(at) = self
                .items
                .iter()
                .position(|item| item.id.as_deref() == Some(id))
        {
            return Some(at);
        }
        let output_index = output_index.and_then(Value::as_u64)?;
        self.items
            .iter()
            .position(|item| item.output_index == Some(output_index))
    }

    /// The item a text or reasoning event is about: one found, else the last of its kind,
    /// else a new one (a server that gave deltas without announcing their item).
    fn item_of(&mut self, event: &Value, reasoning: bool) -> usize {
        if let Some(at) = self.find_item(event.get("item_id"), event.get("output_index")) {
            return at;
        }
        let has_place = event.get("item_id").is_some() || event.get("output_index").is_some();
        if !has_place
            && let Some(at) = self
                .items
                .iter()
                .rposition(|item| item.call.is_none() && item.reasoning == reasoning)
        {
            return at;
        }
        self.items.push(ItemState {
            id: event
                .get("item_id")
                .and_then(Value::as_str)
                .map(str::to_owned),
            output_index: event.get("output_index").and_then(Value::as_u64),
            call: None,
            reasoning,
            reasoning_source: None,
            given: String::new(),
        });
        self.items.len() - 1
    }

    /// Takes a new item; a call starts.
    fn add_item(&mut self, item: &Value, event: &Value, deltas: &mut Vec<Delta>) -> usize {
        let kind = item.get("type").and_then(Value::as_str);
        let call = (kind == Some("function_call")).then(|| {
            let index = self.calls;
            self.calls += 1;
            deltas.push(Delta::CallStart {
                index,
                id: string_field(item, "call_id"),
                name: string_field(item, "name"),
            });
            index
        });
        self.items.push(ItemState {
            id: item.get("id").and_then(Value::as_str).map(str::to_owned),
            output_index: event.get("output_index").and_then(Value::as_u64),
            call,
            reasoning: kind == Some("reasoning"),
            reasoning_source: None,
            given: String::new(),
        });
        self.items.len() - 1
    }

    /// A whole item (`output_item.done`, or one in the final response): whatever of it its
    /// deltas did not give.
    fn complete_item(&mut self, item: &Value, event: &Value, deltas: &mut Vec<Delta>) {
        let output_index = event.get("output_index");
        let at = self.find_item(item.get("id"), output_index);
        let at = at.unwrap_or_else(|| self.add_item(item, event, deltas));
        self.complete(at, item, deltas);
    }

    fn complete(&mut self, at: usize, item: &Value, deltas: &mut Vec<Delta>) {
        let text = item_text(item);
        self.give_missing(at, &text, deltas);
    }

    /// A delta event's piece.
    fn give(
        &mut self,
        at: usize,
        event: &Value,
        source: Option<&'static str>,
        deltas: &mut Vec<Delta>,
    ) {
        let Some(piece) = event.get("delta").and_then(Value::as_str) else {
            return;
        };
        let item = &mut self.items[at];
        if let Some(source) = source {
            // A server giving both a reasoning's summary and its full text gives the same
            // thoughts twice: the first given is kept.
            if *item.reasoning_source.get_or_insert(source) != source {
                return;
            }
        }
        item.given.push_str(piece);
        if let Some(delta) = Self::delta(item, piece.to_owned()) {
            deltas.push(delta);
        }
    }

    /// What a whole text says beyond what the deltas gave: nothing when they gave it all, or
    /// when they gave something else (which cannot be taken back).
    fn give_missing(&mut self, at: usize, whole: &str, deltas: &mut Vec<Delta>) {
        let item = &mut self.items[at];
        let Some(missing) = whole.strip_prefix(item.given.as_str()) else {
            return;
        };
        if missing.is_empty() {
            return;
        }
        let missing = missing.to_owned();
        item.given.push_str(&missing);
        if let Some(delta) = Self::delta(item, missing) {
            deltas.push(delta);
        }
    }

    fn delta(item: &ItemState, piece: String) -> Option<Delta> {
        if piece.is_empty() {
            return None;
        }
        Some(match (item.call, item.reasoning) {
            (Some(index), _) => Delta::CallArguments {
                index,
                delta: piece,
            },
            (None, true) => Delta::Reasoning(piece),
            (None, false) => Delta::Text(piece),
        })
    }
}

/// The response of a `response.*` event.
fn read_response(event: &Value) -> Result<Response, ErrorBody> {
    let response = event.get("response").unwrap_or(&Value::Null);
    parse_reply("The response of a Responses event", response).map_err(|message| ErrorBody {
        message,
        kind: "upstream_error".to_owned(),
        code: None,
        param: None,
    })
}
