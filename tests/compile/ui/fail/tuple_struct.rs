use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

#[derive(Deserialize, JsonSchema, Portable)]
struct Pair(i32, String);

/// A newtype is its inner value in serde and schemars: allowed.
#[derive(Deserialize, JsonSchema, Portable)]
struct Meters(f64);

#[derive(Deserialize, JsonSchema, Portable)]
enum Shape {
    Circle(Meters),
    Rectangle(f64, f64),
    Point,
}

/// Measure a shape.
#[tool]
fn measure(pair: Pair, shape: Shape) -> f64 {
    let _ = (pair.0, pair.1);
    match shape {
        Shape::Circle(radius) => radius.0,
        Shape::Rectangle(width, height) => width * height,
        Shape::Point => 0.0,
    }
}

fn main() {}
