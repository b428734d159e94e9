//! Each target's wire type, and rendering a definition into it with its report.

mod anthropic;
mod chat;
mod gemini;
mod mcp;
mod responses;

pub(crate) use anthropic::StrictBudget;
pub use anthropic::{AnthropicTool, CacheControl, CacheTtl, StrictLimit};
pub use chat::{ChatFunction, ChatTool};
pub use gemini::GeminiFunctionDeclaration;
pub use mcp::{McpOutputRules, McpTool, McpToolAnnotations, WRAPPED_RESULT};
pub use responses::ResponsesTool;

use std::borrow::Cow;

use schemars::Schema;
use serde::Serialize;

use crate::report::{Change, ChangeKind, Place, Report};
use crate::schema::{self, Policy};
use crate::tool::ToolDefinition;
use crate::{Profile, SchemaError, Target};

/// A JSON object, as the schemas inside wire types are.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// A tool rendered for one target: the wire value and what rendering changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendering {
    /// The tool in the target's wire shape.
    pub tool: TargetTool,
    /// Every change rendering made, with where: what was rewritten, moved into descriptions,
    /// made required, renamed, and why the tool is not strict.
    pub report: Report,
}

impl Rendering {
    /// The wire value as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        // Wire types are plain maps, strings and bools: serialising them cannot fail.
        serde_json::to_value(&self.tool).unwrap_or(serde_json::Value::Null)
    }

    /// The wire value as JSON, moving the schemas rather than copying them (for a rendering made
    /// once and not cached, as in [`convert`](crate::convert)).
    pub fn into_json(self) -> serde_json::Value {
        self.tool.into_json()
    }

    /// Puts arguments a model sent for this rendering back into the shape of the original
    /// schema: a `null` for a property that strict mode made required and nullable (it was
    /// optional and refused `null`) is removed, at any depth. Everything else is left as sent.
    pub fn restore_arguments(&self, arguments: &mut serde_json::Value) {
        if let Some(schema) = self.tool.input_schema() {
            crate::restore::restore(arguments, schema, &self.report);
        }
    }
}

impl TargetTool {
    /// The tool's name, as the target sees it.
    pub fn name(&self) -> &str {
        match self {
            TargetTool::Mcp(tool) => &tool.name,
            TargetTool::ChatCompletions(tool) => &tool.function.name,
            TargetTool::Responses(tool) => &tool.name,
            TargetTool::Anthropic(tool) => &tool.name,
            TargetTool::Gemini(tool) | TargetTool::GeminiJsonSchema(tool) => &tool.name,
        }
    }

    /// The schema of the arguments as the target sees it (`None` for a Gemini declaration that
    /// takes none).
    pub fn input_schema(&self) -> Option<&JsonObject> {
        match self {
            TargetTool::Mcp(tool) => Some(&tool.input_schema),
            TargetTool::ChatCompletions(tool) => Some(&tool.function.parameters),
            TargetTool::Responses(tool) => Some(&tool.parameters),
            TargetTool::Anthropic(tool) => Some(&tool.input_schema),
            TargetTool::Gemini(tool) | TargetTool::GeminiJsonSchema(tool) => tool.schema(),
        }
    }

    /// The schema of the result as the target sees it: MCP `outputSchema`, Responses
    /// `output_schema`, Gemini `response` or `responseJsonSchema`; `None` for a tool without
    /// one and for the targets without a field for it (Chat Completions, Anthropic).
    pub fn output_schema(&self) -> Option<&JsonObject> {
        match self {
            TargetTool::Mcp(tool) => tool.output_schema.as_ref(),
            TargetTool::Responses(tool) => tool.output_schema.as_ref(),
            TargetTool::Gemini(tool) => tool.response.as_ref(),
            TargetTool::GeminiJsonSchema(tool) => tool.response_json_schema.as_ref(),
            TargetTool::ChatCompletions(_) | TargetTool::Anthropic(_) => None,
        }
    }

    /// Whether the tool is sent with `strict: true` (OpenAI, Anthropic); `false` for the other
    /// targets.
    pub fn strict(&self) -> bool {
        match self {
            TargetTool::ChatCompletions(tool) => tool.function.strict,
            TargetTool::Responses(tool) => tool.strict,
            TargetTool::Anthropic(tool) => tool.strict,
            TargetTool::Mcp(_) | TargetTool::Gemini(_) | TargetTool::GeminiJsonSchema(_) => false,
        }
    }

    /// Sends the tool strict or not, for a target with a strict mode (OpenAI, Anthropic).
    pub(crate) fn set_strict(&mut self, strict: bool) {
        match self {
            TargetTool::ChatCompletions(tool) => tool.function.strict = strict,
            TargetTool::Responses(tool) => tool.strict = strict,
            TargetTool::Anthropic(tool) => tool.strict = strict,
            TargetTool::Mcp(_) | TargetTool::Gemini(_) | TargetTool::GeminiJsonSchema(_) => {}
        }
    }

    /// Whether the tool is sent with `defer_loading: true` (Responses, Anthropic).
    pub fn defer_loading(&self) -> bool {
        match self {
            TargetTool::Responses(tool) => tool.defer_loading,
            TargetTool::Anthropic(tool) => tool.defer_loading,
            _ => false,
        }
    }

    /// Sends the tool loaded only when the model searches for it, for the targets that take
    /// `defer_loading` (Responses, Anthropic); the others have no such field.
    pub(crate) fn set_defer_loading(&mut self, defer: bool) {
        match self {
            TargetTool::Responses(tool) => tool.defer_loading = defer,
            TargetTool::Anthropic(tool) => tool.defer_loading = defer,
            _ => {}
        }
    }

    /// The wire value as JSON, moving the schemas. Field for field what `Serialize` writes
    /// (`into_json_matches_serialize` tests it).
    pub fn into_json(self) -> serde_json::Value {
        use serde_json::Value;
        fn put(map: &mut JsonObject, key: &str, value: impl Into<Value>) {
            map.insert(key.to_owned(), value.into());
        }
        fn put_opt(map: &mut JsonObject, key: &str, value: Option<impl Into<Value>>) {
            if let Some(value) = value {
                put(map, key, value);
            }
        }
        // Sized for the most fields a wire tool has here (Anthropic's): growing a map rehashes
        // its keys.
        let mut out = JsonObject::with_capacity(8);
        match self {
            // MCP carries annotations and output schemas: its derived form is the reference.
            TargetTool::Mcp(tool) => {
                return serde_json::to_value(tool).unwrap_or(Value::Null);
            }
            TargetTool::ChatCompletions(tool) => {
                let mut function = JsonObject::with_capacity(4);
                put(&mut function, "name", tool.function.name);
                put_opt(&mut function, "description", tool.function.description);
                put(
                    &mut function,
                    "parameters",
                    Value::Object(tool.function.parameters),
                );
                put(&mut function, "strict", tool.function.strict);
                put(&mut out, "type", tool.kind);
                put(&mut out, "function", Value::Object(function));
            }
            TargetTool::Responses(tool) => {
                put(&mut out, "type", tool.kind);
                put(&mut out, "name", tool.name);
                put_opt(&mut out, "description", tool.description);
                put(&mut out, "parameters", Value::Object(tool.parameters));
                put(&mut out, "strict", tool.strict);
                put_opt(
                    &mut out,
                    "output_schema",
                    tool.output_schema.map(Value::Object),
                );
                if tool.defer_loading {
                    put(&mut out, "defer_loading", true);
                }
            }
            TargetTool::Anthropic(tool) => {
                put(&mut out, "name", tool.name);
                put_opt(&mut out, "description", tool.description);
                if tool.strict {
                    put(&mut out, "strict", true);
                }
                put(&mut out, "input_schema", Value::Object(tool.input_schema));
                if !tool.input_examples.is_empty() {
                    let examples = tool.input_examples.into_iter().map(Value::Object);
                    put(&mut out, "input_examples", examples.collect::<Vec<_>>());
                }
                if tool.defer_loading {
                    put(&mut out, "defer_loading", true);
                }
                if let Some(cache) = tool.cache_control {
                    put(
                        &mut out,
                        "cache_control",
                        serde_json::to_value(cache).unwrap_or(Value::Null),
                    );
                }
            }
            TargetTool::Gemini(tool) | TargetTool::GeminiJsonSchema(tool) => {
                put(&mut out, "name", tool.name);
                put(&mut out, "description", tool.description);
                put_opt(&mut out, "parameters", tool.parameters.map(Value::Object));
                put_opt(
                    &mut out,
                    "parametersJsonSchema",
                    tool.parameters_json_schema.map(Value::Object),
                );
                put_opt(&mut out, "response", tool.response.map(Value::Object));
                put_opt(
                    &mut out,
                    "responseJsonSchema",
                    tool.response_json_schema.map(Value::Object),
                );
            }
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn into_json_matches_serialize() {
        let schema = schemars::json_schema!({
            "type": "object", "properties": {"a": {"type": "integer", "default": 1}}
        });
        for description in [Some("Does a thing."), None] {
            let mut builder = ToolDefinition::builder("t").input_schema(schema.clone());
            if let Some(d) = description {
                builder = builder.description(d);
            }
            let definition = builder.build();
            for target in Target::ALL {
                let rendering = render(&definition, target, "t", Profile::Documented).unwrap();
                let copied = rendering.to_json();
                let moved = rendering.into_json();
                assert_eq!(
                    serde_json::to_string(&moved).unwrap(),
                    serde_json::to_string(&copied).unwrap(),
                    "{target}"
                );
            }
        }
    }
}

/// A tool in one target's wire shape; serialises to exactly the provider's JSON.
// The MCP tool is the largest (annotations, icons, output schema); boxing it would put every
// rendering's access to it behind a pointer for no saving: renderings live one per tool.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TargetTool {
    /// See [`McpTool`].
    Mcp(McpTool),
    /// See [`ChatTool`].
    ChatCompletions(ChatTool),
    /// See [`ResponsesTool`].
    Responses(ResponsesTool),
    /// See [`AnthropicTool`].
    Anthropic(AnthropicTool),
    /// See [`GeminiFunctionDeclaration`]: `parameters`.
    Gemini(GeminiFunctionDeclaration),
    /// See [`GeminiFunctionDeclaration`]: `parametersJsonSchema`.
    GeminiJsonSchema(GeminiFunctionDeclaration),
}

/// Renders `definition` for `target` under `name`; [`ToolDefinition::render`] caches the
/// result for the definition's own name.
pub(crate) fn render(
    definition: &ToolDefinition,
    target: Target,
    name: &str,
    profile: Profile,
) -> Result<Rendering, SchemaError> {
    render_input(
        definition,
        Cow::Borrowed(definition.input_schema()),
        target,
        name,
        profile,
    )
}

/// [`render`] with the input schema given apart: owned by a caller that renders a definition
/// once and throws it away, so that it is not copied.
pub(crate) fn render_input(
    definition: &ToolDefinition,
    input: Cow<'_, Schema>,
    target: Target,
    name: &str,
    profile: Profile,
) -> Result<Rendering, SchemaError> {
    let faults = definition.written_faults();
    if !faults.is_empty() {
        return Err(SchemaError::InvalidSchema {
            faults: faults.to_vec(),
        });
    }
    let policy = Policy {
        strict: definition.strict(),
        recursion: definition.recursion(),
        place: Place::Input,
        profile,
    };
    // MCP clients are shown a schema its author wrote as written; every other target renders
    // its canonical form by its own rules.
    let written = definition
        .written_input_schema()
        .filter(|_| target == Target::Mcp);
    let input = match written {
        Some(written) => schema::as_written(written)?,
        None => schema::render_for(input, target, policy)?,
    };
    // What canonicalising the output schema changed concerns the targets that are sent it.
    // What canonicalising a written input schema changed concerns the targets that render its
    // canonical form, which MCP does not.
    let canonical = definition
        .canonical_changes()
        .iter()
        .filter(|c| match c.place {
            Place::Output => target.takes_output_schema(),
            Place::Input => written.is_none(),
            Place::Tool => true,
        })
        .cloned()
        .collect();
    let mut report = Report::from_changes(canonical);
    report.extend(input.changes);
    if name != definition.name() {
        report.push(tool_change(ChangeKind::Renamed {
            from: definition.name().to_owned(),
            to: name.to_owned(),
        }));
    }
    let name = name.to_owned();
    let description = definition
        .description()
        .map(|d| fitted_description(d, target, &mut report));
    let examples = definition.examples();
    let tool = match target {
        Target::Mcp => {
            let output_schema = match definition.output_schema() {
                Some(output) => {
                    let rendered = schema::render_output_for(
                        Cow::Borrowed(output),
                        Target::Mcp,
                        definition.recursion(),
                    )?;
                    report.extend(rendered.changes);
                    Some(rendered.schema)
                }
                None => None,
            };
            let mut input_schema = input.schema;
            // JSON Schema's own place for example instances, which MCP clients show the model
            // with the schema (and `convert` reads back). A schema written with its own
            // `examples` is shown as written.
            if !examples.is_empty() && !input_schema.contains_key("examples") {
                let listed = examples.iter().cloned().map(serde_json::Value::Object);
                input_schema.insert("examples".to_owned(), listed.collect());
            }
            TargetTool::Mcp(McpTool {
                name,
                title: definition.title().map(str::to_owned),
                description,
                input_schema,
                output_schema,
                annotations: McpToolAnnotations::from_hints(definition.annotations()),
                icons: definition.icons().cloned(),
                meta: definition.meta().cloned(),
                other: definition.other_mcp_fields().clone(),
            })
        }
        Target::ChatCompletions => TargetTool::ChatCompletions(ChatTool::function(ChatFunction {
            name,
            description: with_examples(description, examples, target, &mut report),
            parameters: input.schema,
            strict: input.strict,
        })),
        Target::Responses => {
            let mut tool = ResponsesTool::function(
                name,
                with_examples(description, examples, target, &mut report),
                input.schema,
                input.strict,
            );
            tool.output_schema = output_for(definition, target, &mut report);
            tool.defer_loading = definition.defer_loading();
            TargetTool::Responses(tool)
        }
        Target::Anthropic => TargetTool::Anthropic(AnthropicTool {
            name,
            description,
            strict: input.strict,
            input_schema: input.schema,
            input_examples: examples.to_vec(),
            defer_loading: definition.defer_loading(),
            cache_control: None,
        }),
        Target::Gemini | Target::GeminiJsonSchema => {
            let description =
                with_examples(description, examples, target, &mut report).unwrap_or_default();
            let output = output_for(definition, target, &mut report);
            let (declaration, field) = if target == Target::Gemini {
                let mut declaration =
                    GeminiFunctionDeclaration::new(name, description, input.schema);
                declaration.response = output;
                (TargetTool::Gemini(declaration), "parameters")
            } else {
                let mut declaration =
                    GeminiFunctionDeclaration::with_json_schema(name, description, input.schema);
                declaration.response_json_schema = output;
                (
                    TargetTool::GeminiJsonSchema(declaration),
                    "parametersJsonSchema",
                )
            };
            if declaration.input_schema().is_none() {
                report.push(tool_change(ChangeKind::Removed {
                    keyword: field.to_owned(),
                    why: "the tool takes no arguments, and Gemini wants an empty object left out"
                        .to_owned(),
                }));
            }
            declaration
        }
    };
    Ok(Rendering { tool, report })
}

/// Whether `target` has a strict mode that a tool may ask for (`Strictness`, `#[tool(strict)]`).
pub(crate) fn has_strict_mode(target: Target) -> bool {
    target.is_openai() || target == Target::Anthropic
}

/// The [`StrictLimit`] a strict Anthropic `tool` would go past in a request whose strict tools
/// before it left `budget`; `None` when it fits (and is counted in) or is not strict. Tools are
/// offered in the request's order, so the first ones keep strict.
pub(crate) fn past_strict_limit(
    budget: &mut StrictBudget,
    tool: &TargetTool,
) -> Option<StrictLimit> {
    match tool {
        TargetTool::Anthropic(tool) if tool.strict => budget.admit(&tool.input_schema).err(),
        _ => None,
    }
}

impl Rendering {
    /// Sends the tool non-strict because the strict tools before it in its request reached
    /// `limit`, saying so in its report.
    pub(crate) fn drop_strict(&mut self, limit: StrictLimit) {
        self.tool.set_strict(false);
        self.report.push(tool_change(ChangeKind::NotStrict {
            why: limit.reason(),
        }));
    }
}

fn tool_change(kind: ChangeKind) -> Change {
    Change {
        place: Place::Tool,
        pointer: String::new(),
        kind,
    }
}

/// The output schema rendered by `target`'s rules, for a target that takes one beside the
/// input schema (Responses `output_schema`, Gemini `response`/`responseJsonSchema`). One the
/// target cannot express is left out, with why, rather than keeping the tool out: the model
/// can call the tool without it.
fn output_for(
    definition: &ToolDefinition,
    target: Target,
    report: &mut Report,
) -> Option<JsonObject> {
    let output = definition.output_schema()?;
    match schema::render_output_for(Cow::Borrowed(output), target, definition.recursion()) {
        Ok(rendered) => {
            report.extend(rendered.changes);
            Some(rendered.schema)
        }
        Err(error) => {
            report.push(Change {
                place: Place::Output,
                pointer: String::new(),
                kind: ChangeKind::Removed {
                    keyword: "outputSchema".to_owned(),
                    why: format!("the target cannot express it ({error})"),
                },
            });
            None
        }
    }
}

/// The description followed by the tool's examples, for a target without a field of its own
/// for them: as many whole examples as fit the target's description limit, in their order; the
/// ones that do not are left out, with why.
fn with_examples(
    description: Option<String>,
    examples: &[serde_json::Map<String, serde_json::Value>],
    target: Target,
    report: &mut Report,
) -> Option<String> {
    if examples.is_empty() {
        return description;
    }
    let limit = target.max_description_chars().unwrap_or(usize::MAX);
    let mut text = description.unwrap_or_default();
    // The room the heading leaves: the longer, plural one, so that what fits fits either way.
    let separator = if text.is_empty() { "" } else { "\n\n" };
    let mut room = limit
        .saturating_sub(text.chars().count() + separator.len() + "Examples of arguments:".len());
    let mut lines = String::new();
    let mut shown = 0;
    for example in examples {
        // A map of JSON values always serialises.
        let line = format!("\n{}", serde_json::to_string(example).unwrap_or_default());
        let chars = line.chars().count();
        if chars > room {
            break;
        }
        room -= chars;
        lines.push_str(&line);
        shown += 1;
    }
    if shown > 0 {
        let heading = if shown == 1 {
            "Example arguments:"
        } else {
            "Examples of arguments:"
        };
        text.push_str(separator);
        text.push_str(heading);
        text.push_str(&lines);
        report.push(tool_change(ChangeKind::Described {
            keywords: vec!["examples".to_owned()],
            sentence: format!("{heading}{lines}"),
        }));
    }
    if shown < examples.len() {
        report.push(tool_change(ChangeKind::Removed {
            keyword: "examples".to_owned(),
            why: format!(
                "{} of {} examples left out: with them the description would pass the \
                 target's {limit} characters",
                examples.len() - shown,
                examples.len()
            ),
        }));
    }
    (!text.is_empty()).then_some(text)
}

/// The description, shortened to the target's limit (reported) when it is longer.
fn fitted_description(description: &str, target: Target, report: &mut Report) -> String {
    let Some(limit) = target.max_description_chars() else {
        return description.to_owned();
    };
    let from_chars = description.chars().count();
    if from_chars <= limit {
        return description.to_owned();
    }
    let shortened = shorten(description, limit);
    report.push(tool_change(ChangeKind::DescriptionShortened {
        from_chars,
        to_chars: shortened.chars().count(),
        limit,
    }));
    shortened
}

/// `text` cut to at most `limit` characters: after the last paragraph that fits, or, when that
/// would keep less than half the limit, after the last sentence that fits, or else after the
/// last word, with "…".
pub(crate) fn shorten(text: &str, limit: usize) -> String {
    // The byte offset just past the `limit`-th character.
    let end = text
        .char_indices()
        .nth(limit)
        .map_or(text.len(), |(at, _)| at);
    let head = &text[..end];
    let enough = |at: usize| head[..at].chars().count() >= limit / 2;
    if let Some(at) = head.rfind("\n\n").filter(|&at| enough(at)) {
        return head[..at].trim_end().to_owned();
    }
    let sentence_end = head
        .match_indices(['.', '!', '?'])
        .map(|(at, mark)| at + mark.len())
        .rfind(|&at| head[at..].chars().next().is_none_or(char::is_whitespace));
    if let Some(at) = sentence_end.filter(|&at| enough(at)) {
        return head[..at].to_owned();
    }
    // One character is kept free for the ellipsis.
    let room_end = head
        .char_indices()
        .nth(limit - 1)
        .map_or(head.len(), |(at, _)| at);
    let room = &head[..room_end];
    let cut = room.rfind(char::is_whitespace).unwrap_or(room.len());
    format!("{}…", room[..cut].trim_end())
}

#[cfg(test)]
mod shorten_tests {
    use super::shorten;

    #[test]
    fn cuts_at_paragraphs_then_sentences_then_words() {
        let para = format!("{}\n\n{}", "a".repeat(60), "b".repeat(60));
        assert_eq!(shorten(&para, 100), "a".repeat(60));
        let sentences = format!("One. {}. {}", "x".repeat(50), "y".repeat(80));
        assert_eq!(shorten(&sentences, 80), format!("One. {}.", "x".repeat(50)));
        let words = "word ".repeat(40);
        let cut = shorten(&words, 50);
        assert!(cut.ends_with("word…") && cut.chars().count() <= 50, "{cut}");
        let unbroken = "é".repeat(200);
        assert_eq!(shorten(&unbroken, 10).chars().count(), 10);
    }
}
