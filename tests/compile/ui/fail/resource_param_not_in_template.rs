use tooldef::resource;

/// A user's profile.
#[resource(uri = "users://{user_id}/profile")]
fn profile(user_id: u64, user_i: u64, #[arg(rename = "format")] shape: String) -> String {
    format!("{user_id} {user_i} {shape}")
}

fn main() {}
