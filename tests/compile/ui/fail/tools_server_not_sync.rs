use std::cell::Cell;

use tooldef::{tool, tools};

struct Counter {
    count: Cell<u64>,
}

#[tools]
impl Counter {
    /// Count up.
    #[tool]
    fn increment(&self) -> u64 {
        self.count.set(self.count.get() + 1);
        self.count.get()
    }
}

fn main() {
    let _ = std::sync::Arc::new(Counter {
        count: Cell::new(0),
    })
    .toolset()
    .build();
}
