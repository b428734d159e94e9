//! Anthropic Messages API tools: `{name, description, strict, input_schema}`, and the limits
//! Anthropic puts on the strict tools of one request.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::JsonObject;
use crate::schema::strict_cost;

/// An Anthropic tool; the schema is full draft 2020-12. Strict (`strict: true`) exactly when
/// the schema uses only what Anthropic's strict mode accepts (nothing is rewritten for it) and
/// the tool asks for it; a request keeps at most [`StrictLimit`]s of them strict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnthropicTool {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Strict tool use: the model's input is held to the schema. Sent only when `true`, so a
    /// non-strict tool is what it always was.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// JSON Schema of the arguments (root `"type": "object"`).
    pub input_schema: JsonObject,
    /// Example arguments the model learns the tool from, each valid against `input_schema`;
    /// sent only when there are some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_examples: Vec<JsonObject>,
    /// Loaded only when the model searches for it (a tool-search tool in the request answers
    /// with a `tool_reference`); sent only when `true`. A request needs at least one tool
    /// that is not deferred.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
    /// A prompt-caching breakpoint: the tools up to this one are cached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// Anthropic's `cache_control` breakpoint, `{"type": "ephemeral", "ttl"?}`: the request up to
/// the block that carries it is cached. On the last tool of a listing, it caches the tools.
///
/// ```
/// use tooldef::targets::{CacheControl, CacheTtl};
///
/// let json = serde_json::to_value(CacheControl { ttl: Some(CacheTtl::OneHour) }).unwrap();
/// assert_eq!(json, serde_json::json!({"type": "ephemeral", "ttl": "1h"}));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(tag = "type", rename = "ephemeral")]
pub struct CacheControl {
    /// How long the cache lives; Anthropic's default (5 minutes) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<CacheTtl>,
}

/// How long an Anthropic prompt cache lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CacheTtl {
    /// `"5m"`, the default.
    #[serde(rename = "5m")]
    FiveMinutes,
    /// `"1h"`.
    #[serde(rename = "1h")]
    OneHour,
}

/// A limit Anthropic puts on the strict tools of one request (its structured-outputs
/// documentation, "Schema complexity limits"; its errors: "Too many strict tools", "Schemas
/// contains too many optional parameters (87) … (limit: 24)", "too many parameters with union
/// types (24 parameters with type arrays or anyOf) … limit: 16").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StrictLimit {
    /// At most 20 strict tools.
    Tools,
    /// At most 24 optional parameters (properties not `required`, at any depth) across them.
    OptionalParameters,
    /// At most 16 parameters with union types (an `anyOf`, or a list of types) across them.
    UnionParameters,
}

impl StrictLimit {
    /// Every limit, in the order they are checked.
    pub const ALL: [StrictLimit; 3] = [
        StrictLimit::Tools,
        StrictLimit::OptionalParameters,
        StrictLimit::UnionParameters,
    ];

    /// The most one request may carry.
    pub const fn max(self) -> usize {
        match self {
            StrictLimit::Tools => 20,
            StrictLimit::OptionalParameters => 24,
            StrictLimit::UnionParameters => 16,
        }
    }

    /// What is counted, in the plural.
    pub const fn counted(self) -> &'static str {
        match self {
            StrictLimit::Tools => "strict tools",
            StrictLimit::OptionalParameters => "optional parameters",
            StrictLimit::UnionParameters => {
                "parameters with union types (an `anyOf`, or a list of types)"
            }
        }
    }

    /// Why a tool past this limit is not strict, for its report.
    pub(crate) fn reason(self) -> String {
        format!(
            "Anthropic takes {self} in one request, and the strict tools before this one use \
             them up: it is sent non-strict (put the tools that most need strict mode first)"
        )
    }
}

impl fmt::Display for StrictLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at most {} {}", self.max(), self.counted())
    }
}

/// What is left of the strict limits of one request. Tools are offered in the request's order:
/// each keeps strict when it fits in what the strict tools before it left, so the first ones
/// keep it, and a smaller tool after one that did not fit may still.
#[derive(Debug, Clone)]
pub(crate) struct StrictBudget {
    tools: usize,
    optional: usize,
    unions: usize,
}

impl Default for StrictBudget {
    fn default() -> Self {
        StrictBudget {
            tools: StrictLimit::Tools.max(),
            optional: StrictLimit::OptionalParameters.max(),
            unions: StrictLimit::UnionParameters.max(),
        }
    }
}

impl StrictBudget {
    /// Takes a strict tool with `input_schema` into the request, or says the first limit it
    /// would go past (and takes nothing).
    pub(crate) fn admit(&mut self, input_schema: &JsonObject) -> Result<(), StrictLimit> {
        let cost = strict_cost(input_schema);
        let over = [
            (StrictLimit::Tools, 1, self.tools),
            (
                StrictLimit::OptionalParameters,
                cost.optional,
                self.optional,
            ),
            (StrictLimit::UnionParameters, cost.unions, self.unions),
        ]
        .into_iter()
        .find(|(_, needs, left)| needs > left);
        if let Some((limit, _, _)) = over {
            return Err(limit);
        }
        self.tools -= 1;
        self.optional -= cost.optional;
        self.unions -= cost.unions;
        Ok(())
    }
}
