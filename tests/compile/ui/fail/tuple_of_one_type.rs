use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

/// Its items all have one type: the advice is the array `[u8; 3]`, not named fields.
#[derive(Deserialize, JsonSchema, Portable)]
struct Rgb(u8, u8, u8);

/// Paint.
#[tool]
fn paint(color: Rgb, outline: (u8, u8, u8), path: Vec<(f64, f64)>) -> usize {
    let _ = (color.0, color.1, color.2, outline);
    path.len()
}

fn main() {}
