//! Every field an elicitation form takes: strings, numbers, integers, booleans, a choice (an
//! enum of unit variants), several choices, and optional ones; skipped fields are not asked.
use tooldef::{Elicit, ElicitError, Elicitable, tool};

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
#[serde(rename_all = "snake_case")]
enum Topping {
    Cheese,
    Olives,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
enum Size {
    Small,
    Large,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
struct Order {
    name: String,
    count: u8,
    tip: f64,
    gift: bool,
    size: Size,
    toppings: Vec<Topping>,
    note: Option<String>,
    other_size: Option<Size>,
    #[serde(skip)]
    #[allow(dead_code)]
    internal: std::collections::HashMap<String, String>,
}

/// Order a pizza, asking what is on it.
#[tool]
async fn order_pizza(elicit: Elicit) -> Result<String, ElicitError> {
    let order: Order = elicit.ask("Your order?").await?;
    Ok(format!("{} × {} for {}", order.count, order.toppings.len(), order.name))
}

fn main() {
    let _ = OrderPizza;
}
