//! Tools that show what MCP 2026-07-28 lets a tool be: one that asks the user before it acts
//! ([`delete_files`], with [`Elicit`]), one that runs long as a task ([`build_report`],
//! `#[tool(task)]`), and one with icons, `_meta` and an argument sent as an HTTP header too
//! ([`regional_price`]). The example server serves them with `--mcp-features`; add them to a set
//! with [`add_to`].

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooldef::{CancellationToken, Elicit, ElicitError, Elicitable, Progress, ToolSetBuilder, tool};

/// The question [`delete_files`] asks.
#[derive(Debug, Deserialize, JsonSchema, Elicitable)]
pub struct Confirm {
    /// Delete the files?
    pub confirm: bool,
}

/// Delete the files of a folder, once the user has confirmed it. (A demonstration: nothing is
/// deleted.)
#[tool(destructive, open_world = false)]
pub async fn delete_files(
    /// The folder whose files to delete.
    folder: String,
    /// How many files there are.
    #[schemars(range(min = 1, max = 1000))]
    count: u32,
    elicit: Elicit,
) -> String {
    let question = format!("Delete {count} files in {folder}?");
    match elicit.ask::<Confirm>(question).await {
        Ok(Confirm { confirm: true }) => format!("deleted {count} files in {folder}"),
        Ok(Confirm { confirm: false }) => format!("kept the files in {folder}: the user said no"),
        Err(ElicitError::Declined) => format!("kept the files in {folder}: the user declined"),
        Err(ElicitError::Cancelled) => {
            format!("kept the files in {folder}: the user cancelled")
        }
        Err(ElicitError::Unsupported) => format!(
            "kept the files in {folder}: the user cannot be asked here, and nothing is deleted \
             without asking"
        ),
        Err(other) => format!("kept the files in {folder}: {other}"),
    }
}

/// What [`build_report`] made.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Report {
    /// How many pages were written.
    pub pages: u32,
}

/// Build a report of some pages, slowly: each page takes `millis_per_page`. Runs as a task for
/// clients that take tasks (poll it, or cancel it).
#[tool(task, read_only, open_world = false)]
pub async fn build_report(
    /// How many pages.
    #[schemars(range(min = 1, max = 100))]
    pages: u32,
    /// How long each page takes, in milliseconds.
    #[arg(default = 100)]
    #[schemars(range(max = 10000))]
    millis_per_page: u64,
    progress: Progress,
    cancel: CancellationToken,
) -> Result<Report, String> {
    for page in 1..=pages {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(millis_per_page)) => {}
            () = cancel.cancelled() => return Err(format!("stopped after {} pages", page - 1)),
        }
        progress
            .report(
                f64::from(page),
                Some(f64::from(pages)),
                Some(&format!("page {page} of {pages}")),
            )
            .await;
    }
    Ok(Report { pages })
}

/// The price of a product in a region. The region is also sent as an HTTP header
/// (`Mcp-Param-Region`), so a load balancer can route the call without reading it; the icons
/// and `_meta` are for the client to show and read.
#[tool(
    read_only,
    icon(src = "https://example.com/icons/price.png", mime_type = "image/png", sizes = "48x48", theme = "light"),
    icon(src = "https://example.com/icons/price-dark.svg", mime_type = "image/svg+xml", sizes = "any", theme = "dark"),
    meta("com.example/team" = "pricing", "com.example/cost" = {units: 1})
)]
pub fn regional_price(
    /// The region, e.g. "eu-west".
    #[arg(header = "Region")]
    region: String,
    /// The product's id.
    product: String,
) -> String {
    format!("{product} costs 10 EUR in {region}")
}

/// `builder` with the tools of this module added, and the travel desk's prompts, resources and
/// note-taking tool ([`crate::travel_desk`]).
pub fn add_to(builder: ToolSetBuilder) -> ToolSetBuilder {
    let builder = builder
        .tool(DeleteFiles)
        .tool(BuildReport)
        .tool(RegionalPrice);
    // Prompts, resources and completion: the rest of what an MCP server serves.
    crate::travel_desk::add_to(builder)
}
