//! Tools that arrive as JSON from any MCP server, converted for every target through the same
//! canonical form and transforms as Rust tools: one code path.
//!
//! ```
//! use tooldef::Target;
//! use tooldef::convert::{ConvertOptions, convert};
//!
//! let listed = serde_json::json!({"tools": [{
//!     "name": "fs.read_file",
//!     "description": "Read a file.",
//!     "inputSchema": {"type": "object", "properties": {
//!         "path": {"type": "string"},
//!         "limit": {"type": "integer", "default": 100}
//!     }, "required": ["path"]}
//! }]});
//! let chat = convert(&listed, Target::ChatCompletions, &ConvertOptions::default()).unwrap();
//! let tool = &chat.tools[0];
//! assert_eq!(tool["function"]["name"], "fs_read_file");
//! assert_eq!(tool["function"]["strict"], true);
//! assert_eq!(tool["function"]["parameters"]["properties"]["limit"]["description"], "Default: 100.");
//! // Calls come back under the target's name; the map gives the MCP tool to route them to.
//! assert_eq!(chat.names.original("fs_read_file"), Some("fs.read_file"));
//! ```

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::tool::ToolAnnotations;
use crate::{SchemaError, Target, ToolDefinition};

/// Whether to render strictly where a target has a strict mode (OpenAI).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Strictness {
    /// Strict where the schema allows it; otherwise non-strict, with a diagnostic saying why.
    #[default]
    Auto,
    /// Strict, or the tool is rejected with the reasons it cannot be.
    On,
    /// Never strict.
    Off,
}

/// How to convert.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConvertOptions {
    /// Strict mode for OpenAI targets.
    pub strict: Strictness,
    /// Carry on past tools that cannot be converted (they are listed in
    /// [`Conversion::rejected`]); otherwise the first one makes the whole batch an error.
    pub lenient: bool,
}

/// Converted tools for one target.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The target.
    pub target: Target,
    /// The tools in the target's wire form, in input order.
    pub tools: Vec<Value>,
    /// The tools that could not be converted, with why.
    pub rejected: Vec<Rejected>,
    /// Target names ↔ original MCP names, to route calls back.
    pub names: NameMap,
    /// What was rewritten or moved into descriptions, and why a tool is not strict.
    pub diagnostics: Vec<Diagnostic>,
}

/// A tool that could not be converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// Its position in the input.
    pub index: usize,
    /// Its name, when it has one.
    pub name: Option<String>,
    /// Why.
    pub reasons: Vec<String>,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(
                f,
                "tool `{name}` (#{}): {}",
                self.index,
                self.reasons.join("; ")
            ),
            None => write!(f, "tool #{}: {}", self.index, self.reasons.join("; ")),
        }
    }
}

/// Something a conversion changed or could not do, about one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The tool's original name.
    pub tool: String,
    /// What happened.
    pub message: String,
}

/// Why a batch could not be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The input is not a `tools/list` result, an array of tools or one tool.
    #[error("the input is not MCP tools: {0}")]
    NotTools(String),
    /// A tool could not be converted, and the conversion was not lenient.
    #[error("{0} (convert leniently to skip it)")]
    Rejected(Rejected),
}

/// The MCP tools in `input`: a `tools/list` result (`{"tools": [...]}`), an array of tools, or
/// one tool.
pub fn read_tools(input: &Value) -> Result<&[Value], ConvertError> {
    match input {
        Value::Object(map) if map.contains_key("tools") => match map.get("tools") {
            Some(Value::Array(tools)) => Ok(tools),
            _ => Err(ConvertError::NotTools("`tools` is not an array".to_owned())),
        },
        Value::Object(map) if map.contains_key("name") => Ok(std::slice::from_ref(input)),
        Value::Array(tools) => Ok(tools),
        other => Err(ConvertError::NotTools(format!(
            "expected {{\"tools\": [...]}}, an array of tools or one tool, got {}",
            match other {
                Value::Object(_) => "an object with neither `tools` nor `name`",
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                Value::Null => "null",
            }
        ))),
    }
}

/// Converts MCP tools for `target`. The input is only read.
pub fn convert(
    input: &Value,
    target: Target,
    options: &ConvertOptions,
) -> Result<Conversion, ConvertError> {
    let tools = read_tools(input)?;
    let mut conversion = Conversion {
        target,
        tools: Vec::with_capacity(tools.len()),
        rejected: Vec::new(),
        names: NameMap::default(),
        diagnostics: Vec::new(),
    };
    let mut seen = std::collections::HashSet::new();
    for (index, tool) in tools.iter().enumerate() {
        // Calls are routed by name: two tools of one name could not both be reached.
        let outcome = match tool_name(tool) {
            Some(name) if !seen.insert(name) => Err(vec![format!(
                "another tool before it is named `{name}` too; tool names must be distinct"
            )]),
            _ => convert_one(tool, target, options, &mut conversion.names),
        };
        match outcome {
            Ok((json, notes)) => {
                let name = tool_name(tool).unwrap_or_default().to_owned();
                conversion
                    .diagnostics
                    .extend(notes.into_iter().map(|message| Diagnostic {
                        tool: name.clone(),
                        message,
                    }));
                conversion.tools.push(json);
            }
            Err(reasons) => {
                let rejected = Rejected {
                    index,
                    name: tool_name(tool).map(str::to_owned),
                    reasons,
                };
                if !options.lenient {
                    return Err(ConvertError::Rejected(rejected));
                }
                conversion.rejected.push(rejected);
            }
        }
    }
    Ok(conversion)
}

fn tool_name(tool: &Value) -> Option<&str> {
    tool.get("name").and_then(Value::as_str)
}

/// One tool: checked, made canonical, rendered. `Err` carries every reason it cannot be.
fn convert_one(
    tool: &Value,
    target: Target,
    options: &ConvertOptions,
    names: &mut NameMap,
) -> Result<(Value, Vec<String>), Vec<String>> {
    let definition = definition_of(tool, options)?;
    let mut notes = Vec::new();
    if definition.description().is_none() {
        notes.push(
            "has no description: models choose tools by their descriptions, so add one".to_owned(),
        );
    }
    // Rendered once, not cached: the definition is thrown away after this tool.
    let rendering = match crate::target::render(&definition, target) {
        // Gemini has no `$ref`: a recursive type is cut where it recurs and said in words, so
        // that the tool still reaches the model (the provider never finds the problem first).
        Err(SchemaError::Recursive { reference, .. }) => {
            let cut = crate::schema::inline_cutting_recursion(definition.input_schema())
                .map_err(|err| vec![err.to_string()])?;
            notes.push(format!(
                "the type at `{reference}` is recursive (or too large to write out), which \
                 {target} cannot express: it is expanded as far as it goes, and beyond that \
                 described in words"
            ));
            crate::target::render(&definition.with_input_schema(cut), target)
        }
        other => other,
    }
    .map_err(|err| vec![err.to_string()])?;
    notes.extend(rendering.notes.iter().cloned());
    let mut json = rendering.into_json();
    if target == Target::Mcp {
        keep_mcp_only_fields(tool, &mut json);
    }
    if target.is_openai() && options.strict == Strictness::On {
        let strict = match target {
            Target::ChatCompletions => &json["function"]["strict"],
            _ => &json["strict"],
        };
        if strict != &Value::Bool(true) {
            return Err(notes);
        }
    }
    let wire_name = names.assign(definition.name(), target);
    if wire_name != definition.name() {
        notes.push(format!(
            "renamed `{}` to `{wire_name}`: {target} does not accept the original",
            definition.name()
        ));
        set_name(&mut json, target, &wire_name);
    }
    Ok((json, notes))
}

/// An MCP tool as a canonical definition, or every reason it cannot be one.
pub fn definition_of(
    tool: &Value,
    options: &ConvertOptions,
) -> Result<ToolDefinition, Vec<String>> {
    let Some(object) = tool.as_object() else {
        return Err(vec!["is not a JSON object".to_owned()]);
    };
    let mut reasons = Vec::new();
    let name = match object.get("name") {
        Some(Value::String(name)) if is_mcp_name(name) => Some(name.clone()),
        Some(Value::String(name)) => {
            reasons.push(format!(
                "the name `{}` is not a valid MCP tool name (1–128 characters of letters, digits, `_`, `-`, `.`, `/`)",
                crate::describe_value::shorten(name, 80)
            ));
            None
        }
        Some(_) => {
            reasons.push("its `name` is not a string".to_owned());
            None
        }
        None => {
            reasons.push("it has no `name`".to_owned());
            None
        }
    };
    let input_schema = match object.get("inputSchema") {
        Some(schema @ Value::Object(map)) => match map.get("type") {
            Some(Value::String(t)) if t == "object" => Some(schema.clone()),
            None if map.contains_key("properties") => Some(schema.clone()),
            _ => {
                reasons.push(
                    "its `inputSchema` is not an object schema (`\"type\": \"object\"`)".to_owned(),
                );
                None
            }
        },
        Some(_) => {
            reasons.push("its `inputSchema` is not a JSON object".to_owned());
            None
        }
        None => {
            reasons.push("it has no `inputSchema`".to_owned());
            None
        }
    };
    let (Some(name), Some(input_schema)) = (name, input_schema) else {
        return Err(reasons);
    };
    let mut builder = ToolDefinition::builder(name)
        .input_schema(schema_from(input_schema))
        .strict(options.strict != Strictness::Off)
        .annotations(annotations_of(object.get("annotations")));
    if let Some(description) = object.get("description").and_then(Value::as_str) {
        builder = builder.description(description.to_owned());
    }
    if let Some(title) = object.get("title").and_then(Value::as_str) {
        builder = builder.title(title.to_owned());
    }
    if let Some(output) = object.get("outputSchema").filter(|o| o.is_object()) {
        builder = builder.output_schema(Some(schema_from(output.clone())));
    }
    Ok(builder.build())
}

fn schema_from(value: Value) -> schemars::Schema {
    match value {
        Value::Object(map) => schemars::Schema::from(map),
        Value::Bool(b) => schemars::Schema::from(b),
        _ => schemars::Schema::default(),
    }
}

fn annotations_of(value: Option<&Value>) -> ToolAnnotations {
    let hint = |key: &str| value.and_then(|v| v.get(key)).and_then(Value::as_bool);
    ToolAnnotations {
        read_only_hint: hint("readOnlyHint"),
        destructive_hint: hint("destructiveHint"),
        idempotent_hint: hint("idempotentHint"),
        open_world_hint: hint("openWorldHint"),
    }
}

/// MCP names: 1–128 characters of `[A-Za-z0-9_.-/]` (the specification's SHOULD, widened by `/`,
/// which the conformance suite allows).
fn is_mcp_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
}

/// MCP to MCP keeps what only MCP has and the canonical form does not carry: `icons`, `_meta`
/// and the annotations' `title`.
fn keep_mcp_only_fields(tool: &Value, json: &mut Value) {
    let Some(out) = json.as_object_mut() else {
        return;
    };
    for key in ["icons", "_meta"] {
        if let Some(value) = tool.get(key) {
            out.insert(key.to_owned(), value.clone());
        }
    }
    if let Some(title) = tool.pointer("/annotations/title") {
        if let Some(annotations) = out
            .entry("annotations")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
        {
            annotations.insert("title".to_owned(), title.clone());
        }
    }
}

fn set_name(json: &mut Value, target: Target, name: &str) {
    let slot = match target {
        Target::ChatCompletions => json.pointer_mut("/function/name"),
        _ => json.get_mut("name"),
    };
    if let Some(slot) = slot {
        *slot = Value::String(name.to_owned());
    }
}

/// Target names and the MCP names they stand for, in both directions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameMap {
    to_original: HashMap<String, String>,
    to_target: HashMap<String, String>,
}

impl NameMap {
    /// The MCP name behind a name the model called.
    pub fn original(&self, target_name: &str) -> Option<&str> {
        self.to_original.get(target_name).map(String::as_str)
    }

    /// The name a tool was given for the target.
    pub fn target_name(&self, original: &str) -> Option<&str> {
        self.to_target.get(original).map(String::as_str)
    }

    /// Every pair, as a JSON object from target name to original name.
    pub fn to_json(&self) -> Value {
        let mut pairs: Vec<(&String, &String)> = self.to_original.iter().collect();
        pairs.sort();
        Value::Object(
            pairs
                .into_iter()
                .map(|(t, o)| (t.clone(), Value::String(o.clone())))
                .collect::<Map<String, Value>>(),
        )
    }

    /// A name `target` accepts for `original`, distinct from every name given so far.
    fn assign(&mut self, original: &str, target: Target) -> String {
        if let Some(given) = self.to_target.get(original) {
            return given.clone();
        }
        let base = sanitize(original, target);
        let mut candidate = base.clone();
        let mut n = 2;
        while self.to_original.contains_key(&candidate) {
            let suffix = format!("_{n}");
            candidate = format!("{}{suffix}", truncate(&base, MAX_NAME - suffix.len()));
            n += 1;
        }
        self.to_original
            .insert(candidate.clone(), original.to_owned());
        self.to_target
            .insert(original.to_owned(), candidate.clone());
        candidate
    }
}

/// OpenAI and Anthropic accept 64 characters; Gemini more, but 64 is safe everywhere.
const MAX_NAME: usize = 64;

/// `fs.read_file` → `fs_read_file`; a name that starts with a digit gets `_` in front (Gemini);
/// an over-long name is cut and given a short hash of the original, so that two long names that
/// share a beginning stay apart.
fn sanitize(original: &str, target: Target) -> String {
    if target == Target::Mcp {
        return original.to_owned();
    }
    let mut name: String = original
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    if name.len() > MAX_NAME {
        let hash = format!("{:08x}", fnv1a(original.as_bytes()) as u32);
        name = format!("{}_{hash}", truncate(&name, MAX_NAME - 9));
    }
    name
}

fn truncate(s: &str, max: usize) -> &str {
    // ASCII only by now, so any byte index is a character boundary.
    &s[..s.len().min(max)]
}

/// FNV-1a: a small, stable hash (the same name gets the same suffix in every run and version).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_sanitised_distinct_and_reversible() {
        let mut names = NameMap::default();
        assert_eq!(
            names.assign("fs.read_file", Target::Responses),
            "fs_read_file"
        );
        assert_eq!(
            names.assign("fs/read_file", Target::Responses),
            "fs_read_file_2"
        );
        assert_eq!(names.assign("2fa", Target::Gemini), "_2fa");
        let long = "a".repeat(100);
        let cut = names.assign(&long, Target::Anthropic);
        assert_eq!(cut.len(), 64);
        assert_eq!(names.original(&cut), Some(long.as_str()));
        assert_eq!(names.original("fs_read_file_2"), Some("fs/read_file"));
        assert_eq!(
            names.assign("fs.read_file", Target::Mcp),
            "fs_read_file",
            "already assigned"
        );
    }

    #[test]
    fn input_shapes() {
        let one = json!({"name": "a", "inputSchema": {"type": "object"}});
        assert_eq!(read_tools(&one).unwrap().len(), 1);
        assert_eq!(
            read_tools(&json!([one.clone(), one.clone()]))
                .unwrap()
                .len(),
            2
        );
        assert_eq!(read_tools(&json!({"tools": [one]})).unwrap().len(), 1);
        assert!(read_tools(&json!("x")).is_err());
        assert!(read_tools(&json!({"tools": {}})).is_err());
    }

    #[test]
    fn bad_tools_are_rejected_with_every_reason() {
        let input = json!([
            {"inputSchema": {"type": "string"}},
            {"name": "ok", "inputSchema": {"type": "object"}},
            {"name": "bad name!", "inputSchema": {"type": "object"}}
        ]);
        let strict_batch = convert(&input, Target::Mcp, &ConvertOptions::default());
        assert!(matches!(strict_batch, Err(ConvertError::Rejected(_))));
        let lenient = ConvertOptions {
            lenient: true,
            ..ConvertOptions::default()
        };
        let conversion = convert(&input, Target::Mcp, &lenient).unwrap();
        assert_eq!(conversion.tools.len(), 1);
        assert_eq!(conversion.rejected.len(), 2);
        assert_eq!(
            conversion.rejected[0].reasons.len(),
            2,
            "{:?}",
            conversion.rejected[0]
        );
        assert!(
            conversion
                .diagnostics
                .iter()
                .any(|d| d.message.contains("no description"))
        );
    }
}
