use tooldef::tool;

struct Counter;

impl Counter {
    /// Count.
    #[tool]
    fn count(&self, by: u32) -> u32 {
        by
    }
}

fn main() {}
