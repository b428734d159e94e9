//! The whole reply a stream's deltas make, collected as they come: what is kept of a streamed
//! reply.

use super::ir::{self, Delta, Reply};

/// The whole reply a stream's deltas make, as they come: what is kept of a streamed reply.
#[derive(Debug, Clone, Default)]
pub struct Collector {
    reply: Option<Reply>,
}

impl Collector {
    /// Takes one delta.
    pub fn push(&mut self, delta: &Delta) {
        let reply = self.reply.get_or_insert_with(|| Reply {
            id: String::new(),
            model: None,
            created: None,
            parts: Vec::new(),
            finish: ir::Finish::Stop,
            usage: None,
        });
        match delta {
            Delta::Start { id, model, created } => {
                reply.id.clone_from(id);
                reply.model.clone_from(model);
                reply.created = *created;
            }
            Delta::Text(text) => match reply.parts.last_mut() {
                Some(ir::Part::Text { text: last }) => last.push_str(text),
                _ => reply.parts.push(ir::Part::Text { text: text.clone() }),
            },
            Delta::Reasoning(text) => match reply.parts.last_mut() {
                // A signed reasoning is whole: reasoning after it is another.
                Some(ir::Part::Reasoning {
                    text: last,
                    signature: None,
                }) => last.push_str(text),
                _ => reply.parts.push(ir::Part::Reasoning {
                    text: text.clone(),
                    signature: None,
                }),
            },
            Delta::ReasoningSignature(signature) => {
                if let Some(ir::Part::Reasoning {
                    signature: last, ..
                }) = reply.parts.last_mut()
                {
                    *last = Some(signature.clone());
                }
            }
            Delta::CallStart { id, name, .. } => reply.parts.push(ir::Part::Call(ir::Call {
                id: id.clone(),
                name: name.clone(),
                arguments: String::new(),
            })),
            Delta::CallArguments { index, delta } => {
                let call = reply
                    .parts
                    .iter_mut()
                    .filter_map(|part| match part {
                        ir::Part::Call(call) => Some(call),
                        _ => None,
                    })
                    .nth(*index);
                if let Some(call) = call {
                    call.arguments.push_str(delta);
                }
            }
            Delta::Finish(finish) => reply.finish = finish.clone(),
            Delta::Usage(usage) => reply.usage = Some(usage.clone()),
        }
    }

    /// The reply so far.
    pub fn reply(self) -> Option<Reply> {
        self.reply
    }
}
