use tooldef::tool;

/// Count.
#[tool]
fn count(
    /// How many.
    #[arg(description = "How many times.")]
    n: u32,
) -> u32 {
    n
}

fn main() {}
