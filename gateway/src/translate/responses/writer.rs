//! Writing deltas as Responses events for a Responses client: the response, each item
//! added, its deltas and done, and the response's end.

use serde_json::{Value, json};

use crate::translate::common::{effective_finish, id_with_prefix, new_id, now};
use crate::translate::ir::{Call, Delta, Finish, Request, Usage};

use super::reply::{Head, call_item, message_item, output_text, reasoning_item, response};

/// The item a writer has open.
#[derive(Debug)]
enum Open {
    Message { at: usize, id: String, text: String },
    Reasoning { at: usize, id: String, text: String },
    Call { at: usize, call: usize },
}

/// Writes deltas as Responses events, for a Responses client: `response.created` and
/// `response.in_progress`, each item's events (an item is closed when the next starts, or at the
/// end), and `response.completed` or `response.incomplete` with the whole response. Every event
/// has its `sequence_number`; item events their `output_index` and `item_id`.
#[derive(Debug)]
pub struct Writer {
    /// The client's request, echoed in every response object (boxed: it is large, and a
    /// writer is moved around by value).
    request: Box<Request>,
    id: String,
    created_at: i64,
    model: String,
    sequence: u64,
    started: bool,
    /// The items so far, as the final response will have them (an open item in its state so
    /// far).
    output: Vec<Value>,
    /// Each call's output index and item id, by its index among the reply's calls.
    calls: Vec<(usize, String)>,
    open: Option<Open>,
    finish: Option<Finish>,
    usage: Option<Usage>,
    finished: bool,
}

impl Writer {
    /// A writer for a client whose request was `request`.
    pub fn new(request: &Request) -> Writer {
        Writer {
            request: Box::new(request.clone()),
            id: new_id("resp_"),
            created_at: now(),
            model: request.model.clone().unwrap_or_default(),
            sequence: 0,
            started: false,
            output: Vec::new(),
            calls: Vec::new(),
            open: None,
            finish: None,
            usage: None,
            finished: false,
        }
    }

    /// The events that say `delta`.
    pub fn write(&mut self, delta: Delta) -> Vec<Value> {
        let mut events = Vec::new();
        if let Delta::Start { id, model, created } = &delta {
            self.id = id_with_prefix(id, "resp_");
            if let Some(model) = model {
                self.model.clone_from(model);
            }
            if let Some(created) = created {
                self.created_at = *created;
            }
        }
        self.start(&mut events);
        match delta {
            Delta::Start { .. } | Delta::ReasoningSignature(_) => {}
            Delta::Text(text) => self.text(text, &mut events),
            Delta::Reasoning(text) => self.reasoning(text, &mut events),
            Delta::CallStart { index, id, name } => self.call_start(index, id, name, &mut events),
            Delta::CallArguments { index, delta } => self.arguments(index, delta, &mut events),
            Delta::Finish(finish) => self.finish = Some(finish),
            Delta::Usage(usage) => self.usage = Some(usage),
        }
        events
    }

    /// Closes the open item and writes the whole response.
    pub fn finish(&mut self) -> Vec<Value> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let mut events = Vec::new();
        self.start(&mut events);
        self.close(&mut events);
        let called = !self.calls.is_empty();
        let finish = effective_finish(self.finish.as_ref().unwrap_or(&Finish::Stop), called);
        let kind = match finish {
            Finish::Length | Finish::ContentFilter => "response.incomplete",
            _ => "response.completed",
        };
        let response = self.response(Some(&finish));
        events.push(self.event(kind, json!({"response": response})));
        events
    }

    fn response(&self, finish: Option<&Finish>) -> Value {
        let head = Head {
            id: &self.id,
            created_at: self.created_at,
            model: &self.model,
        };
        let (output, usage) = match finish {
            Some(_) => (self.output.clone(), self.usage.as_ref()),
            None => (Vec::new(), None),
        };
        response(&self.request, &head, finish, output, usage)
    }

    fn event(&mut self, kind: &str, fields: Value) -> Value {
        let mut event = json!({"type": kind});
        if let (Some(event), Value::Object(fields)) = (event.as_object_mut(), fields) {
            event.extend(fields);
        }
        event["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        event
    }

    fn start(&mut self, events: &mut Vec<Value>) {
        if self.started {
            return;
        }
        self.started = true;
        let response = self.response(None);
        events.push(self.event("response.created", json!({"response": response})));
        events.push(self.event("response.in_progress", json!({"response": response})));
    }

    /// Adds an item in progress; its output index.
    fn add(&mut self, item: Value, events: &mut Vec<Value>) -> usize {
        let at = self.output.len();
        self.output.push(item.clone());
        events.push(self.event(
            "response.output_item.added",
            json!({"output_index": at, "item": item}),
        ));
        at
    }

    fn text(&mut self, piece: String, events: &mut Vec<Value>) {
        if !matches!(self.open, Some(Open::Message { .. })) {
            self.close(events);
            let id = new_id("msg_");
            let at = self.add(message_item(&id, "", "in_progress"), events);
            events.push(self.event(
                "response.content_part.added",
                json!({"item_id": id, "output_index": at, "content_index": 0, "part": output_text("")}),
            ));
            self.open = Some(Open::Message {
                at,
                id,
                text: String::new(),
            });
        }
        if let Some(Open::Message { at, id, text }) = &mut self.open {
            text.push_str(&piece);
            let fields = json!({
                "item_id": id,
                "output_index": at,
                "content_index": 0,
                "delta": piece,
                "logprobs": [],
            });
            events.push(self.event("response.output_text.delta", fields));
        }
    }

    fn reasoning(&mut self, piece: String, events: &mut Vec<Value>) {
        if !matches!(self.open, Some(Open::Reasoning { .. })) {
            self.close(events);
            let id = new_id("rs_");
            let at = self.add(reasoning_item(&id, "", false), events);
            events.push(self.event(
                "response.reasoning_summary_part.added",
                json!({
                    "item_id": id,
                    "output_index": at,
                    "summary_index": 0,
                    "part": {"type": "summary_text", "text": ""},
                }),
            ));
            self.open = Some(Open::Reasoning {
                at,
                id,
                text: String::new(),
            });
        }
        if let Some(Open::Reasoning { at, id, text }) = &mut self.open {
            text.push_str(&piece);
            let fields = json!({
                "item_id": id,
                "output_index": at,
                "summary_index": 0,
                "delta": piece,
            });
            events.push(self.event("response.reasoning_summary_text.delta", fields));
        }
    }

    fn call_start(&mut self, index: usize, call_id: String, name: String, events: &mut Vec<Value>) {
        self.close(events);
        let id = new_id("fc_");
        let call = Call {
            id: call_id,
            name,
            arguments: String::new(),
        };
        let at = self.add(call_item(&id, &call, "in_progress"), events);
        // The deltas number the calls in order; one numbered otherwise is kept at its place.
        while self.calls.len() < index {
            self.calls.push((usize::MAX, String::new()));
        }
        if index < self.calls.len() {
            self.calls[index] = (at, id);
        } else {
            self.calls.push((at, id));
        }
        self.open = Some(Open::Call { at, call: index });
    }

    /// A piece of a call's arguments. A piece for a call already closed (a server that
    /// interleaves its calls) still goes to that call's item, by its output index: the final
    /// response has the call whole.
    fn arguments(&mut self, index: usize, piece: String, events: &mut Vec<Value>) {
        let Some((at, id)) = self.calls.get(index).cloned() else {
            return;
        };
        let Some(item) = self.output.get_mut(at) else {
            return;
        };
        if let Some(Value::String(arguments)) = item.get_mut("arguments") {
            arguments.push_str(&piece);
        }
        events.push(self.event(
            "response.function_call_arguments.delta",
            json!({"item_id": id, "output_index": at, "delta": piece}),
        ));
    }

    /// The open item's closing events, and its whole self in the output.
    fn close(&mut self, events: &mut Vec<Value>) {
        match self.open.take() {
            None => {}
            Some(Open::Message { at, id, text }) => {
                events.push(self.event(
                    "response.output_text.done",
                    json!({"item_id": id, "output_index": at, "content_index": 0, "text": text, "logprobs": []}),
                ));
                events.push(self.event(
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": at, "content_index": 0, "part": output_text(&text)}),
                ));
                self.done(at, message_item(&id, &text, "completed"), events);
            }
            Some(Open::Reasoning { at, id, text }) => {
                events.push(self.event(
                    "response.reasoning_summary_text.done",
                    json!({"item_id": id, "output_index": at, "summary_index": 0, "text": text}),
                ));
                events.push(self.event(
                    "response.reasoning_summary_part.done",
                    json!({
                        "item_id": id,
                        "output_index": at,
                        "summary_index": 0,
                        "part": {"type": "summary_text", "text": text},
                    }),
                ));
                self.done(at, reasoning_item(&id, &text, true), events);
            }
            Some(Open::Call { at, call }) => {
                let Some(mut item) = self.output.get(at).cloned() else {
                    return;
                };
                let id = self
                    .calls
                    .get(call)
                    .map(|(_, id)| id.clone())
                    .unwrap_or_default();
                let arguments = item.get("arguments").cloned().unwrap_or_else(|| json!(""));
                events.push(self.event(
                    "response.function_call_arguments.done",
                    json!({"item_id": id, "output_index": at, "arguments": arguments}),
                ));
                item["status"] = json!("completed");
                self.done(at, item, events);
            }
        }
    }

    fn done(&mut self, at: usize, item: Value, events: &mut Vec<Value>) {
        if let Some(slot) = self.output.get_mut(at) {
            slot.clone_from(&item);
        }
        events.push(self.event(
            "response.output_item.done",
            json!({"output_index": at, "item": item}),
        ));
    }
}
