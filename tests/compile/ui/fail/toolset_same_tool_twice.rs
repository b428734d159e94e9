use tooldef::{tool, toolset};

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
    let _ = toolset![Add, Negate, Add].build();
}
