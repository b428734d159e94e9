use tooldef::{tool, tools};

struct Counter {
    count: u64,
}

#[tools]
impl Counter {
    /// Count up.
    #[tool]
    fn increment(&mut self, by: u64) -> u64 {
        self.count += by;
        self.count
    }
}

fn main() {
    let _ = std::sync::Arc::new(Counter { count: 0 }).toolset().build();
}
