use tooldef::tool;

#[derive(Debug)]
struct Oops;

/// Try.
#[tool]
fn attempt() -> Result<u32, Oops> {
    Err(Oops)
}

fn main() {}
