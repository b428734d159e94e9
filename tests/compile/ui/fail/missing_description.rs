use tooldef::tool;

#[tool]
fn undocumented(x: u32) -> u32 {
    x
}

fn main() {}
