use tooldef::{Target, tool, toolset};

/// Add.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Negate.
#[tool]
fn negate(a: i64) -> i64 {
    -a
}

fn main() {
    let tools = toolset![Add, Negate].build().unwrap();
    assert_eq!(tools.len(), 2);
    assert!(tools.list(Target::Gemini).is_ok());
}
