use tooldef::tool;

/// Sum.
#[tool]
fn sum(values: &[f64]) -> f64 {
    values.iter().sum()
}

fn main() {}
