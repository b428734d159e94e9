//! The request log: every POST to the model endpoints (those of the APIs `--apis` leaves out
//! included, answered 404) and to `/v1/echo`, as `{"path", "headers", "body"}`, kept so tests can
//! check what the gateway sent: which path, which key header (`authorization`, `x-api-key`), which
//! body.
//!
//! Recording is a push under a short lock; the body is kept as the received bytes (shared, not
//! copied) and parsed only when a test reads the log, so the benchmark's hot path stays cheap.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::http::HeaderMap;
use bytes::Bytes;
use serde_json::{Map, Value};

/// How many records are kept; older ones are dropped.
pub const CAPACITY: usize = 20_000;

struct Record {
    path: String,
    headers: Vec<(String, String)>,
    body: Bytes,
}

pub struct RequestLog {
    enabled: bool,
    records: Mutex<VecDeque<Arc<Record>>>,
}

impl RequestLog {
    pub fn new(enabled: bool) -> Self {
        Self {
            enabled,
            records: Mutex::new(VecDeque::new()),
        }
    }

    pub fn record(&self, path: &str, headers: &HeaderMap, body: &Bytes) {
        if !self.enabled {
            return;
        }
        let record = Arc::new(Record {
            path: path.to_owned(),
            headers: headers
                .iter()
                .map(|(name, value)| {
                    (
                        name.as_str().to_owned(),
                        String::from_utf8_lossy(value.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: body.clone(),
        });
        let mut records = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if records.len() == CAPACITY {
            records.pop_front();
        }
        records.push_back(record);
    }

    /// The records in arrival order, only those whose raw body contains `marker` if given.
    pub fn to_json(&self, marker: Option<&str>) -> Value {
        // Copy the handles out so that building the JSON does not hold up recording.
        let records: Vec<Arc<Record>> = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .cloned()
            .collect();
        Value::Array(
            records
                .iter()
                .filter(|record| {
                    marker
                        .is_none_or(|marker| String::from_utf8_lossy(&record.body).contains(marker))
                })
                .map(|record| record.to_json())
                .collect(),
        )
    }

    /// Forgets every record; returns how many there were.
    pub fn clear(&self) -> usize {
        let mut records = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let count = records.len();
        records.clear();
        count
    }
}

impl Record {
    fn to_json(&self) -> Value {
        let mut headers = Map::new();
        for (name, value) in &self.headers {
            // A repeated header reads as HTTP would fold it.
            match headers.get_mut(name) {
                Some(Value::String(folded)) => {
                    folded.push_str(", ");
                    folded.push_str(value);
                }
                _ => {
                    headers.insert(name.clone(), Value::String(value.clone()));
                }
            }
        }
        let body = serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&self.body).into_owned()));
        let mut record = Map::new();
        record.insert("path".into(), Value::String(self.path.clone()));
        record.insert("headers".into(), Value::Object(headers));
        record.insert("body".into(), body);
        Value::Object(record)
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use serde_json::json;

    use super::*;

    #[test]
    fn records_filters_and_clears() {
        let log = RequestLog::new(true);
        let mut headers = HeaderMap::new();
        headers.insert("Authorization", HeaderValue::from_static("Bearer k"));
        headers.append("x-many", HeaderValue::from_static("a"));
        headers.append("x-many", HeaderValue::from_static("b"));
        log.record(
            "/v1/echo",
            &headers,
            &Bytes::from_static(b"plain MARK text"),
        );
        log.record(
            "/v1/chat/completions",
            &HeaderMap::new(),
            &Bytes::from_static(br#"{"model":"m"}"#),
        );
        assert_eq!(
            log.to_json(Some("MARK")),
            json!([{"path": "/v1/echo", "headers": {"authorization": "Bearer k", "x-many": "a, b"}, "body": "plain MARK text"}])
        );
        assert_eq!(log.to_json(None)[1]["body"], json!({"model": "m"}));
        assert_eq!(log.clear(), 2);
        assert_eq!(log.to_json(None), json!([]));
        let off = RequestLog::new(false);
        off.record("/v1/echo", &headers, &Bytes::new());
        assert_eq!(off.to_json(None), json!([]));
    }
}
