use tooldef::Elicitable;

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
#[schemars(extend("enumNames" = ["Small"]))]
enum Size {
    Small,
    Large,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
#[schemars(extend("enumNames" = ["Thin", "Thick"]))]
enum Crust {
    /// A thin crust
    Thin,
    Thick,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
enum Topping {
    /// Cheese, melted
    #[schemars(title = "Cheese")]
    Cheese,
    Olives,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
struct Order {
    #[schemars(example = 2)]
    count: u8,
    #[schemars(extend("x-widget" = "slider"))]
    tip: f64,
    #[deprecated]
    note: String,
    #[schemars(extend("enumNames" = "Small, Large"))]
    size: Size,
    crust: Crust,
    topping: Topping,
}

fn main() {}
