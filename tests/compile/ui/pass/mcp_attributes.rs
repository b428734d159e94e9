//! Every MCP attribute, on a function and on a `#[tools]` method; with no warning from the
//! generated code.
#![deny(warnings)]

use std::sync::Arc;

use tooldef::{Tool, tool, tools};

/// Look up the weather.
#[tool(
    icon = "https://example.com/weather.png",
    icon(src = "data:image/png;base64,iVBORw0KGgo=", mime_type = "image/png", sizes = "48x48 96x96", theme = "light"),
    icon(src = "https://example.com/weather-dark.svg", sizes = "any", theme = "dark"),
    meta(version = 2, r#type = "lookup", "com.example/tags" = ["a", "b"], "com.example/limits" = {perMinute: 60, "burst": -1.5, beta: false, note: null}),
    meta("com.example/" = "prefix only"),
    task
)]
fn weather(
    /// The region.
    #[arg(header = "X-Region")]
    region: String,
    /// The shard.
    #[arg(header = "Shard", default = 1)]
    shard: u8,
    /// Whether to trace.
    #[arg(header = "Trace", default)]
    trace: bool,
    /// The city.
    city: String,
) -> String {
    format!("{region} {shard} {trace} {city}")
}

struct Archive;

#[tools]
impl Archive {
    /// Export the archive.
    #[tool(task = true, icon = "https://example.com/export.svg", meta(owner = "archive-team"))]
    async fn export(
        &self,
        /// The tenant.
        #[arg(header = "Tenant")]
        tenant: i64,
    ) -> String {
        tenant.to_string()
    }
}

fn main() {
    assert!(Weather.definition().runs_as_task());
    assert!(ArchiveExport(Arc::new(Archive)).definition().runs_as_task());
    let _ = Arc::new(Archive).toolset().build();
}
