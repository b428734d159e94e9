//! A type of the user's own named as one of tooldef's context types is taken as context: the
//! error says why, and how to make it an argument.
use tooldef::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Sample {
    rate: u32,
}

/// Analyse an audio sample.
#[tool(strict = false)]
fn analyse(sample: Sample) -> u32 {
    sample.rate
}

fn main() {}
