use std::collections::HashMap;

use tooldef::{tool, tools};

struct Server;

#[tools]
impl Server {
    #[tool]
    fn undocumented(&self, word: String) -> String {
        word
    }

    /// Tag things.
    #[tool]
    fn tag(&self, labels: HashMap<String, String>, name: &str) -> usize {
        labels.len() + name.len()
    }

    /// Nest the server in itself, which the model could never send.
    #[tool]
    fn nest(&self, inner: Vec<Self>) -> usize {
        inner.len()
    }

    /// Fetch a page.
    #[tool(read_onyl)]
    fn fetch(&self, #[arg(defualt = 1)] page: u32) -> u32 {
        page
    }
}

fn main() {}
