use tooldef::tool;

/// Greet someone.
#[tool(output_schema = true)]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
