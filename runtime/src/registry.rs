//! What the registries of prompts and resources share: a sorted index of names, and a panic's
//! message.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;

use futures_util::FutureExt;

pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Keys (names, URIs) with their entry, sorted: a binary search finds one.
#[derive(Debug, Default)]
pub(crate) struct Index(Vec<(&'static str, usize)>);

impl Index {
    /// The index of `keys` (each with its entry's Rust type, for the error), or the first key
    /// two entries share, with both types.
    pub(crate) fn new(
        keys: impl Iterator<Item = (&'static str, &'static str)>,
    ) -> Result<Index, (String, &'static str, &'static str)> {
        let keys: Vec<(&'static str, &'static str)> = keys.collect();
        let mut index: Vec<(&'static str, usize)> = keys
            .iter()
            .enumerate()
            .map(|(i, (key, _))| (*key, i))
            .collect();
        index.sort_unstable();
        for pair in index.windows(2) {
            if pair[0].0 == pair[1].0 {
                return Err((pair[0].0.to_owned(), keys[pair[0].1].1, keys[pair[1].1].1));
            }
        }
        Ok(Index(index))
    }

    pub(crate) fn position(&self, key: &str) -> Option<usize> {
        self.0
            .binary_search_by(|(k, _)| (*k).cmp(key))
            .ok()
            .map(|found| self.0[found].1)
    }
}

/// A panic's message, when it has one.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".to_owned())
}

/// Runs `future`; a panic in it is the error `panicked` makes of its message, not a crash.
pub(crate) async fn guarded<T, E>(
    future: impl Future<Output = Result<T, E>>,
    panicked: impl FnOnce(String) -> E,
) -> Result<T, E> {
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => Err(panicked(panic_message(panic.as_ref()))),
    }
}
