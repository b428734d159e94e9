use tooldef::tool;

/// Store.
#[tool]
fn store(fields: serde_json::Map<String, serde_json::Value>) -> usize {
    fields.len()
}

fn main() {}
