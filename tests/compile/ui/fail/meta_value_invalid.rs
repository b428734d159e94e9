use tooldef::tool;

/// Export everything.
#[tool(meta(owner = none))]
fn export() -> String {
    String::new()
}

/// Import everything.
#[tool(meta = {"owner": "me"})]
fn import() -> String {
    String::new()
}

fn main() {}
