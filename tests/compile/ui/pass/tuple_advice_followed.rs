//! What the errors about tuples of one type advise (`ui/fail/tuple_of_one_type.rs`): a newtype
//! of an array, or an array, which read the same JSON as the tuple and which every target
//! accepts.

use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

#[derive(Deserialize, JsonSchema, Portable)]
struct Rgb([u8; 3]);

#[derive(Deserialize, JsonSchema, Portable)]
enum Shape {
    Rectangle([f64; 2]),
    Point,
}

/// Paint.
#[tool]
fn paint(color: Rgb, outline: [u8; 3], shape: Shape) -> usize {
    let _ = (color.0, outline);
    match shape {
        Shape::Rectangle(sides) => sides.len(),
        Shape::Point => 0,
    }
}

fn main() {
    use tooldef::{Target, Tool};
    for target in Target::ALL {
        Paint.definition().to_json(target).unwrap();
    }
    let tuple: (u8, u8, u8) = serde_json::from_str("[1, 2, 3]").unwrap();
    let rgb: Rgb = serde_json::from_str("[1, 2, 3]").unwrap();
    assert_eq!(rgb.0, [tuple.0, tuple.1, tuple.2]);
    let shape: Shape = serde_json::from_str(r#"{"Rectangle": [2.0, 3.0]}"#).unwrap();
    assert!(matches!(shape, Shape::Rectangle([2.0, 3.0])));
}
