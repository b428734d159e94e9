use tooldef::resource;

/// A file.
#[resource(uri = "files://{+dir}{name}")]
fn file(dir: String, name: String) -> String {
    format!("{dir}/{name}")
}

/// A fragment.
#[resource(uri = "pages://{page}{#section}")]
fn fragment(page: String, section: String) -> String {
    format!("{page}#{section}")
}

/// Unclosed.
#[resource(uri = "notes://{id")]
fn note(id: String) -> String {
    id
}

fn main() {}
