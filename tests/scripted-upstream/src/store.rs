//! The stored Responses conversations that `previous_response_id` continues: each response's
//! input items (its predecessor's conversation included) and its output items, the newest 10,000.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// How many responses are kept; the oldest are dropped.
pub const CAPACITY: usize = 10_000;

#[derive(Default)]
pub struct ResponseStore {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    by_id: HashMap<String, Arc<Vec<Value>>>,
    order: VecDeque<String>,
}

impl ResponseStore {
    pub fn get(&self, id: &str) -> Option<Arc<Vec<Value>>> {
        let inner = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        inner.by_id.get(id).cloned()
    }

    pub fn put(&self, id: String, conversation: Vec<Value>) {
        let mut inner = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        while inner.order.len() >= CAPACITY {
            let Some(oldest) = inner.order.pop_front() else {
                break;
            };
            inner.by_id.remove(&oldest);
        }
        inner.order.push_back(id.clone());
        inner.by_id.insert(id, Arc::new(conversation));
    }
}
