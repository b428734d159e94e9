use tooldef::Elicitable;

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable, Default)]
enum Size {
    #[default]
    Small,
    Large,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
struct Order {
    #[serde(default)]
    size: Size,
    #[serde(default)]
    sizes: Vec<Size>,
    /// Not defaulted: no `Serialize` needed.
    other: Size,
}

fn main() {}
