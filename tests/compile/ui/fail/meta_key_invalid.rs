use tooldef::tool;

/// Export everything.
#[tool(meta(
    "com.example/tags" = ["a", "b"],
    "-tags" = 1,
    "com..example/x" = 2,
    "1com.example/x" = 3,
    "com.example/tags" = [],
    "com.example/a b" = 4
))]
fn export() -> String {
    String::new()
}

fn main() {}
