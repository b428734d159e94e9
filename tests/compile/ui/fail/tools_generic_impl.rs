use tooldef::{tool, tools};

trait Store: Send + Sync + 'static {
    fn get(&self, key: &str) -> Option<String>;
}

struct Cache<S> {
    store: S,
}

#[tools]
impl<S: Store> Cache<S> {
    /// Read a key.
    #[tool]
    fn read(&self, key: String) -> Option<String> {
        self.store.get(&key)
    }
}

fn main() {}
