use std::collections::HashMap;

use tooldef::{tool, tools};

/// Deserialisable and with a schema, but not opted in to the portability checks.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Server;

#[tools]
impl Server {
    /// Tag things.
    #[tool]
    fn tag(&self, labels: HashMap<String, String>) -> usize {
        labels.len()
    }

    /// Nest the server in itself, which the model could never send.
    #[tool]
    fn nest(&self, inner: Vec<Self>) -> usize {
        inner.len()
    }

    /// Give the server back, which cannot be shown to the model.
    #[tool]
    fn give(&self) -> Option<Self> {
        None
    }
}

fn main() {}
