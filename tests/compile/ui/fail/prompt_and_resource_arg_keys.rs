use tooldef::{prompt, resource, tool};

/// Greet.
#[prompt]
fn greet(
    #[arg(header = "X-Name")] name: String,
    #[arg(deprecated)] title: Option<String>,
    #[serde(rename = "lang")] language: Option<String>,
) -> String {
    format!("{title:?} {name} {language:?}")
}

/// A user.
#[resource(uri = "users://{id}")]
fn user(
    /// The user's id.
    id: u64,
) -> String {
    id.to_string()
}

fn suggest(_: &tooldef::CompletionRequest) -> Vec<String> {
    Vec::new()
}

/// Look up a word.
#[tool]
fn look_up(#[arg(complete = suggest)] word: String) -> String {
    word
}

fn main() {}
