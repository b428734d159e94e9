use tooldef::{ResourceUri, prompt};

/// Where am I.
#[prompt]
fn whereami(uri: ResourceUri) -> String {
    uri.to_string()
}

fn main() {}
