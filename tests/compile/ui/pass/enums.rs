use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

/// Sizes.
#[derive(Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "lowercase")]
enum Size {
    /// Small.
    S,
    /// Large.
    L,
}

#[derive(Deserialize, JsonSchema, Portable)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Rect { width: f64, height: f64 },
}

#[derive(Deserialize, JsonSchema, Portable)]
enum Payload {
    Text(String),
    Numbers(Vec<i64>),
}

/// Draw.
#[tool]
fn draw(size: Size, shape: Shape, payload: Payload) {
    let _ = (size, shape, payload);
}

fn main() {}
