use tooldef::tool;

/// Hash.
#[tool]
fn hash(value: u128) -> String {
    value.to_string()
}

fn main() {}
