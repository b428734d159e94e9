use tooldef::resource;

/// A report.
#[resource(
    uri = "reports://{year}",
    mime_type = "markdown",
    size = 1024,
    annotations(audience = ["user", "robot"], priority = 2, last_modified = "yesterday"),
)]
fn report(year: u32) -> String {
    year.to_string()
}

fn main() {}
