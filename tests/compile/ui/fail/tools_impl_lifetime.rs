use tooldef::{tool, tools};

struct Catalogue<'a> {
    items: &'a [String],
}

#[tools]
impl<'a> Catalogue<'a> {
    /// Count the items.
    #[tool]
    fn count(&self) -> usize {
        self.items.len()
    }
}

struct Index<'a> {
    words: &'a [String],
}

#[tools]
impl Index<'_> {
    /// Count the words.
    #[tool]
    fn words(&self) -> usize {
        self.words.len()
    }
}

fn main() {}
