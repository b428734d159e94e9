use tooldef::tool;

/// Move.
#[tool]
fn move_to(point: (f64, f64)) -> f64 {
    point.0 + point.1
}

fn main() {}
