use tooldef::resource;

/// A post of a user.
#[resource(uri = "users://{id}/posts/{post}{?lang,utm.source}")]
fn user_post(id: u64) -> String {
    format!("user {id}")
}

fn main() {}
