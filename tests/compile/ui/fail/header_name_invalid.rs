use tooldef::tool;

/// Fetch a report.
#[tool]
fn report(
    /// The region.
    #[arg(header = "X Region")]
    region: String,
    /// The tenant.
    #[arg(header = "Tenant:Id")]
    tenant: String,
    /// The page.
    #[arg(header = "")]
    page: u32,
) -> String {
    format!("{region} {tenant} {page}")
}

fn main() {}
