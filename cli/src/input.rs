//! Reading the input: a JSON file or stdin, with errors that say where.

use std::io::{IsTerminal, Read};
use std::path::Path;

use serde_json::Value;

use crate::failure::Failure;

/// The parsed input and a label for messages (the path, or `<stdin>`).
#[derive(Debug)]
pub struct Input {
    /// Where the input came from, for messages.
    pub label: String,
    /// The JSON read.
    pub value: Value,
}

/// Reads and parses `file`, or stdin when it is `None` or `-`.
pub fn read(file: Option<&Path>) -> Result<Input, Failure> {
    let (label, bytes) = match file {
        Some(path) if path != Path::new("-") => {
            let label = path.display().to_string();
            let bytes = std::fs::read(path).map_err(|err| {
                Failure::input(format!("cannot read {label}: {}", io_reason(&err)))
            })?;
            (label, bytes)
        }
        _ => {
            let label = "<stdin>".to_owned();
            let mut stdin = std::io::stdin().lock();
            if stdin.is_terminal() {
                return Err(Failure::input(
                    "no input: give a FILE, or pipe MCP tools into stdin",
                ));
            }
            let mut bytes = Vec::new();
            stdin.read_to_end(&mut bytes).map_err(|err| {
                Failure::input(format!("cannot read {label}: {}", io_reason(&err)))
            })?;
            (label, bytes)
        }
    };
    let value = parse(&bytes).map_err(|reason| Failure::input(format!("{label}: {reason}")))?;
    Ok(Input { label, value })
}

/// Parses JSON, with the line and column of the first error.
pub fn parse(bytes: &[u8]) -> Result<Value, String> {
    // A UTF-8 byte order mark is not JSON, but editors write one; skip it.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("empty input: expected MCP tools as JSON".to_owned());
    }
    serde_json::from_slice(bytes).map_err(|err| {
        let what = err.to_string();
        // serde_json's message already ends with "at line L column C"; keep one of each.
        let what = what
            .strip_suffix(&format!(" at line {} column {}", err.line(), err.column()))
            .unwrap_or(&what);
        format!(
            "malformed JSON at line {}, column {}: {what}",
            err.line(),
            err.column()
        )
    })
}

/// What kind of JSON value `value` is, for messages: "an array", "a string", "null".
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
    }
}

/// An I/O error's reason, without Rust's `(os error N)` noise.
pub fn io_reason(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        std::io::ErrorKind::IsADirectory => "it is a directory".to_owned(),
        _ => {
            let text = err.to_string();
            match text.find(" (os error") {
                Some(at) => text[..at].to_owned(),
                None => text,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_where() {
        let err = parse(b"{\n  \"tools\": [,]\n}").unwrap_err();
        assert_eq!(err, "malformed JSON at line 2, column 13: expected value");
        assert!(parse(b"  \n").unwrap_err().starts_with("empty input"));
        assert!(parse(b"[1, 2").unwrap_err().contains("EOF while parsing"));
        assert_eq!(parse(b"\xEF\xBB\xBF[]").unwrap(), Value::Array(Vec::new()));
    }
}
