//! What the gateway keeps between a client's requests, for a bounded time: the injected calls
//! (and their results) of a reply that also called the client's own tools, so that the client's
//! follow-up can be completed into the conversation the model really had; and, for Responses,
//! which upstream response a visible response id stands for. In one process's memory: a
//! follow-up that reaches another gateway instance finds nothing (see docs/ARCHITECTURE.md).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One kept thing.
#[derive(Debug, Clone, PartialEq)]
pub enum Kept {
    /// A Chat Completions turn that mixed calls, kept under each of the client's call ids.
    ChatTurn {
        /// The messages of the rounds before it (assistant turns that called injected tools,
        /// and their results).
        earlier: Vec<Value>,
        /// The assistant message exactly as the model produced it (all its calls).
        assistant: Value,
        /// The `tool` messages answering its injected calls.
        results: Vec<Value>,
    },
    /// A Responses turn that mixed calls, kept under each of the client's call ids: the items
    /// the client was not shown, to be put back where the model produced them.
    ResponsesTurn {
        /// Earlier rounds' injected calls and their outputs.
        earlier: Vec<Value>,
        /// This turn's injected calls, which go with the client's calls.
        calls: Vec<Value>,
        /// Their outputs, which follow the turn's calls.
        outputs: Vec<Value>,
    },
    /// A response the client was shown, kept under its id: the upstream response it ended
    /// with, and the outputs of its injected calls (for a `previous_response_id` follow-up).
    Response {
        /// The last upstream response's id, when it is not the visible one.
        last_id: String,
        /// `function_call_output` items of the injected calls the client was not shown.
        outputs: Vec<Value>,
        /// The `server_label`s whose `mcp_list_tools` the conversation has shown.
        listed: Vec<String>,
    },
    /// A call shown to the client as an `mcp_approval_request`, kept under that item's id until
    /// an `mcp_approval_response` runs or refuses it (through `previous_response_id`, when the
    /// client does not send the request back).
    Approval {
        /// The `function_call` the model made, which the upstream keeps waiting for its output.
        call: Value,
        /// Its `server_label`.
        label: String,
        /// The tool's own name at that server.
        tool: String,
    },
}

struct Entries {
    map: HashMap<String, (Instant, Arc<Kept>)>,
    /// Insertion order, for expiry and the size bound.
    order: VecDeque<(Instant, String)>,
}

/// Kept things by key, each for `ttl`, at most `capacity` of them (the oldest go first).
pub struct Store {
    ttl: Duration,
    capacity: usize,
    entries: Mutex<Entries>,
}

impl Store {
    /// An empty store.
    pub fn new(ttl: Duration, capacity: usize) -> Store {
        Store {
            ttl,
            capacity,
            entries: Mutex::new(Entries {
                map: HashMap::new(),
                order: VecDeque::new(),
            }),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `kept` under every key.
    pub fn put(&self, keys: impl IntoIterator<Item = String>, kept: Kept) {
        let kept = Arc::new(kept);
        let now = Instant::now();
        let expires = now + self.ttl;
        let mut entries = self.entries();
        // Drop what expired, and the oldest beyond the bound.
        while let Some((when, _)) = entries.order.front() {
            if *when > now && entries.order.len() < self.capacity {
                break;
            }
            let (when, key) = entries.order.pop_front().expect("front was Some");
            if entries.map.get(&key).is_some_and(|(at, _)| *at == when) {
                entries.map.remove(&key);
            }
        }
        for key in keys {
            entries.order.push_back((expires, key.clone()));
            entries.map.insert(key, (expires, kept.clone()));
        }
    }

    /// What is kept under `key`, unless it expired.
    pub fn get(&self, key: &str) -> Option<Arc<Kept>> {
        let entries = self.entries();
        entries
            .map
            .get(key)
            .filter(|(expires, _)| *expires > Instant::now())
            .map(|(_, kept)| kept.clone())
    }

    /// How many keys are kept (expired ones included until they are swept).
    pub fn len(&self) -> usize {
        self.entries().map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(id: &str) -> Kept {
        Kept::Response {
            last_id: id.to_owned(),
            outputs: Vec::new(),
            listed: Vec::new(),
        }
    }

    #[test]
    fn kept_under_every_key_until_it_expires() {
        let store = Store::new(Duration::from_millis(50), 100);
        store.put(["a".to_owned(), "b".to_owned()], response("r"));
        assert_eq!(*store.get("a").unwrap(), response("r"));
        assert!(store.get("b").is_some());
        assert!(store.get("c").is_none());
        std::thread::sleep(Duration::from_millis(60));
        assert!(store.get("a").is_none());
        store.put(["c".to_owned()], response("s"));
        assert_eq!(store.len(), 1, "expired entries are swept on the next put");
    }

    #[test]
    fn bounded() {
        let store = Store::new(Duration::from_secs(60), 10);
        for i in 0..100 {
            store.put([format!("k{i}")], response("r"));
        }
        assert!(store.len() <= 11, "{}", store.len());
        assert!(store.get("k99").is_some());
        assert!(store.get("k0").is_none());
    }
}
