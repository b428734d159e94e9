//! The tools of the official MCP conformance suite (`@modelcontextprotocol/conformance`) that
//! ask the client something, written as ordinary tooldef tools: [`test_sampling`] asks the
//! client's model ([`Sample`]); [`test_elicitation`], [`test_elicitation_sep1034_defaults`]
//! and [`test_elicitation_sep1330_enums`] ask the user ([`Elicit`]) with the forms the scenarios
//! `tools-call-elicitation`, `elicitation-sep1034-defaults` and `elicitation-sep1330-enums`
//! check: defaults of every type, and every kind of choice MCP has. Add them to a set with
//! [`register`]; the example server serves them with `--conformance-asking`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooldef::{Elicit, ElicitError, Elicitable, Sample, SampleError, ToolSetBuilder, tool};

/// Asks the client's model `prompt`, in at most 100 tokens, and says what it replied.
#[tool]
pub async fn test_sampling(
    /// The prompt to send to the LLM.
    prompt: String,
    sample: Sample,
) -> Result<String, SampleError> {
    let reply = sample.text(prompt, 100).await?;
    Ok(format!("LLM response: {reply}"))
}

// The form of `test_elicitation` (a doc comment would be the form's description).
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicitable)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// The user's action and, when they accepted, what they gave, as the scenarios want it said:
/// `action`, and `content` as JSON.
fn outcome<T: Serialize>(
    answer: Result<T, ElicitError>,
) -> Result<(&'static str, String), ElicitError> {
    match answer {
        Ok(content) => {
            let content = serde_json::to_string(&content)
                .map_err(|error| ElicitError::Failed(error.to_string()))?;
            Ok(("accept", content))
        }
        Err(ElicitError::Declined) => Ok(("decline", "{}".into())),
        Err(ElicitError::Cancelled) => Ok(("cancel", "{}".into())),
        Err(other) => Err(other),
    }
}

/// Asks the user for their username and email, with `message` above the form, and says what
/// they did.
#[tool]
pub async fn test_elicitation(
    /// The message to show the user.
    message: String,
    elicit: Elicit,
) -> Result<String, ElicitError> {
    let (action, content) = outcome(elicit.ask::<UserInfo>(message).await)?;
    Ok(format!(
        "User response: action: {action}, content: {content}"
    ))
}

fn john_doe() -> String {
    "John Doe".into()
}

fn thirty() -> i64 {
    30
}

fn ninety_five_and_a_half() -> f64 {
    95.5
}

fn yes() -> bool {
    true
}

// An untitled choice: variants without doc comments are shown by their values. (Plain
// comments: a doc comment on the type would be the description of the fields of this type.)
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema, Elicitable)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

// The form of `test_elicitation_sep1034_defaults`: a default for every type a form has
// (SEP-1034), each a field's `#[serde(default)]`.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicitable)]
struct Defaults {
    #[serde(default = "john_doe")]
    name: String,
    #[serde(default = "thirty")]
    age: i64,
    #[serde(default = "ninety_five_and_a_half")]
    score: f64,
    #[serde(default)]
    status: Status,
    #[serde(default = "yes")]
    verified: bool,
}

/// Asks the user a form whose fields all have defaults (a string, an integer, a number, a
/// choice and a boolean), and says what they did.
#[tool]
pub async fn test_elicitation_sep1034_defaults(elicit: Elicit) -> Result<String, ElicitError> {
    let answer = elicit.ask::<Defaults>("Please review your details").await;
    let (action, content) = outcome(answer)?;
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

// An untitled choice (`enum`).
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicitable)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

// A titled choice (`oneOf` of `{const, title}`): the variants' doc comments are their titles.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicitable)]
#[serde(rename_all = "lowercase")]
enum Titled {
    /// First Option
    Value1,
    /// Second Option
    Value2,
    /// Third Option
    Value3,
}

// A choice titled the legacy way: `enum` with `enumNames`.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicitable)]
#[serde(rename_all = "lowercase")]
#[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

// A titled multiple choice (`items.anyOf` of `{const, title}`), titled with
// `#[schemars(title)]`.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicitable)]
#[serde(rename_all = "lowercase")]
enum Choice {
    #[schemars(title = "First Choice")]
    Value1,
    #[schemars(title = "Second Choice")]
    Value2,
    #[schemars(title = "Third Choice")]
    Value3,
}

// The form of `test_elicitation_sep1330_enums`: every kind of choice MCP has (SEP-1330).
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicitable)]
#[serde(rename_all = "camelCase")]
struct Enums {
    untitled_single: Untitled,
    titled_single: Titled,
    legacy_enum: Legacy,
    untitled_multi: Vec<Untitled>,
    titled_multi: Vec<Choice>,
}

/// Asks the user a form with every kind of choice (untitled, titled, legacy titled, and
/// untitled and titled multiple choices), and says what they did.
#[tool]
pub async fn test_elicitation_sep1330_enums(elicit: Elicit) -> Result<String, ElicitError> {
    let answer = elicit.ask::<Enums>("Please make your choices").await;
    let (action, content) = outcome(answer)?;
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

/// `builder` with the four tools added.
pub fn register(builder: ToolSetBuilder) -> ToolSetBuilder {
    builder
        .tool(TestSampling)
        .tool(TestElicitation)
        .tool(TestElicitationSep1034Defaults)
        .tool(TestElicitationSep1330Enums)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The forms, exactly as the scenarios check them.
    #[test]
    fn the_forms_are_the_scenarios() {
        assert_eq!(
            serde_json::Value::Object(Defaults::form().unwrap())["properties"],
            json!({
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true}
            })
        );
        assert_eq!(
            serde_json::Value::Object(Enums::form().unwrap())["properties"],
            json!({
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]},
                "legacyEnum": {
                    "type": "string",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]
                },
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}
                ]}}
            })
        );
        assert_eq!(
            serde_json::Value::Object(UserInfo::form().unwrap())["properties"],
            json!({
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            })
        );
    }
}
