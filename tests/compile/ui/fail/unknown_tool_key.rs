use tooldef::tool;

/// Look.
#[tool(readonly, titel = "Look")]
fn look() {}

fn main() {}
