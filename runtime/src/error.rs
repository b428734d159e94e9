//! Errors of tooldef.

use crate::Target;

/// Why a tool's input schema cannot be rendered for a target.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The root of an input schema must be a JSON object schema (`"type": "object"`).
    #[error(
        "{target} needs the arguments to be a JSON object, but the schema's root is {found}; \
         take the arguments as a struct (or named parameters) rather than {found}"
    )]
    RootNotObject {
        /// The target that refused it.
        target: Target,
        /// What the root is instead, in words.
        found: String,
    },
    /// A recursive type cannot be expressed where every `$ref` must be inlined (Gemini).
    #[error(
        "{target} cannot express the recursive type at `{reference}`: its `parameters` have no \
         `$ref`, so every type is inlined and a type that contains itself never ends; \
         bound the nesting with distinct types, or serve this tool to another target"
    )]
    Recursive {
        /// The target that refused it.
        target: Target,
        /// The `$ref` that points back at one of its ancestors.
        reference: String,
    },
    /// A `$ref` points at nothing in the schema.
    #[error("the schema has a `$ref` to `{reference}`, which is not defined in it")]
    UnresolvedRef {
        /// The reference that could not be resolved.
        reference: String,
    },
    /// The input schema its author wrote
    /// ([`ToolDefinitionBuilder::input_schema`](crate::ToolDefinitionBuilder::input_schema)) is
    /// not valid JSON Schema in the dialect it declares: no target is shown it, since no
    /// validator (the MCP client's, tooldef's own) would take it.
    #[error(
        "the input schema is not valid JSON Schema: {}; correct the schema the tool's definition is built with",
        .faults.join("; ")
    )]
    InvalidSchema {
        /// Each fault with its JSON Pointer (`at `/properties/a/type`: …`).
        faults: Vec<String>,
    },
}

/// Why a call failed. Each variant's `Display` is a message written for the model, saying what
/// went wrong and what to do next; the fields carry the same facts for programs.
///
/// ```
/// use tooldef::{ToolError, ToolSet, tool};
///
/// /// Divide two numbers.
/// #[tool]
/// fn divide(a: i64, b: i64) -> Result<i64, String> {
///     a.checked_div(b).ok_or_else(|| "cannot divide by zero".to_owned())
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = ToolSet::builder().tool(Divide).build()?;
/// let error = tools.call("divide", r#"{"a": 1, "b": 0}"#).await.unwrap_err();
/// assert_eq!(error.to_string(), "`divide` failed: cannot divide by zero");
/// let error = tools.call("divide", r#"{"a": 1}"#).await.unwrap_err();
/// let ToolError::InvalidArguments { problems, .. } = &error else { panic!("{error}") };
/// assert_eq!(problems.len(), 1);
/// assert!(error.is_model_error()); // its message tells the model how to call it right
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No tool has this name.
    #[error("{}", unknown_tool_message(.name, .suggestions, *.available))]
    UnknownTool {
        /// The name the model asked for.
        name: String,
        /// The closest names that exist, best first.
        suggestions: Vec<String>,
        /// How many tools there are.
        available: usize,
    },
    /// The arguments break the tool's schema, or are not JSON at all.
    #[error("{}", invalid_arguments_message(.tool, .problems))]
    InvalidArguments {
        /// The tool called.
        tool: String,
        /// Every problem found, each with where it is.
        problems: Vec<ArgumentProblem>,
    },
    /// The tool ran and returned an error (`Err` of its `Result`).
    #[error("`{tool}` failed: {message}")]
    Failed {
        /// The tool called.
        tool: String,
        /// The tool's own error message.
        message: String,
    },
    /// The tool panicked. The panic was caught; the tool set keeps working.
    #[error(
        "`{tool}` stopped with an internal error. This was not caused by the form of your \
         arguments; do not retry it more than once with the same arguments"
    )]
    Panicked {
        /// The tool called.
        tool: String,
        /// The panic's message, for logs (not shown to the model).
        message: String,
    },
    /// The tool did not finish in time; its future was dropped.
    #[error(
        "`{tool}` did not finish within {} and was stopped. Try a smaller request, or go on \
         without this result",
        format_duration(.after)
    )]
    TimedOut {
        /// The tool called.
        tool: String,
        /// The time limit.
        after: std::time::Duration,
    },
    /// The server could not provide what the tool needs (its state, say): a configuration
    /// mistake, not the model's.
    #[error("`{tool}` is unavailable because of a server error; this was not caused by your call")]
    Unavailable {
        /// The tool called.
        tool: String,
        /// What was missing, for logs.
        reason: String,
    },
}

impl ToolError {
    /// The tool named in the error (the requested name for [`ToolError::UnknownTool`]).
    pub fn tool(&self) -> &str {
        match self {
            ToolError::UnknownTool { name, .. } => name,
            ToolError::InvalidArguments { tool, .. }
            | ToolError::Failed { tool, .. }
            | ToolError::Panicked { tool, .. }
            | ToolError::TimedOut { tool, .. }
            | ToolError::Unavailable { tool, .. } => tool,
        }
    }

    /// Whether the model can fix this by calling differently (unknown tool, invalid arguments).
    pub fn is_model_error(&self) -> bool {
        matches!(
            self,
            ToolError::UnknownTool { .. } | ToolError::InvalidArguments { .. }
        )
    }
}

/// One problem with a call's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentProblem {
    /// Where, as a JSON Pointer into the arguments (`""` is the whole object, `/days` a property,
    /// `/stops/0/nights` a nested one).
    pub pointer: String,
    /// What is wrong and what was expected, with the value received (shortened).
    pub message: String,
}

impl std::fmt::Display for ArgumentProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "at `{}`: {}", self.pointer, self.message)
        }
    }
}

/// The message for a call to a tool that does not exist: the one place it is worded, for the
/// tool set and the router alike.
pub(crate) fn unknown_tool_message(name: &str, suggestions: &[String], available: usize) -> String {
    unknown_name_message(("tool", "call"), name, suggestions, available)
}

/// There is no `kind` (a tool, a prompt) of this name: what to `verb` (call, get) instead.
pub(crate) fn unknown_name_message(
    (kind, verb): (&str, &str),
    name: &str,
    suggestions: &[String],
    available: usize,
) -> String {
    if name.is_empty() {
        return format!(
            "The {kind} name is empty: {verb} a {kind} by one of the names you were given."
        );
    }
    let shown = crate::describe_value::shorten(name, 80);
    match suggestions {
        [] if available == 0 => {
            format!("There is no {kind} named `{shown}`: no {kind}s are available.")
        }
        [] => {
            let mut verb = verb.to_owned();
            verb[..1].make_ascii_uppercase();
            format!("There is no {kind} named `{shown}`. {verb} one of the {kind}s you were given.")
        }
        [one] => format!("There is no {kind} named `{shown}`. Did you mean `{one}`?"),
        many => format!(
            "There is no {kind} named `{shown}`. Did you mean one of: {}?",
            many.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn invalid_arguments_message(tool: &str, problems: &[ArgumentProblem]) -> String {
    let mut message = format!("The arguments for `{tool}` are not valid:");
    for problem in problems {
        message.push_str("\n- ");
        message.push_str(&problem.to_string());
    }
    message.push_str(&format!("\nCall `{tool}` again with corrected arguments."));
    message
}

fn format_duration(duration: &std::time::Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis} ms")
    } else if millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

/// Why a [`ToolSet`](crate::ToolSet) could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tools have the same name; names are how models call tools, so they must be unique.
    #[error(
        "two tools are named `{name}`: `{first}` and `{second}`; rename one with \
         #[tool(name = \"…\")]"
    )]
    DuplicateName {
        /// The name both have.
        name: String,
        /// The first tool's Rust type.
        first: &'static str,
        /// The second tool's Rust type.
        second: &'static str,
    },
    /// Two prompts have the same name; clients get a prompt by its name.
    #[error(
        "two prompts are named `{name}`: `{first}` and `{second}`; rename one with \
         #[prompt(name = \"…\")]"
    )]
    DuplicatePrompt {
        /// The name both have.
        name: String,
        /// The first prompt's Rust type.
        first: &'static str,
        /// The second prompt's Rust type.
        second: &'static str,
    },
    /// Two resources have the same URI, or two templates the same text; clients read a
    /// resource by its URI.
    #[error("two resources have the URI `{uri}`: `{first}` and `{second}`; give one another URI")]
    DuplicateResource {
        /// The URI (or URI template) both have.
        uri: String,
        /// The first resource's Rust type.
        first: &'static str,
        /// The second resource's Rust type.
        second: &'static str,
    },
    /// A tool, prompt or resource takes state (`State<T>`) that the builder was not given: every
    /// call of it would fail.
    #[error(
        "the {kind} `{name}` takes `State<{state}>`, but no `{state}` was given to the tool set: \
         add `.state(…)` with one to the builder; or, if every call brings its own through \
         `CallContext::with_state`, declare it with `.state_per_call::<{state}>()`"
    )]
    MissingState {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// Its name (a resource's URI or URI template).
        name: String,
        /// The state's type, as `std::any::type_name` gives it.
        state: &'static str,
    },
    /// An argument that may be `null` (an `Option`) has a default that is not: a model sends
    /// `null`, or nothing, to leave an argument out, so the default applies and `None` can never
    /// be chosen. A container's `#[serde(default)]` whose `Default` gives `Some` does this;
    /// `#[arg(default = Some(…))]` is refused at compile time.
    #[error(
        "the argument `{pointer}` of `{tool}` is an `Option` whose default is {default}: a model \
         sends `null` or nothing to leave an argument out, which gives the default, so `None` \
         can never be chosen; make its default `None`, or its type not an `Option`"
    )]
    UnreachableNone {
        /// The tool.
        tool: String,
        /// Where the argument is, as a JSON Pointer into the arguments (`/limit`, `/page/size`).
        pointer: String,
        /// Its default, as JSON.
        default: String,
    },
    /// An example of a tool's arguments ([`ToolDefinition::examples`](crate::ToolDefinition::examples))
    /// that the tool's own schema refuses: a model would learn from it a call the tool refuses.
    #[error("{}", invalid_example_message(.tool, *.example, .arguments, .problems))]
    InvalidExample {
        /// The tool.
        tool: String,
        /// Which example, counting from 1 in the order they were given.
        example: usize,
        /// The example, as JSON (shortened when long).
        arguments: String,
        /// What the schema refuses in it, each with where.
        problems: Vec<ArgumentProblem>,
    },
}

fn invalid_example_message(
    tool: &str,
    example: usize,
    arguments: &str,
    problems: &[ArgumentProblem],
) -> String {
    let mut message =
        format!("example {example} of the tool `{tool}` breaks the tool's own schema: {arguments}");
    for problem in problems {
        message.push_str("\n- ");
        message.push_str(&problem.to_string());
    }
    message.push_str(
        "\nA model learns its calls from the examples: correct the example, or the schema.",
    );
    message
}

/// Why a tool list could not be rendered for a target.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the tool `{tool}` cannot be listed for {target}: {source}")]
pub struct ListError {
    /// The tool that failed.
    pub tool: String,
    /// The target.
    pub target: crate::Target,
    /// Why.
    pub source: SchemaError,
}
