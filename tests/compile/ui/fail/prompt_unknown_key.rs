use tooldef::prompt;

/// Review code.
#[prompt(read_only, titel = "Review", uri = "prompts://review")]
fn review(code: String) -> String {
    format!("Review this:\n{code}")
}

fn main() {}
