use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

#[derive(Clone, Deserialize, JsonSchema, Portable)]
enum Mode {
    Fast,
    Slow,
}

/// Run.
#[tool]
fn run(#[arg(default = Mode::Fast)] mode: Mode) {
    let _ = mode;
}

fn main() {}
