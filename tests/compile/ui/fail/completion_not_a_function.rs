use tooldef::{CompletionRequest, prompt};

fn by_value(request: CompletionRequest) -> Vec<String> {
    vec![request.value]
}

fn numbers(_: &CompletionRequest) -> Vec<u32> {
    vec![1, 2]
}

/// Greet.
#[prompt]
fn greet(
    #[arg(complete = by_value)] name: String,
    #[arg(complete = numbers)] age: u32,
) -> String {
    format!("{name} {age}")
}

fn main() {}
