use tooldef::tool;

/// Fetch a report.
#[tool]
fn report(
    /// The regions.
    #[arg(header = "Regions")]
    regions: Vec<String>,
    /// The ratio.
    #[arg(header = "Ratio")]
    ratio: f64,
) -> String {
    format!("{regions:?} {ratio}")
}

fn main() {}
