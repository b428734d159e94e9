use tooldef::tool;

/// Do it.
#[tool]
fn this_function_name_is_far_too_long_for_openai_and_anthropic_to_accept_it() {}

fn main() {}
