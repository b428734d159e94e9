//! Every shape of field MCP's form has, written with serde and schemars attributes, reaches the
//! form: defaults (SEP-1034), untitled, titled and legacy-titled choices, and untitled and
//! titled multiple choices (SEP-1330).
use serde_json::json;
use tooldef::Elicitable;

// A defaulted field's type serialises: schemars writes the default with it.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema, Elicitable, Default)]
#[serde(rename_all = "lowercase")]
enum Size {
    #[default]
    Small,
    Large,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
#[serde(rename_all = "lowercase")]
enum Crust {
    /// Thin and crisp
    Thin,
    #[schemars(title = "Thick and soft")]
    Thick,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
#[serde(rename_all = "lowercase")]
#[schemars(extend("enumNames" = ["Mozzarella", "Black olives"]))]
enum Topping {
    Cheese,
    Olives,
}

fn two() -> u8 {
    2
}

fn tip() -> f64 {
    1.5
}

fn gift() -> bool {
    true
}

fn name() -> String {
    "Ada".into()
}

fn large() -> Vec<Size> {
    vec![Size::Large]
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
struct Order {
    /// Who it is for.
    #[serde(default = "name")]
    #[schemars(length(max = 40))]
    name: String,
    #[serde(default = "two")]
    #[schemars(range(min = 1, max = 9))]
    count: u8,
    #[serde(default = "tip")]
    tip: f64,
    #[serde(default = "gift")]
    gift: bool,
    #[serde(default)]
    size: Size,
    crust: Crust,
    topping: Topping,
    #[serde(default = "large")]
    #[schemars(length(min = 1))]
    sizes: Vec<Size>,
    crusts: Vec<Crust>,
    toppings: Vec<Topping>,
}

fn main() {
    let form = serde_json::Value::Object(Order::form().unwrap());
    assert_eq!(
        form["properties"],
        json!({
            "name": {"type": "string", "description": "Who it is for.", "maxLength": 40, "default": "Ada"},
            "count": {"type": "integer", "minimum": 1, "maximum": 9, "default": 2},
            "tip": {"type": "number", "default": 1.5},
            "gift": {"type": "boolean", "default": true},
            "size": {"type": "string", "enum": ["small", "large"], "default": "small"},
            "crust": {"type": "string", "oneOf": [
                {"const": "thin", "title": "Thin and crisp"},
                {"const": "thick", "title": "Thick and soft"}
            ]},
            "topping": {"type": "string", "enum": ["cheese", "olives"], "enumNames": ["Mozzarella", "Black olives"]},
            "sizes": {"type": "array", "items": {"type": "string", "enum": ["small", "large"]}, "minItems": 1, "default": ["large"]},
            "crusts": {"type": "array", "items": {"anyOf": [
                {"const": "thin", "title": "Thin and crisp"},
                {"const": "thick", "title": "Thick and soft"}
            ]}},
            "toppings": {"type": "array", "items": {"anyOf": [
                {"const": "cheese", "title": "Mozzarella"},
                {"const": "olives", "title": "Black olives"}
            ]}}
        })
    );
    assert_eq!(form["required"], json!(["crust", "topping", "crusts", "toppings"]));
}
