use tooldef::tool;

/// Fetch a report.
#[tool]
fn report(
    /// The region.
    #[arg(header = "Region")]
    region: String,
    /// The region to fall back to.
    #[arg(header = "region")]
    fallback: String,
) -> String {
    format!("{region} {fallback}")
}

fn main() {}
