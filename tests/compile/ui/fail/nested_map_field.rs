use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::Portable;

#[derive(Deserialize, JsonSchema, Portable)]
struct Filter {
    field: String,
    /// Extra options.
    options: std::collections::HashMap<String, String>,
}

fn main() {}
