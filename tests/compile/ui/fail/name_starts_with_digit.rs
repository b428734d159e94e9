use tooldef::tool;

/// Do it.
#[tool(name = "2fa_check")]
fn two_factor() {}

fn main() {}
