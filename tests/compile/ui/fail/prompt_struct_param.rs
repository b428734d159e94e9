use tooldef::prompt;

pub struct Filter {
    pub language: String,
}

/// Review code.
#[prompt]
fn review(
    /// What to keep.
    filter: Filter,
    /// The files.
    files: Option<Vec<String>>,
    /// The author.
    author: &str,
) -> String {
    format!("{} {files:?} {author}", filter.language)
}

fn main() {}
