use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::Portable;

#[derive(Deserialize, JsonSchema, Portable)]
struct Name<'a> {
    first: &'a str,
}

fn main() {
    let _ = Name { first: "x" }.first;
}
