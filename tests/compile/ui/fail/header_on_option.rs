use tooldef::tool;

/// Fetch a report.
#[tool]
fn report(
    /// The region.
    #[arg(header = "Region")]
    region: Option<String>,
) -> String {
    region.unwrap_or_default()
}

fn main() {}
