use tooldef::{PromptMessage, prompt, resource};

/// Plan a trip.
#[prompt(example(city = "Paris"), defer_loading)]
fn plan_trip(city: String) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("Plan a trip to {city}."))]
}

/// A user's profile.
#[resource(uri = "users://{id}", example(id = 1))]
fn profile(id: u64) -> String {
    id.to_string()
}

fn main() {}
