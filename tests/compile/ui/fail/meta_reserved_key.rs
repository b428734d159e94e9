use tooldef::tool;

/// Export everything.
#[tool(meta("io.modelcontextprotocol/tasks" = true, "dev.mcp/owner" = "me"))]
fn export() -> String {
    String::new()
}

fn main() {}
