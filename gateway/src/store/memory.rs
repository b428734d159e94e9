//! The store in this process's memory: nothing to run, nothing shared with another instance.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{Kept, KeptStore, StoreError, check_size};

struct Entries {
    map: HashMap<String, (Instant, Arc<Kept>)>,
    /// Insertion order, for expiry and the capacity bound.
    order: VecDeque<(Instant, String)>,
}

/// Kept things by key, each for `ttl`, at most `capacity` keys (the oldest go first), none
/// larger than `max_entry` bytes as JSON (as the shared store measures them).
pub struct MemoryStore {
    ttl: Duration,
    capacity: usize,
    max_entry: usize,
    entries: Mutex<Entries>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new(ttl: Duration, capacity: usize, max_entry: usize) -> MemoryStore {
        MemoryStore {
            ttl,
            capacity,
            max_entry,
            entries: Mutex::new(Entries {
                map: HashMap::new(),
                order: VecDeque::new(),
            }),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn keep(&self, keys: Vec<String>, kept: Kept) -> Result<(), StoreError> {
        let size = crate::body::json_len(&kept).expect("a Kept is always JSON");
        check_size(size, self.max_entry)?;
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
        Ok(())
    }

    fn find(&self, keys: &[String]) -> Vec<Option<Arc<Kept>>> {
        let entries = self.entries();
        let now = Instant::now();
        keys.iter()
            .map(|key| {
                entries
                    .map
                    .get(key)
                    .filter(|(expires, _)| *expires > now)
                    .map(|(_, kept)| kept.clone())
            })
            .collect()
    }

    /// How many keys are kept (expired ones included until they are swept).
    pub fn len(&self) -> usize {
        self.entries().map.len()
    }
}

impl KeptStore for MemoryStore {
    async fn put(&self, keys: Vec<String>, kept: Kept) -> Result<(), StoreError> {
        self.keep(keys, kept)
    }

    async fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Arc<Kept>>>, StoreError> {
        Ok(self.find(keys))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{contract, response};
    use super::*;

    #[tokio::test]
    async fn keeps_as_every_store_does() {
        let ttl = Duration::from_millis(300);
        contract(&MemoryStore::new(ttl, 1000, 4096), ttl, 4096, "m").await;
    }

    #[tokio::test]
    async fn expired_entries_are_swept_on_the_next_put() {
        let store = MemoryStore::new(Duration::from_millis(50), 100, 1 << 20);
        store
            .put(vec!["a".to_owned(), "b".to_owned()], response("r"))
            .await
            .unwrap();
        assert_eq!(store.len(), 2);
        tokio::time::sleep(Duration::from_millis(60)).await;
        store
            .put(vec!["c".to_owned()], response("s"))
            .await
            .unwrap();
        assert_eq!(store.len(), 1);
    }

    #[tokio::test]
    async fn bounded() {
        let store = MemoryStore::new(Duration::from_secs(60), 10, 1 << 20);
        for i in 0..100 {
            store
                .put(vec![format!("k{i}")], response("r"))
                .await
                .unwrap();
        }
        assert!(store.len() <= 11, "{}", store.len());
        let got = store
            .get_many(&["k99".to_owned(), "k0".to_owned()])
            .await
            .unwrap();
        assert!(got[0].is_some());
        assert!(got[1].is_none());
    }
}
