use tooldef::tool;

/// Echo.
#[tool]
fn echo(value: impl Into<String>) -> String {
    value.into()
}

fn main() {}
