use tooldef::tool;

/// Count.
#[tool]
fn count(#[arg(defualt = 3)] n: u32) -> u32 {
    n
}

fn main() {}
