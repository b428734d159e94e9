use tooldef::tool;

/// Greet.
#[tool]
fn greet(name: &str) -> String {
    name.to_owned()
}

fn main() {}
