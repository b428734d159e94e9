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
//! let tool = chat.tools[0].to_json();
//! assert_eq!(tool["function"]["name"], "fs_read_file");
//! assert_eq!(tool["function"]["strict"], true);
//! assert_eq!(tool["function"]["parameters"]["properties"]["limit"]["description"], "Default: 100.");
//! // Calls come back under the target's name, with `null` for what the model left out: the
//! // converted tool knows the original name and the original shape.
//! let converted = chat.get("fs_read_file").unwrap();
//! assert_eq!(converted.original_name, "fs.read_file");
//! let mut arguments = serde_json::json!({"path": "a.txt", "limit": null});
//! converted.restore_arguments(&mut arguments);
//! assert_eq!(arguments, serde_json::json!({"path": "a.txt"}));
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::names::NameMap;
use crate::report::{Change, ChangeKind, Place};
use crate::schema::get_key;
use crate::targets::{Rendering, StrictBudget, StrictLimit, has_strict_mode, past_strict_limit};
use crate::tool::ToolAnnotations;
use crate::{Profile, RecursionPolicy, Target, ToolDefinition};

/// Whether to render strictly where a target has a strict mode (OpenAI, Anthropic).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Strictness {
    /// Strict where the schema allows it; otherwise non-strict, with the reasons in the report.
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
    /// Strict mode for OpenAI and Anthropic.
    pub strict: Strictness,
    /// Carry on past tools that cannot be converted (they are listed in
    /// [`Conversion::rejected`]); otherwise the first one makes the whole batch an error.
    pub lenient: bool,
    /// What the model takes beyond its API's rules ([`Target::for_model`] gives it from a
    /// model's id); [`Profile::Documented`] by default.
    pub profile: Profile,
    /// Every tool loaded only when the model searches for it (`defer_loading: true` for
    /// Responses and Anthropic; see [`ToolDefinition::defer_loading`]). An Anthropic batch whose
    /// tools would all be deferred keeps its first tool loaded, as Anthropic requires.
    pub defer_loading: bool,
}

/// Converted tools for one target.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The target.
    pub target: Target,
    /// The tools converted, in input order.
    pub tools: Vec<Converted>,
    /// The tools that could not be converted, with why.
    pub rejected: Vec<Rejected>,
    /// Target names ↔ original MCP names, to route calls back.
    pub names: NameMap,
    /// What the user should know about the batch: tools without descriptions, names several
    /// tools share, more tools than one request may carry.
    pub warnings: Vec<Warning>,
}

impl Conversion {
    /// The tools in the target's wire form, in input order.
    pub fn to_json(&self) -> Vec<Value> {
        self.tools.iter().map(Converted::to_json).collect()
    }

    /// The tools in the target's wire form, moving the schemas.
    pub fn into_json(self) -> Vec<Value> {
        self.tools
            .into_iter()
            .map(|t| t.rendering.into_json())
            .collect()
    }

    /// The converted tool a model calls by `target_name`.
    pub fn get(&self, target_name: &str) -> Option<&Converted> {
        self.tools.iter().find(|t| t.name() == target_name)
    }
}

/// One tool, converted: its rendering for the target (the wire tool and the report of what
/// changed), and the original it stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// Its position in the input.
    pub index: usize,
    /// Its name on the MCP server, where calls go.
    pub original_name: String,
    /// The tool for the target, and what converting it changed.
    pub rendering: Rendering,
}

impl Converted {
    /// The name the target sees.
    pub fn name(&self) -> &str {
        self.rendering.tool.name()
    }

    /// The wire value as JSON.
    pub fn to_json(&self) -> Value {
        self.rendering.to_json()
    }

    /// Whether it is sent with `strict: true` (OpenAI targets, Anthropic).
    pub fn strict(&self) -> bool {
        self.rendering.tool.strict()
    }

    /// Arguments a model sent for this tool, put back into the shape the MCP server's schema
    /// expects (see [`Rendering::restore_arguments`]).
    pub fn restore_arguments(&self, arguments: &mut Value) {
        self.rendering.restore_arguments(arguments);
    }
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

/// Something about a batch the user should know, that is not a change to one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A tool has no description; models choose tools by their descriptions.
    NoDescription {
        /// The tool's original name.
        tool: String,
    },
    /// Several tools share a name; only the first is converted.
    DuplicateName {
        /// The name.
        name: String,
        /// The positions in the input of the tools that have it.
        indexes: Vec<usize>,
    },
    /// Strict tools past one of the target's limits on the strict tools of one request
    /// (Anthropic's [`StrictLimit`]s) are sent non-strict: the first tools keep strict.
    PastStrictLimit {
        /// The target.
        target: Target,
        /// The limit.
        limit: StrictLimit,
        /// The tools sent non-strict because of it (their original names), in input order.
        tools: Vec<String>,
    },
    /// More tools than one request to the target may carry.
    TooManyTools {
        /// The target.
        target: Target,
        /// How many tools were converted.
        count: usize,
        /// How many one request may carry.
        limit: usize,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::NoDescription { tool } => write!(
                f,
                "{tool}: has no description: models choose tools by their descriptions, so add one"
            ),
            Warning::DuplicateName { name, indexes } => write!(
                f,
                "{name}: {} tools have this name (#{}); a target refuses two tools of one name, \
                 so only the first is converted",
                indexes.len(),
                indexes
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", #")
            ),
            Warning::PastStrictLimit {
                target,
                limit,
                tools,
            } => write!(
                f,
                "{}: sent non-strict, since {target} takes {limit} in one request and the tools \
                 before them use that up: the first tools keep strict, so put the ones that \
                 most need it first, or send fewer",
                tools.join(", ")
            ),
            Warning::TooManyTools {
                target,
                count,
                limit,
            } => write!(
                f,
                "{count} tools are more than {target} takes in one request ({limit}): send a \
                 subset (the tools the conversation needs) with each request"
            ),
        }
    }
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
///
/// ```
/// use serde_json::json;
/// use tooldef::convert::read_tools;
///
/// let one = json!({"name": "ping", "inputSchema": {"type": "object"}});
/// assert_eq!(read_tools(&one).unwrap().len(), 1);
/// assert_eq!(read_tools(&json!({"tools": [one.clone(), one]})).unwrap().len(), 2);
/// assert!(read_tools(&json!("ping")).is_err());
/// ```
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
///
/// A tool that cannot be converted makes the whole batch an error, unless the options are
/// [lenient](ConvertOptions::lenient): it is then left out and listed in
/// [`Conversion::rejected`] with why.
///
/// ```
/// use serde_json::json;
/// use tooldef::Target;
/// use tooldef::convert::{ConvertOptions, convert};
///
/// let listed = json!([
///     {"name": "ping", "inputSchema": {"type": "object"}},
///     {"name": "broken", "inputSchema": {"type": "object", "properties": {"n": {"type": "nonsense"}}}}
/// ]);
/// assert!(convert(&listed, Target::Anthropic, &ConvertOptions::default()).is_err());
/// let lenient = ConvertOptions { lenient: true, ..ConvertOptions::default() };
/// let anthropic = convert(&listed, Target::Anthropic, &lenient).unwrap();
/// assert_eq!(anthropic.tools.len(), 1);
/// assert_eq!(anthropic.rejected.len(), 1);
/// ```
pub fn convert(
    input: &Value,
    target: Target,
    options: &ConvertOptions,
) -> Result<Conversion, ConvertError> {
    let tools = read_tools(input)?;
    let (warnings, repeated) = duplicate_names(tools);
    let mut conversion = Conversion {
        target,
        tools: Vec::with_capacity(tools.len()),
        rejected: Vec::new(),
        names: NameMap::default(),
        warnings,
    };
    // The strict tools of one request share Anthropic's limits; the tools past one, per limit.
    let mut budget = StrictBudget::default();
    let mut past_limits: Vec<(StrictLimit, String)> = Vec::new();
    for (index, tool) in tools.iter().enumerate() {
        // Calls are routed by name: two tools of one name could not both be reached.
        let outcome = match tool_name(tool) {
            Some(name) if repeated[index] => Err(vec![format!(
                "another tool before it is named `{name}` too; tool names must be distinct"
            )]),
            _ => convert_one(tool, target, options, &mut conversion.names, &mut budget),
        };
        match outcome {
            Ok((definition, rendering, past)) => {
                if let Some(limit) = past {
                    past_limits.push((limit, definition.name().to_owned()));
                }
                if definition.description().is_none() {
                    conversion.warnings.push(Warning::NoDescription {
                        tool: definition.name().to_owned(),
                    });
                }
                conversion.tools.push(Converted {
                    index,
                    original_name: definition.name().to_owned(),
                    rendering,
                });
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
    if target == Target::Anthropic
        && conversion
            .tools
            .iter()
            .all(|t| t.rendering.tool.defer_loading())
        && let Some(first) = conversion.tools.first_mut()
    {
        first.rendering.tool.set_defer_loading(false);
        first.rendering.report.push(Change {
            place: Place::Tool,
            pointer: String::new(),
            kind: ChangeKind::Removed {
                keyword: "defer_loading".to_owned(),
                why: "every tool of the batch is deferred, and Anthropic refuses a request whose \
                      tools all are: the first is loaded"
                    .to_owned(),
            },
        });
    }
    for limit in StrictLimit::ALL {
        let tools: Vec<String> = past_limits
            .iter()
            .filter(|(past, _)| *past == limit)
            .map(|(_, name)| name.clone())
            .collect();
        if !tools.is_empty() {
            conversion.warnings.push(Warning::PastStrictLimit {
                target,
                limit,
                tools,
            });
        }
    }
    if let Some(limit) = target.max_tools()
        && conversion.tools.len() > limit
    {
        conversion.warnings.push(Warning::TooManyTools {
            target,
            count: conversion.tools.len(),
            limit,
        });
    }
    Ok(conversion)
}

fn tool_name(tool: &Value) -> Option<&str> {
    get_key(tool.as_object()?, "name").and_then(Value::as_str)
}

/// One warning per name that several tools share, and for each tool whether a tool before it
/// has its name. One hashed pass over the names tells both; a list of positions is kept only for
/// a name that comes again (rarely).
fn duplicate_names(tools: &[Value]) -> (Vec<Warning>, Vec<bool>) {
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(tools.len());
    let mut repeated = vec![false; tools.len()];
    let mut shared: Vec<(&str, Vec<usize>)> = Vec::new();
    for (index, tool) in tools.iter().enumerate() {
        let Some(name) = tool_name(tool) else {
            continue;
        };
        let earliest = *first.entry(name).or_insert(index);
        if earliest == index {
            continue;
        }
        repeated[index] = true;
        match shared.iter_mut().find(|(n, _)| *n == name) {
            Some((_, indexes)) => indexes.push(index),
            None => shared.push((name, vec![earliest, index])),
        }
    }
    // In the order the names first appear.
    shared.sort_by_key(|(_, indexes)| indexes[0]);
    let warnings = shared
        .into_iter()
        .map(|(name, indexes)| Warning::DuplicateName {
            name: name.to_owned(),
            indexes,
        })
        .collect();
    (warnings, repeated)
}

/// One tool: checked, made canonical, rendered under a name the target accepts, strict while
/// the strict tools before it left room in `budget` (else with the limit it went past). `Err`
/// carries every reason it cannot be.
fn convert_one(
    tool: &Value,
    target: Target,
    options: &ConvertOptions,
    names: &mut NameMap,
    budget: &mut StrictBudget,
) -> Result<(ToolDefinition, Rendering, Option<StrictLimit>), Vec<String>> {
    let mut definition = definition_of(tool, options)?;
    let wire_name = names.candidate(definition.name(), target);
    // Rendered once and not cached: the schema is moved into the rendering, not copied.
    let input = definition.take_input_schema();
    let mut rendering = crate::targets::render_input(
        &definition,
        Cow::Owned(input),
        target,
        &wire_name,
        options.profile,
    )
    .map_err(|err| vec![err.to_string()])?;
    let past = past_strict_limit(budget, &rendering.tool);
    if let Some(limit) = past {
        rendering.drop_strict(limit);
    }
    if has_strict_mode(target) && options.strict == Strictness::On && !rendering.tool.strict() {
        return Err(rendering
            .report
            .not_strict()
            .map(|change| match &change.kind {
                // About the tool as a whole (a request limit).
                ChangeKind::NotStrict { why } if change.place == Place::Tool => why.clone(),
                ChangeKind::NotStrict { why } if change.pointer.is_empty() => {
                    format!("the root: {why}")
                }
                ChangeKind::NotStrict { why } => format!("`{}`: {why}", change.pointer),
                other => other.to_string(),
            })
            .collect());
    }
    names.insert(definition.name(), &wire_name);
    Ok((definition, rendering, past))
}

/// An MCP tool as a canonical definition, or every reason it cannot be one. Everything the MCP
/// tool carries goes into the definition (`icons`, `_meta` and `annotations.title` included),
/// so every rendering follows from it; a recursive type is described where a target has no
/// `$ref` ([`RecursionPolicy::Describe`]).
pub fn definition_of(
    tool: &Value,
    options: &ConvertOptions,
) -> Result<ToolDefinition, Vec<String>> {
    let Some(object) = tool.as_object() else {
        return Err(vec!["is not a JSON object".to_owned()]);
    };
    let mut reasons = Vec::new();
    let name = match get_key(object, "name") {
        Some(Value::String(name)) if Target::Mcp.accepts_name(name) => Some(name.clone()),
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
    let input_schema = match get_key(object, "inputSchema") {
        Some(schema @ Value::Object(map)) => match get_key(map, "type") {
            Some(Value::String(t)) if t == "object" => Some(schema.clone()),
            // No `type`: an object root said by its properties, or by combinators of objects,
            // or a `$ref` to one; rendering decides, and says so when it cannot.
            None if ["properties", "anyOf", "oneOf", "allOf", "$ref"]
                .iter()
                .any(|k| get_key(map, k).is_some()) =>
            {
                Some(schema.clone())
            }
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
    // Nothing is rendered from a schema that is not valid JSON Schema: its MCP rendering would
    // not be either, and the others would say what it does not mean.
    if let Some(schema) = &input_schema {
        reasons.extend(invalid_schema("inputSchema", schema));
    }
    let output_schema = get_key(object, "outputSchema").filter(|o| o.is_object());
    if let Some(schema) = output_schema {
        reasons.extend(invalid_schema("outputSchema", schema));
    }
    let (Some(name), Some(input_schema), true) = (name, input_schema, reasons.is_empty()) else {
        return Err(reasons);
    };
    let mut input_schema = input_schema;
    let (examples, left_out) = examples_of(object, &mut input_schema);
    let mut builder = ToolDefinition::builder(name)
        .canonical_input_schema(schema_from(input_schema))
        .strict(options.strict != Strictness::Off)
        .defer_loading(options.defer_loading)
        .recursion(RecursionPolicy::Describe)
        .annotations(annotations_of(get_key(object, "annotations")));
    if let Some(description) = get_key(object, "description").and_then(Value::as_str) {
        builder = builder.description(description.to_owned());
    }
    if let Some(title) = get_key(object, "title").and_then(Value::as_str) {
        builder = builder.title(title.to_owned());
    }
    if let Some(output) = output_schema {
        builder = builder.output_schema(Some(schema_from(output.clone())));
    }
    if let Some(icons) = get_key(object, "icons") {
        builder = builder.icons(icons.clone());
    }
    if let Some(Value::Object(meta)) = get_key(object, "_meta") {
        builder = builder.meta(meta.clone());
    }
    for (key, value) in object {
        if !MODELLED.contains(&key.as_str()) {
            builder = builder.other_mcp_field(key.clone(), value.clone());
        }
    }
    for example in examples {
        builder = builder.example(example);
    }
    for change in left_out {
        builder = builder.canonical_change(change);
    }
    Ok(builder.build())
}

/// A foreign tool's example arguments: the objects of its input schema's root `examples`
/// (JSON Schema's place for them, where tooldef's MCP rendering puts them; taken out of the
/// schema, since each target carries them its own way), of `_meta.examples` and of a
/// top-level `examples`, each once. One the schema refuses is left out, with why: a model
/// would learn from it a call the tool refuses.
fn examples_of(
    tool: &Map<String, Value>,
    input_schema: &mut Value,
) -> (Vec<Map<String, Value>>, Vec<Change>) {
    let mut found: Vec<Map<String, Value>> = Vec::new();
    let mut take = |list: Option<&Value>| {
        for example in list.and_then(Value::as_array).into_iter().flatten() {
            if let Value::Object(example) = example
                && !found.contains(example)
            {
                found.push(example.clone());
            }
        }
    };
    let in_schema = input_schema
        .as_object()
        .and_then(|s| get_key(s, "examples"));
    let all_objects = in_schema
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().all(Value::is_object));
    if all_objects {
        take(in_schema);
        if let Some(schema) = input_schema.as_object_mut() {
            schema.shift_remove("examples");
        }
    }
    take(
        get_key(tool, "_meta")
            .and_then(Value::as_object)
            .and_then(|m| get_key(m, "examples")),
    );
    take(get_key(tool, "examples"));
    if found.is_empty() {
        return (found, Vec::new());
    }
    let draft = crate::schema::declared_draft(input_schema);
    let Ok(validator) = crate::arguments::validator_in(input_schema, draft) else {
        return (found, Vec::new());
    };
    let mut kept = Vec::with_capacity(found.len());
    let mut left_out = Vec::new();
    for (at, example) in found.into_iter().enumerate() {
        let value = Value::Object(example);
        let problems: Vec<String> = validator
            .iter_errors(&value)
            .flat_map(|e| crate::arguments::validation_problems(&e))
            .map(|p| p.to_string())
            .collect();
        if problems.is_empty() {
            let Value::Object(example) = value else {
                unreachable!()
            };
            kept.push(example);
        } else {
            left_out.push(Change {
                place: Place::Tool,
                pointer: String::new(),
                kind: ChangeKind::Removed {
                    keyword: "examples".to_owned(),
                    why: format!(
                        "example {} breaks the tool's own schema ({}), and a model would learn \
                         that call from it",
                        at + 1,
                        problems.join("; ")
                    ),
                },
            });
        }
    }
    (kept, left_out)
}

/// Why `schema`, the tool's `field`, is not valid JSON Schema in the dialect it declares, one
/// reason per fault, each with its JSON Pointer (see `schema::dialect_problems`).
fn invalid_schema(field: &str, schema: &Value) -> Vec<String> {
    crate::schema::dialect_problems(schema)
        .into_iter()
        .map(|(at, what)| match at.as_str() {
            "" => format!("its `{field}` is not valid JSON Schema: {what}"),
            at => format!("its `{field}` is not valid JSON Schema at `{at}`: {what}"),
        })
        .collect()
}

/// The fields of an MCP `Tool` that the definition models; any other is passed on as it is.
const MODELLED: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "_meta",
];

fn schema_from(value: Value) -> schemars::Schema {
    match value {
        Value::Object(map) => schemars::Schema::from(map),
        Value::Bool(b) => schemars::Schema::from(b),
        _ => schemars::Schema::default(),
    }
}

fn annotations_of(value: Option<&Value>) -> ToolAnnotations {
    let value = value.and_then(Value::as_object);
    let hint = |key: &str| value.and_then(|v| get_key(v, key)).and_then(Value::as_bool);
    ToolAnnotations {
        title: value
            .and_then(|v| get_key(v, "title"))
            .and_then(Value::as_str)
            .map(|t| t.to_owned().into()),
        read_only_hint: hint("readOnlyHint"),
        destructive_hint: hint("destructiveHint"),
        idempotent_hint: hint("idempotentHint"),
        open_world_hint: hint("openWorldHint"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        assert!(conversion.warnings.contains(&Warning::NoDescription {
            tool: "ok".to_owned()
        }));
    }
}
