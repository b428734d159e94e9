//! The six targets a tool definition is rendered for, and what each accepts that is not a
//! schema keyword: names, descriptions, how many tools a request may carry.

use std::fmt;
use std::str::FromStr;

/// An LLM API (or protocol) that a tool definition is rendered for.
///
/// ```
/// use tooldef::{Target, Tool, tool};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let target: Target = "gemini-json".parse().unwrap();
/// assert_eq!(target, Target::GeminiJsonSchema);
/// assert!(Target::Responses.is_openai());
/// assert!(!Target::ChatCompletions.accepts_name("fs.read_file")); // see `tooldef::names`
/// for target in Target::ALL {
///     let json = Add.definition().to_json(target).unwrap();
///     println!("{}: {json}", target.short_name());
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// An MCP `Tool`, as listed by `tools/list` (spec 2025-11-25).
    Mcp,
    /// An OpenAI Chat Completions tool: `{"type":"function","function":{…}}`.
    ChatCompletions,
    /// An OpenAI Responses API function tool: `{"type":"function", "name", …}`.
    Responses,
    /// An Anthropic Messages API tool: `{name, description, input_schema}`.
    Anthropic,
    /// A Gemini function declaration whose `parameters` use the OpenAPI 3.0 subset: what every
    /// Gemini API takes, the Live API included.
    Gemini,
    /// A Gemini function declaration whose `parametersJsonSchema` is JSON Schema: `$ref` (so
    /// recursive types), `anyOf`, `null`, maps and tuples, which `parameters` cannot express.
    /// The Developer API and Vertex take it; the Live API does not.
    GeminiJsonSchema,
}

impl Target {
    /// Every target, in a fixed order.
    pub const ALL: [Target; 6] = [
        Target::Mcp,
        Target::ChatCompletions,
        Target::Responses,
        Target::Anthropic,
        Target::Gemini,
        Target::GeminiJsonSchema,
    ];

    /// The short name used on command lines and in file names: `mcp`, `chat`, `responses`,
    /// `anthropic`, `gemini`, `gemini-json`.
    pub const fn short_name(self) -> &'static str {
        match self {
            Target::Mcp => "mcp",
            Target::ChatCompletions => "chat",
            Target::Responses => "responses",
            Target::Anthropic => "anthropic",
            Target::Gemini => "gemini",
            Target::GeminiJsonSchema => "gemini-json",
        }
    }

    /// Whether this target is one of OpenAI's (strict mode applies).
    pub const fn is_openai(self) -> bool {
        matches!(self, Target::ChatCompletions | Target::Responses)
    }

    /// Whether this target is one of Gemini's two forms of a function declaration (their names
    /// and per-request limits are the same).
    pub const fn is_gemini(self) -> bool {
        matches!(self, Target::Gemini | Target::GeminiJsonSchema)
    }

    /// The most tools one request may carry: OpenAI refuses more than 128
    /// (`array_above_max_length`), Gemini more than 512 function declarations.
    pub const fn max_tools(self) -> Option<usize> {
        match self {
            Target::ChatCompletions | Target::Responses => Some(128),
            Target::Gemini | Target::GeminiJsonSchema => Some(512),
            Target::Mcp | Target::Anthropic => None,
        }
    }

    /// Whether a tool's output schema is sent: MCP `outputSchema`, Responses `output_schema`,
    /// Gemini `response` / `responseJsonSchema`. Chat Completions and Anthropic have no field
    /// for it.
    pub const fn takes_output_schema(self) -> bool {
        matches!(
            self,
            Target::Mcp | Target::Responses | Target::Gemini | Target::GeminiJsonSchema
        )
    }

    /// The longest tool description the target takes, in characters: OpenAI refuses more than
    /// 1,024 (`string_above_max_length`).
    pub const fn max_description_chars(self) -> Option<usize> {
        match self {
            Target::ChatCompletions | Target::Responses => Some(1024),
            Target::Mcp | Target::Anthropic | Target::Gemini | Target::GeminiJsonSchema => None,
        }
    }

    /// Whether the target accepts `name` as a tool name: MCP 1–128 characters of
    /// `[A-Za-z0-9_.-/]` (the specification's SHOULD, widened by `/`, which its conformance
    /// suite allows); OpenAI and Anthropic `^[a-zA-Z0-9_-]{1,64}$`; Gemini the same, starting
    /// with a letter or `_` (it takes more, but 64 is what its errors state).
    pub fn accepts_name(self, name: &str) -> bool {
        let (max, extra): (usize, &[char]) = match self {
            Target::Mcp => (128, &['_', '-', '.', '/']),
            _ => (MAX_NAME, &['_', '-']),
        };
        (1..=max).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
            && (!self.is_gemini()
                || name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    }
}

/// The longest tool name every LLM API takes (OpenAI and Anthropic: 64; Gemini's errors say 64).
pub(crate) const MAX_NAME: usize = 64;

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Target::Mcp => "MCP",
            Target::ChatCompletions => "OpenAI Chat Completions",
            Target::Responses => "OpenAI Responses",
            Target::Anthropic => "Anthropic",
            Target::Gemini => "Gemini",
            Target::GeminiJsonSchema => "Gemini (parametersJsonSchema)",
        })
    }
}

/// The error for a target name that is not one of [`Target::ALL`]'s short names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown target `{0}`: expected one of mcp, chat, responses, anthropic, gemini, gemini-json"
)]
pub struct UnknownTarget(pub String);

impl FromStr for Target {
    type Err = UnknownTarget;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::ALL
            .into_iter()
            .find(|t| t.short_name() == s)
            .ok_or_else(|| UnknownTarget(s.to_owned()))
    }
}
