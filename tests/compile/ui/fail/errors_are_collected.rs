use tooldef::tool;

#[tool(name = "bad name", colour = "red")]
fn everything_wrong(#[arg(rename = "x")] a: u32, #[arg(rename = "x")] b: u32) -> u32 {
    a + b
}

fn main() {}
