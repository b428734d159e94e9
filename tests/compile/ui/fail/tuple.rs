use tooldef::tool;

/// Move.
#[tool]
fn move_to(point: (f64, f64), label: (String, u32)) -> f64 {
    let _ = label;
    point.0 + point.1
}

fn main() {}
