use tooldef::resource;

/// The README.
#[resource(uri = "docs://readme")]
fn readme(section: String) -> String {
    section
}

fn main() {}
