use tooldef::tool;

struct Summary;

/// Report.
#[tool]
fn report() -> Summary {
    Summary
}

fn main() {}
