use tooldef::resource;

/// No URI.
#[resource(name = "readme")]
fn readme() -> &'static str {
    "# Read me"
}

/// No scheme.
#[resource(uri = "notes/today")]
fn today() -> &'static str {
    "nothing"
}

/// A space.
#[resource(uri = "notes://{day}/to do")]
fn todo(day: String) -> String {
    day
}

fn main() {}
