use tooldef as td;

/// Type it.
#[td::tool(crate = "td", name = "type")]
fn r#type(r#type: String, #[arg(rename = "self")] this: u8) -> String {
    format!("{type}{this}", type = r#type)
}

#[derive(serde::Deserialize, schemars::JsonSchema, td::Portable)]
#[portable(crate = "td")]
struct Point {
    x: f64,
}

fn main() {}
