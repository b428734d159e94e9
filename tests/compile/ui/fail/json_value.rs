use tooldef::tool;

/// Store.
#[tool]
fn store(value: serde_json::Value) -> String {
    value.to_string()
}

fn main() {}
