use tooldef::tool;

/// Read a file.
#[tool(name = "fs.read_file")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
