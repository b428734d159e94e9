//! The MCP client of `tooldef list` and `tooldef call`: who it says it is, and how it answers a
//! server's questions (`elicitation/create`, form mode): on the terminal, a prompt per field
//! (defaults offered, choices listed); from `--elicit` (the answer's content, or `decline` /
//! `cancel`), completed with the defaults the requested schema gives (SEP-1034) and checked
//! against it; else declined, saying so on stderr. The elicitation capability is declared only
//! when there is a way to answer.

use std::io::{BufRead, IsTerminal, Write};

use rmcp::model::{
    ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    ErrorData, FormElicitationCapability, Implementation, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Map, Value};

use crate::output;

/// How questions are answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Asked on the terminal.
    Prompt,
    /// Accepted with this content (completed with the schema's defaults).
    Given(Map<String, Value>),
    /// Declined.
    Decline,
    /// Cancelled.
    Cancel,
    /// No way to answer: declined, and said on stderr.
    Unavailable,
}

impl Answer {
    /// `--elicit`'s value: `decline`, `cancel` or the JSON object of the content; without it,
    /// the terminal when stdin is one.
    pub fn from_flag(given: Option<&str>) -> Result<Answer, String> {
        match given.map(str::trim) {
            None if std::io::stdin().is_terminal() => Ok(Answer::Prompt),
            None => Ok(Answer::Unavailable),
            Some("decline") => Ok(Answer::Decline),
            Some("cancel") => Ok(Answer::Cancel),
            Some(text) => match crate::input::parse(text.as_bytes()) {
                Ok(Value::Object(content)) => Ok(Answer::Given(content)),
                Ok(other) => Err(format!(
                    "--elicit takes `decline`, `cancel` or the JSON object of the answer, not {}",
                    crate::input::kind_of(&other)
                )),
                Err(reason) => Err(format!("--elicit: {reason}")),
            },
        }
    }
}

/// The client handler.
pub struct Client {
    answer: Answer,
    /// One question on the terminal at a time.
    terminal: tokio::sync::Mutex<()>,
}

impl Client {
    /// A client answering questions as `answer` says.
    pub fn new(answer: Answer) -> Client {
        Client {
            answer,
            terminal: tokio::sync::Mutex::new(()),
        }
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        // The `initialize` handshake's newest version: 2026-07-28 has none, so offering it
        // in `initialize` asks the server to negotiate down from a version the handshake
        // cannot name.
        info.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        info.client_info = Implementation::new("tooldef", env!("CARGO_PKG_VERSION"));
        if self.answer != Answer::Unavailable {
            info.capabilities.elicitation = Some(
                ElicitationCapability::new()
                    .with_form(FormElicitationCapability::new().with_schema_validation(true)),
            );
        }
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            output::stderr_line(
                "tooldef: the server asked to send you to a web page (URL elicitation), which \
                 tooldef does not do; declined",
            );
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
        let fields = fields(&schema);
        let result = match &self.answer {
            Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
            Answer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
            Answer::Unavailable => {
                output::stderr_line(&format!(
                    "tooldef: the server asked \"{}\", and there is no terminal to answer on; \
                     declined (give the answer with --elicit JSON)",
                    one_line(&message)
                ));
                ElicitResult::new(ElicitationAction::Decline)
            }
            Answer::Given(content) => match complete(&fields, content) {
                Ok(content) => ElicitResult::new(ElicitationAction::Accept)
                    .with_content(Value::Object(content)),
                Err(why) => {
                    output::stderr_line(&format!(
                        "tooldef: --elicit does not answer \"{}\": {why}; declined",
                        one_line(&message)
                    ));
                    ElicitResult::new(ElicitationAction::Decline)
                }
            },
            Answer::Prompt => {
                let _turn = self.terminal.lock().await;
                let asked = tokio::task::spawn_blocking(move || {
                    let stdin = std::io::stdin();
                    prompt(&message, &fields, &mut stdin.lock(), &mut std::io::stderr())
                })
                .await;
                match asked {
                    Ok(Ok(result)) => result,
                    // A terminal that cannot be read or written cancels the question.
                    _ => ElicitResult::new(ElicitationAction::Cancel),
                }
            }
        };
        Ok(result)
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a field takes.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A string.
    Text,
    /// A number.
    Number,
    /// An integer.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// One of these values (with their titles).
    Choice(Vec<(String, Option<String>)>),
    /// Some of these values.
    Choices(Vec<(String, Option<String>)>),
}

/// One field of a requested schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Its key.
    pub name: String,
    /// Its title, or its key.
    pub label: String,
    /// Its description.
    pub description: Option<String>,
    /// What it takes.
    pub kind: Kind,
    /// Its default.
    pub default: Option<Value>,
    /// Whether an answer needs it.
    pub required: bool,
}

/// The values and titles of an enum schema: `enum` (with the legacy `enumNames`), or `oneOf` /
/// `anyOf` of `{const, title}`.
fn choices(schema: &Value) -> Option<Vec<(String, Option<String>)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let title = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    v.as_str().map(|v| (v.to_owned(), title))
                })
                .collect(),
        );
    }
    let options = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        options
            .iter()
            .filter_map(|o| {
                let value = o.get("const")?.as_str()?.to_owned();
                let title = o.get("title").and_then(Value::as_str).map(str::to_owned);
                Some((value, title))
            })
            .collect(),
    )
}

/// The fields of a requested schema (an object of primitive properties), in its order.
pub fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let kind = match property.get("type").and_then(Value::as_str) {
                Some("array") => {
                    Kind::Choices(property.get("items").and_then(choices).unwrap_or_default())
                }
                Some("number") => Kind::Number,
                Some("integer") => Kind::Integer,
                Some("boolean") => Kind::Boolean,
                _ => choices(property).map_or(Kind::Text, Kind::Choice),
            };
            Field {
                name: name.clone(),
                label: property
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or(name)
                    .to_owned(),
                description: property
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                kind,
                default: property.get("default").cloned(),
                required: required.contains(&name.as_str()),
            }
        })
        .collect()
}

/// `value` as `field` takes it (an integral number for an integer field, one of the choices),
/// or why not.
pub fn check(field: &Field, value: &Value) -> Result<Value, String> {
    let name = &field.name;
    let allowed = |options: &[(String, Option<String>)]| {
        options
            .iter()
            .map(|(v, _)| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (&field.kind, value) {
        (Kind::Text, Value::String(_))
        | (Kind::Number, Value::Number(_))
        | (Kind::Boolean, Value::Bool(_)) => Ok(value.clone()),
        (Kind::Integer, Value::Number(n)) => match n.as_i64() {
            Some(i) => Ok(Value::from(i)),
            None => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Value::from(f as i64)),
                _ => Err(format!("`{name}` takes an integer, not {n}")),
            },
        },
        (Kind::Choice(options), Value::String(s)) if options.iter().any(|(v, _)| v == s) => {
            Ok(value.clone())
        }
        (Kind::Choice(options), _) => Err(format!(
            "`{name}` takes one of {}, not {value}",
            allowed(options)
        )),
        (Kind::Choices(options), Value::Array(items))
            if items.iter().all(|item| {
                item.as_str()
                    .is_some_and(|s| options.is_empty() || options.iter().any(|(v, _)| v == s))
            }) =>
        {
            Ok(value.clone())
        }
        (Kind::Choices(options), _) => Err(format!(
            "`{name}` takes a list of {}, not {value}",
            allowed(options)
        )),
        (kind, _) => Err(format!(
            "`{name}` takes {}, not {value}",
            match kind {
                Kind::Text => "a string",
                Kind::Number => "a number",
                Kind::Integer => "an integer",
                _ => "true or false",
            }
        )),
    }
}

/// An answer given as `content`, completed: each missing field that has a default gets it
/// (SEP-1034), and each value is checked. `Err` says what is wrong (a field the server did not
/// ask for, a required one missing, a value it does not take).
pub fn complete(
    fields: &[Field],
    content: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    if let Some(unknown) = content
        .keys()
        .find(|key| !fields.iter().any(|f| &f.name == *key))
    {
        let asked = fields
            .iter()
            .map(|f| format!("`{}`", f.name))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(format!(
            "`{unknown}` is not a field it asks for (it asks for {})",
            if asked.is_empty() { "none" } else { &asked }
        ));
    }
    let mut answer = Map::new();
    for field in fields {
        match (content.get(&field.name), &field.default) {
            (Some(value), _) => {
                answer.insert(field.name.clone(), check(field, value)?);
            }
            (None, Some(default)) => {
                answer.insert(field.name.clone(), default.clone());
            }
            (None, None) if field.required => {
                return Err(format!("it needs `{}`, which has no default", field.name));
            }
            (None, None) => {}
        }
    }
    Ok(answer)
}

/// What was typed for `field` as its value: empty is the default (or nothing, for an optional
/// field); a choice by its number or value; `y`/`n` for a boolean; a comma-separated list for
/// several choices. `Err` says what to type.
pub fn typed(field: &Field, text: &str) -> Result<Option<Value>, String> {
    let text = text.trim();
    if text.is_empty() {
        return match (&field.default, field.required) {
            (Some(default), _) => Ok(Some(default.clone())),
            (None, false) => Ok(None),
            (None, true) => Err("an answer is needed".to_owned()),
        };
    }
    let pick = |options: &[(String, Option<String>)], word: &str| -> Option<String> {
        word.parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| options.get(i))
            .or_else(|| options.iter().find(|(v, _)| v == word))
            .map(|(v, _)| v.clone())
    };
    let value = match &field.kind {
        Kind::Text => Value::String(text.to_owned()),
        Kind::Number | Kind::Integer => match text.parse::<f64>() {
            Ok(n) if n.is_finite() => {
                serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
            }
            _ => return Err("type a number".to_owned()),
        },
        Kind::Boolean => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Value::Bool(true),
            "n" | "no" | "false" => Value::Bool(false),
            _ => return Err("type y or n".to_owned()),
        },
        Kind::Choice(options) => match pick(options, text) {
            Some(v) => Value::String(v),
            None => return Err("type the number or the value of a choice".to_owned()),
        },
        Kind::Choices(options) => {
            let mut picked = Vec::new();
            for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                match pick(options, word) {
                    Some(v) => picked.push(Value::String(v)),
                    None => return Err(format!("`{word}` is not one of the choices")),
                }
            }
            Value::Array(picked)
        }
    };
    check(field, &value).map(Some)
}

/// The most times a field is asked again after an answer it does not take.
const TRIES: usize = 5;

/// Asks `message` and each field on the terminal (`input`, `prompts`).
pub fn prompt(
    message: &str,
    fields: &[Field],
    input: &mut dyn BufRead,
    prompts: &mut dyn Write,
) -> std::io::Result<ElicitResult> {
    writeln!(prompts, "tooldef: the server asks: {}", one_line(message))?;
    let mut ask = |question: &str| -> std::io::Result<Option<String>> {
        write!(prompts, "{question}")?;
        prompts.flush()?;
        let mut line = String::new();
        Ok((input.read_line(&mut line)? > 0).then_some(line))
    };
    let Some(choice) = ask("Answer it? [a]ccept, [d]ecline or [c]ancel (a): ")? else {
        return Ok(ElicitResult::new(ElicitationAction::Cancel));
    };
    match choice.trim().to_ascii_lowercase().as_str() {
        "" | "a" | "accept" => {}
        "d" | "decline" => return Ok(ElicitResult::new(ElicitationAction::Decline)),
        _ => return Ok(ElicitResult::new(ElicitationAction::Cancel)),
    }
    let mut content = Map::new();
    for field in fields {
        let question = question(field);
        let mut tries = 0;
        loop {
            let Some(line) = ask(&question)? else {
                return Ok(ElicitResult::new(ElicitationAction::Cancel));
            };
            match typed(field, &line) {
                Ok(Some(value)) => {
                    content.insert(field.name.clone(), value);
                    break;
                }
                Ok(None) => break,
                Err(why) if tries + 1 < TRIES => {
                    tries += 1;
                    let _ = ask(&format!("  {why}. (Enter to try again) "))?;
                }
                Err(_) => return Ok(ElicitResult::new(ElicitationAction::Cancel)),
            }
        }
    }
    Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content)))
}

/// The prompt of a field: its label and description, what it takes, its default.
fn question(field: &Field) -> String {
    let mut text = field.label.clone();
    if let Some(description) = &field.description {
        text.push_str(&format!(" ({})", one_line(description)));
    }
    let list = |options: &[(String, Option<String>)]| {
        options
            .iter()
            .enumerate()
            .map(|(i, (v, title))| match title {
                Some(t) if t != v => format!("{}) {t} [{v}]", i + 1),
                _ => format!("{}) {v}", i + 1),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let takes = match &field.kind {
        Kind::Text => String::new(),
        Kind::Number => " (a number)".to_owned(),
        Kind::Integer => " (an integer)".to_owned(),
        Kind::Boolean => " (y/n)".to_owned(),
        Kind::Choice(options) => format!("\n  {}\n  choice", list(options)),
        Kind::Choices(options) => format!("\n  {}\n  choices, comma-separated", list(options)),
    };
    text.push_str(&takes);
    match (&field.default, field.required) {
        (Some(default), _) => text.push_str(&format!(" [{default}]")),
        (None, false) => text.push_str(" [optional]"),
        (None, true) => {}
    }
    text.push_str(": ");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sep_1034() -> Vec<Field> {
        fields(&json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
                "email": {"type": "string", "format": "email"},
                "tags": {"type": "array", "items": {"anyOf": [
                    {"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}]}}
            },
            "required": ["email"]
        }))
    }

    #[test]
    fn missing_fields_take_the_schemas_defaults() {
        let fields = sep_1034();
        let answer = complete(&fields, json!({"email": "a@b.c"}).as_object().unwrap()).unwrap();
        assert_eq!(
            Value::Object(answer),
            json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active",
                   "verified": true, "email": "a@b.c"})
        );
        // What is given wins; 7.0 is an integer.
        let answer = complete(
            &fields,
            json!({"email": "x", "age": 7.0, "tags": ["b"]})
                .as_object()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(answer["age"], json!(7));
        assert_eq!(answer["tags"], json!(["b"]));
    }

    #[test]
    fn an_answer_the_schema_does_not_take_is_named() {
        let fields = sep_1034();
        let cases = [
            (json!({}), "needs `email`"),
            (json!({"email": "x", "nope": 1}), "`nope` is not a field"),
            (json!({"email": 3}), "`email` takes a string"),
            (json!({"email": "x", "age": 1.5}), "`age` takes an integer"),
            (
                json!({"email": "x", "status": "gone"}),
                "one of `active`, `inactive`",
            ),
            (json!({"email": "x", "tags": ["z"]}), "a list of `a`, `b`"),
            (json!({"email": "x", "verified": "yes"}), "true or false"),
        ];
        for (given, said) in cases {
            let why = complete(&fields, given.as_object().unwrap()).unwrap_err();
            assert!(why.contains(said), "{given}: {why}");
        }
    }

    #[test]
    fn the_flag_is_decline_cancel_or_an_object() {
        assert_eq!(Answer::from_flag(Some("decline")).unwrap(), Answer::Decline);
        assert_eq!(Answer::from_flag(Some(" cancel ")).unwrap(), Answer::Cancel);
        assert_eq!(
            Answer::from_flag(Some(r#"{"a": 1}"#)).unwrap(),
            Answer::Given(json!({"a": 1}).as_object().unwrap().clone())
        );
        assert!(
            Answer::from_flag(Some("[1]"))
                .unwrap_err()
                .contains("not an array")
        );
        assert!(
            Answer::from_flag(Some("{"))
                .unwrap_err()
                .starts_with("--elicit: ")
        );
    }

    #[test]
    fn the_terminal_takes_defaults_numbers_and_choices() {
        let fields = sep_1034();
        // accept; name: default; age: "x" refused then 41; score: default; status: 2nd;
        // verified: n; email: given; tags: "1, b".
        let typed_in = "\n\nx\n\n41\n\n2\nn\na@b.c\n1, b\n";
        let mut shown = Vec::new();
        let result = prompt("Who?", &fields, &mut typed_in.as_bytes(), &mut shown).unwrap();
        assert_eq!(result.action, ElicitationAction::Accept);
        let content = result.content.unwrap();
        assert_eq!(
            content,
            json!({"age": 41, "email": "a@b.c", "name": "John Doe", "score": 95.5,
                   "status": "inactive", "tags": ["a", "b"], "verified": false})
        );
        let shown = String::from_utf8(shown).unwrap();
        assert!(shown.contains("1) active, 2) inactive"), "{shown}");
        assert!(shown.contains("1) Alpha [a], 2) Beta [b]"), "{shown}");
        assert!(shown.contains("type a number"), "{shown}");
        // Declined, and the end of input cancels.
        let declined = prompt("Who?", &fields, &mut "d\n".as_bytes(), &mut Vec::new()).unwrap();
        assert_eq!(declined.action, ElicitationAction::Decline);
        let ended = prompt("Who?", &fields, &mut "a\n".as_bytes(), &mut Vec::new()).unwrap();
        assert_eq!(ended.action, ElicitationAction::Cancel);
    }
}
