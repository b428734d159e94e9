use tooldef::{Args, CallContext, ResourceUri, prompt, resource};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Trip {
    pub city: String,
}

/// Generic.
#[prompt]
fn generic<T: std::str::FromStr>(value: T) -> String {
    let _ = value;
    String::new()
}

/// Patterns, `impl Trait` and a whole struct.
#[prompt(name = " ")]
fn shapes((a, b): (String, String), c: impl ToString, Args(trip): Args<Trip>) -> String {
    format!("{a}{b}{}{}", c.to_string(), trip.city)
}

/// Defaults and names.
#[prompt]
fn names(
    #[arg(default = Some(3))] days: Option<u32>,
    #[arg(rename = "days")] nights: u32,
    #[arg(complete = suggest)] context: CallContext,
) -> String {
    format!("{days:?} {nights} {:?}", context.call_id())
}

fn suggest(_: &tooldef::CompletionRequest) -> Vec<String> {
    Vec::new()
}

/// Annotations that say nothing.
#[resource(uri = "notes://{id}", annotations(audience = ["user", "user"]))]
fn note(
    id: String,
    /// The URI read.
    uri: ResourceUri,
) -> String {
    format!("{id} {uri}")
}

/// Empty annotations.
#[resource(uri = "notes://all", annotations())]
fn notes() -> String {
    String::new()
}

fn main() {}
