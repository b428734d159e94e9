use tooldef::tool;

/// Open a file.
#[tool]
fn open(path: std::ffi::OsString) -> usize {
    path.len()
}

fn main() {}
