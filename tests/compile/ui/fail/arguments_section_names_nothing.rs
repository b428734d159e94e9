use tooldef::tool;

/// Count.
///
/// # Arguments
///
/// * `number` - How many.
#[tool]
fn count(n: u32) -> u32 {
    n
}

fn main() {}
