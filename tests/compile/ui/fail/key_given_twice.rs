use tooldef::tool;

/// Look.
#[tool(name = "look", name = "see")]
fn look() {}

fn main() {}
