use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooldef::{Portable, tool};

#[derive(Clone, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "lowercase")]
enum Order {
    Asc,
    Desc,
}

/// List.
#[tool]
fn list(
    #[arg(default = 10)] limit: u32,
    #[arg(default = Order::Desc)] order: Order,
    #[arg(default)] include_archived: bool,
    #[arg(default = vec!["id".to_owned()])] fields: Vec<String>,
    #[arg(default = 0.5)] threshold: f64,
    // `Default` of `Option` is `None`: absent (or `null`) means `None`.
    #[arg(default)] cursor: Option<String>,
) -> usize {
    let _ = (order, include_archived, fields, threshold, cursor);
    limit as usize
}

fn main() {}
