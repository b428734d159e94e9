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
    #[arg(default = Some(0.5))] threshold: Option<f64>,
) -> usize {
    let _ = (order, include_archived, fields, threshold);
    limit as usize
}

fn main() {}
