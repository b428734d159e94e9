use tooldef::tool;

/// Add.
#[tool]
fn add((a, b): (u32, u32)) -> u32 {
    a + b
}

fn main() {}
