//! What the gateway keeps between a client's requests, for a bounded time: the injected calls
//! (and their results) of a reply that also called the client's own tools, so that the client's
//! follow-up can be completed into the conversation the model really had; for Responses, which
//! upstream response a visible response id stands for; and the calls waiting for an approval.
//!
//! Kept in this process's memory (the default), or in Redis (`store = "redis://…"`), which
//! several gateway instances share so that a follow-up may reach any of them. When Redis cannot
//! be reached, a request that needs the store is answered 503 (see docs/ARCHITECTURE.md, "The
//! store"), and the others carry on.

mod memory;
mod redis;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Config;
use crate::error::ApiError;

pub use self::memory::MemoryStore;
pub use self::redis::RedisStore;

/// One kept thing. Serialised as JSON (tagged by `kind`) where the store is shared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
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
    /// A Messages turn that mixed calls, kept under each of the client's `tool_use` ids: the
    /// assistant message as the model made it (every `tool_use`), the `tool_result` blocks of
    /// its injected calls (which go first in the client's next user message), and the rounds
    /// before it.
    MessagesTurn {
        /// The messages of the rounds before it.
        earlier: Vec<Value>,
        /// The assistant message exactly as the model produced it.
        assistant: Value,
        /// The `tool_result` blocks answering its injected calls.
        results: Vec<Value>,
    },
    /// The conversation of a response the gateway made itself over an upstream that keeps
    /// nothing (a Responses client over a Chat or Messages upstream), kept under the response's
    /// id for a `previous_response_id` that names it.
    Conversation {
        /// Every message of it, the reply's included, in the gateway's own model of a
        /// conversation.
        messages: Vec<crate::translate::ir::Message>,
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

/// Why the store could not keep or give something.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The shared store cannot be reached, or did not answer in time.
    #[error("the gateway's store at {address} cannot be reached ({reason})")]
    Unavailable {
        /// Where it is (a Redis URL, its password hidden).
        address: String,
        /// The underlying error.
        reason: String,
    },
    /// One entry is larger than the store keeps.
    #[error(
        "what this turn must keep for its follow-up is {} KiB, more than the {} KiB the gateway's store keeps for one entry",
        bytes.div_ceil(1024),
        limit / 1024
    )]
    TooLarge {
        /// The entry's size as JSON.
        bytes: usize,
        /// `store_max_entry_bytes`.
        limit: usize,
    },
}

impl StoreError {
    /// The answer to a request that needed what the store keeps and could not read it.
    pub fn on_read(&self) -> ApiError {
        // Only a store that cannot be reached fails a read: nothing is measured on the way out.
        ApiError::unavailable(
            format!(
                "This request continues a conversation whose earlier turns the gateway keeps in its store (the injected tool calls of the turn your tool results answer, a `previous_response_id` or an approval request), and {self}. Nothing was sent to the model. Retry later, once the store is back."
            ),
            "store_unavailable",
        )
    }

    /// The answer to a request whose turn ran but could not be kept for its follow-up: the
    /// client is not given a turn whose follow-up could not be completed.
    pub fn on_write(&self) -> ApiError {
        match self {
            StoreError::Unavailable { .. } => ApiError::unavailable(
                format!(
                    "The model's turn called the gateway's tools and yours, and the gateway must keep its own calls for your follow-up, but {self}. The turn is not given to you, since its follow-up could not be completed. Retry later, once the store is back (the gateway's tools will run again)."
                ),
                "store_unavailable",
            ),
            StoreError::TooLarge { .. } => ApiError::too_large(
                format!(
                    "The model's turn called the gateway's tools and yours, and {self}: the turn is not given to you, since its follow-up could not be completed. Ask for less at a time (fewer or smaller tool results), or have the gateway's operator raise `store_max_entry_bytes`."
                ),
                "store_entry_too_large",
            ),
        }
    }
}

/// What a store does: keep an entry under several keys for the store's time, and give back
/// what is still kept. Both stores are held to it by the same tests.
pub trait KeptStore {
    /// Keeps `kept` under every key, for the store's TTL; an entry larger than the store's
    /// bound is not kept.
    fn put(
        &self,
        keys: Vec<String>,
        kept: Kept,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// What is kept under each key (in order), `None` where nothing is (or it expired).
    fn get_many(
        &self,
        keys: &[String],
    ) -> impl Future<Output = Result<Vec<Option<Arc<Kept>>>, StoreError>> + Send;
}

/// The store a gateway runs with.
///
/// An enum over the two kinds rather than a `dyn KeptStore`: they are all there will be, a
/// trait object of async methods would box every call's future, and a match costs nothing.
pub enum Store {
    /// In this process's memory.
    Memory(MemoryStore),
    /// In Redis, shared by every instance pointed at it (boxed: its client and connection are
    /// larger than the memory store's map, and there is one store per gateway).
    Redis(Box<RedisStore>),
}

impl Store {
    /// The store `config` names (`store`; memory when absent), bounded by its TTL and entry size
    /// and, in memory, by `capacity` entries. A Redis store connects on first use.
    pub fn open(config: &Config, capacity: usize) -> Result<Store, String> {
        let ttl = Duration::from_secs(config.store_ttl_secs);
        let max_entry = config.store_max_entry_bytes;
        match config.store.as_deref() {
            None | Some("memory") => Ok(Store::Memory(MemoryStore::new(ttl, capacity, max_entry))),
            Some(url) => {
                RedisStore::open(url, ttl, max_entry).map(|redis| Store::Redis(Box::new(redis)))
            }
        }
    }

    /// What is wrong with a `store` setting, if anything (read, not connected).
    pub fn check(store: Option<&str>) -> Result<(), String> {
        match store {
            None | Some("memory") => Ok(()),
            Some(url) => self::redis::client(url).map(drop),
        }
    }

    /// Logs whether the store can be reached (a Redis store that cannot is not fatal: requests
    /// that need it are answered 503 until it can).
    pub async fn probe(&self) {
        if let Store::Redis(redis) = self {
            match redis.ping().await {
                Ok(()) => tracing::info!(store = %redis.address(), "store reached"),
                Err(err) => tracing::warn!(
                    "{err}: requests that need the store are answered 503 until it can be"
                ),
            }
        }
    }

    /// What is kept under `key`.
    pub async fn get(&self, key: &str) -> Result<Option<Arc<Kept>>, StoreError> {
        let mut found = self.get_many(&[key.to_owned()]).await?;
        Ok(found.pop().flatten())
    }

    /// How many keys are kept in memory (expired ones included until they are swept); `None`
    /// for Redis, which is not counted here.
    pub fn len(&self) -> Option<usize> {
        match self {
            Store::Memory(memory) => Some(memory.len()),
            Store::Redis(_) => None,
        }
    }
}

impl KeptStore for Store {
    async fn put(&self, keys: Vec<String>, kept: Kept) -> Result<(), StoreError> {
        match self {
            Store::Memory(memory) => memory.put(keys, kept).await,
            Store::Redis(redis) => redis.put(keys, kept).await,
        }
    }

    async fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Arc<Kept>>>, StoreError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        match self {
            Store::Memory(memory) => memory.get_many(keys).await,
            Store::Redis(redis) => redis.get_many(keys).await,
        }
    }
}

/// The keys things are kept under, each built here only.
pub struct Key;

impl Key {
    /// A Chat Completions turn, under one of the client's call ids.
    pub fn chat_call(id: &str) -> String {
        format!("chat:{id}")
    }

    /// A Responses turn, under one of the client's `call_id`s.
    pub fn responses_call(id: &str) -> String {
        format!("call:{id}")
    }

    /// A Messages turn, under one of the client's `tool_use` ids.
    pub fn messages_call(id: &str) -> String {
        format!("msg:{id}")
    }

    /// What a response the client was shown stands for, under its id.
    pub fn response(id: &str) -> String {
        format!("resp:{id}")
    }

    /// A call waiting for an approval, under its `mcp_approval_request`'s id.
    pub fn approval(id: &str) -> String {
        format!("approval:{id}")
    }

    /// The conversation of a response the gateway made over an upstream that keeps nothing.
    pub fn conversation(id: &str) -> String {
        format!("conversation:{id}")
    }
}

/// Where a conversation's turn in progress starts, from the positions of its last user message
/// and of the model's last answer in words (an assistant message without calls): after the
/// earlier of the two, so that its calls are those after the user last spoke, and those the model
/// has not answered in words since (a client may add a user message after its tool results).
/// `None`: the whole conversation is in progress. The calls of that turn are what a follow-up
/// answers, and what the store is read for.
pub fn in_progress(last_user: Option<usize>, last_answer: Option<usize>) -> Option<usize> {
    last_user
        .zip(last_answer)
        .map(|(user, answer)| user.min(answer))
}

/// The keys of a conversation's calls (`key` of each id `ids` finds in an item), and whether any
/// is of the turn in progress, the one after `since` (see [`in_progress`]): the follow-up the
/// store is for, which cannot go on without it.
pub fn call_keys<'a, I: Iterator<Item = &'a str>>(
    items: &'a [Value],
    since: Option<usize>,
    ids: impl Fn(&'a Value) -> I,
    key: fn(&str) -> String,
) -> (Vec<String>, bool) {
    let mut keys = Vec::new();
    let mut latest = false;
    for (i, item) in items.iter().enumerate() {
        for id in ids(item) {
            keys.push(key(id));
            latest |= since.is_none_or(|since| i > since);
        }
    }
    (keys, latest)
}

/// The header of an answer to a request whose earlier turns could not be read from the store:
/// they went to the model as the client wrote them.
pub fn unread_header() -> (http::HeaderName, http::HeaderValue) {
    (
        crate::headers::STORE,
        http::HeaderValue::from_static("unavailable"),
    )
}

/// An entry's size as JSON, refused beyond `limit`.
fn check_size(bytes: usize, limit: usize) -> Result<(), StoreError> {
    if bytes > limit {
        return Err(StoreError::TooLarge { bytes, limit });
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// One of every kind, with values of every JSON type.
    pub fn every_kind() -> Vec<Kept> {
        vec![
            Kept::ChatTurn {
                earlier: vec![
                    json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c0", "type": "function", "function": {"name": "s__t", "arguments": "{}"}}]}),
                    json!({"role": "tool", "tool_call_id": "c0", "content": "ünïcödé ✓ \"quoted\"\n"}),
                ],
                assistant: json!({"role": "assistant", "content": "text", "tool_calls": [{"id": "c1"}, {"id": "c2"}]}),
                results: vec![json!({"role": "tool", "tool_call_id": "c1", "content": "1.5"})],
            },
            Kept::ResponsesTurn {
                earlier: vec![
                    json!({"type": "function_call", "call_id": "a", "name": "s__t", "arguments": "{\"n\": 1e3}"}),
                ],
                calls: vec![
                    json!({"type": "function_call", "call_id": "b", "name": "s__u", "arguments": "{}"}),
                ],
                outputs: vec![
                    json!({"type": "function_call_output", "call_id": "b", "output": [{"type": "input_text", "text": "x"}, {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]}),
                ],
            },
            Kept::MessagesTurn {
                earlier: Vec::new(),
                assistant: json!({"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "t1", "name": "s__t", "input": {"n": 1}}]}),
                results: vec![
                    json!({"type": "tool_result", "tool_use_id": "t1", "content": "ok", "is_error": false}),
                ],
            },
            Kept::Conversation {
                messages: vec![crate::translate::ir::Message {
                    role: crate::translate::ir::Role::User,
                    parts: vec![crate::translate::ir::Part::Text {
                        text: "ünïcödé".to_owned(),
                    }],
                }],
            },
            Kept::Response {
                last_id: "resp_2".to_owned(),
                outputs: Vec::new(),
                listed: vec!["git".to_owned(), "web".to_owned()],
            },
            Kept::Approval {
                call: json!({"type": "function_call", "call_id": "c", "name": "git__status", "arguments": "{}", "n": 12345678901234_u64, "f": -0.25, "ok": true}),
                label: "git".to_owned(),
                tool: "status".to_owned(),
            },
        ]
    }

    pub fn response(id: &str) -> Kept {
        Kept::Response {
            last_id: id.to_owned(),
            outputs: Vec::new(),
            listed: Vec::new(),
        }
    }

    /// A response whose JSON is about `bytes` long.
    pub fn sized(bytes: usize) -> Kept {
        Kept::Response {
            last_id: "x".repeat(bytes),
            outputs: Vec::new(),
            listed: Vec::new(),
        }
    }

    fn keys(keys: &[&str]) -> Vec<String> {
        keys.iter().map(|k| (*k).to_owned()).collect()
    }

    /// What every store does, checked on each (`ttl` is the store's, `max_entry` its bound).
    pub async fn contract(store: &impl KeptStore, ttl: Duration, max_entry: usize, tag: &str) {
        let key = |k: &str| format!("{tag}:{k}");
        // Kept under every key, read back in order, absent keys `None`.
        for (i, kept) in every_kind().into_iter().enumerate() {
            store
                .put(
                    vec![key(&format!("{i}a")), key(&format!("{i}b"))],
                    kept.clone(),
                )
                .await
                .unwrap();
            let got = store
                .get_many(&[key(&format!("{i}b")), key("absent"), key(&format!("{i}a"))])
                .await
                .unwrap();
            assert_eq!(got.len(), 3);
            assert_eq!(got[0].as_deref(), Some(&kept));
            assert_eq!(got[1], None);
            assert_eq!(got[2].as_deref(), Some(&kept));
        }
        // A newer entry under a key replaces the older.
        store
            .put(keys(&[&key("r")]), response("old"))
            .await
            .unwrap();
        store
            .put(keys(&[&key("r")]), response("new"))
            .await
            .unwrap();
        let got = store.get_many(&[key("r")]).await.unwrap();
        assert_eq!(got[0].as_deref(), Some(&response("new")));
        // The bound on one entry: at it is kept, beyond it is refused and not kept.
        let overhead = serde_json::to_vec(&sized(0)).unwrap().len();
        store
            .put(vec![key("fits")], sized(max_entry - overhead))
            .await
            .unwrap();
        let err = store
            .put(vec![key("big")], sized(max_entry - overhead + 1))
            .await
            .unwrap_err();
        assert_eq!(
            err,
            StoreError::TooLarge {
                bytes: max_entry + 1,
                limit: max_entry
            }
        );
        let got = store.get_many(&[key("fits"), key("big")]).await.unwrap();
        assert!(got[0].is_some() && got[1].is_none());
        // Gone after the TTL.
        store.put(vec![key("ttl")], response("r")).await.unwrap();
        tokio::time::sleep(ttl + Duration::from_millis(200)).await;
        let got = store.get_many(&[key("ttl"), key("0a")]).await.unwrap();
        assert_eq!(got, vec![None, None], "expired after {ttl:?}");
    }

    #[test]
    fn the_turn_in_progress_starts_after_the_user_or_the_last_answer() {
        // [user, assistant(calls), tool]: never answered in words, all in progress.
        assert_eq!(in_progress(Some(0), None), None);
        // [user, assistant(calls), tool, assistant(text), user]: the calls are of an earlier turn.
        assert_eq!(in_progress(Some(4), Some(3)), Some(3));
        // [user, assistant(calls), tool, user]: the model has not answered them: in progress.
        assert_eq!(in_progress(Some(3), None), None);
        // [user, assistant(text), assistant(calls), tool] (Responses: text, then calls).
        assert_eq!(in_progress(Some(0), Some(1)), Some(0));
    }

    #[test]
    fn every_kind_reads_back_as_it_was_written() {
        for kept in every_kind() {
            let text = serde_json::to_string(&kept).unwrap();
            let back: Kept = serde_json::from_str(&text).unwrap();
            assert_eq!(back, kept, "{text}");
        }
        // The tag names the kind, so that an entry is readable in Redis by a person.
        let text = serde_json::to_value(response("r")).unwrap();
        assert_eq!(text["kind"], "response");
    }

    #[test]
    fn errors_say_what_to_do() {
        let down = StoreError::Unavailable {
            address: "redis://127.0.0.1:6390/0".to_owned(),
            reason: "Connection refused (os error 111)".to_owned(),
        };
        let read = down.on_read();
        assert_eq!(read.status.as_u16(), 503);
        assert_eq!(read.kind, "server_error");
        assert_eq!(read.code, Some("store_unavailable"));
        assert!(
            read.message.contains("redis://127.0.0.1:6390/0")
                && read.message.contains("Connection refused")
                && read.message.contains("Retry later"),
            "{}",
            read.message
        );
        let write = down.on_write();
        assert_eq!(write.status.as_u16(), 503);
        assert!(
            write.message.contains("not given to you"),
            "{}",
            write.message
        );
        let big = StoreError::TooLarge {
            bytes: 5 << 20,
            limit: 4 << 20,
        }
        .on_write();
        assert_eq!(big.status.as_u16(), 413);
        assert_eq!(big.code, Some("store_entry_too_large"));
        assert!(
            big.message.contains("5120 KiB, more than the 4096 KiB")
                && big.message.contains("store_max_entry_bytes"),
            "{}",
            big.message
        );
    }
}
