use tooldef::{Tool, tool};

/// Look.
#[tool(readonly)]
fn look() {}

fn main() {
    // The tool type still exists, so this line adds no error of its own.
    let _ = Look.definition();
}
