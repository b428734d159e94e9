use tooldef::{Elicit, ElicitError, Elicitable, tool};

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
struct Pair(String, u32);

#[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
enum Choice {
    Yes,
    Other(String),
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NotDerived {
    answer: String,
}

/// Ask without a form.
#[tool]
async fn ask_plainly(elicit: Elicit) -> Result<String, ElicitError> {
    let answer: NotDerived = elicit.ask("Anything?").await?;
    Ok(answer.answer)
}

fn main() {}
