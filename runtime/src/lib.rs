//! tooldef: write a tool once as a Rust function; serve it to any LLM.
//!
//! ```
//! use tooldef::{Target, Tool, tool};
//!
//! /// Get the weather forecast for a city.
//! #[tool(read_only)]
//! fn get_weather(
//!     /// The city, e.g. "Paris".
//!     city: String,
//!     /// How many days to forecast.
//!     #[arg(default = 3)]
//!     #[schemars(range(min = 1, max = 14))]
//!     days: u32,
//! ) -> String {
//!     format!("{days} days of sun in {city}")
//! }
//!
//! let gemini = GetWeather.definition().to_json(Target::Gemini).unwrap();
//! assert_eq!(
//!     gemini["parameters"]["properties"]["days"]["description"],
//!     "How many days to forecast. Default: 3."
//! );
//! ```
#![deny(missing_docs)]

mod arguments;
pub mod calls;
mod client_log;
mod completion;
mod context;
pub mod convert;
mod describe_value;
mod elicit;
mod error;
mod instance;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod names;
mod output;
mod portable;
mod profile;
mod progress;
mod prompt;
mod registry;
pub mod report;
mod resource;
mod restore;
mod sample;
mod schema;
mod string_args;
mod target;
pub mod targets;
mod tool;
mod toolset;

#[doc(hidden)]
pub mod __private;

pub use arguments::{Arguments, Leniency, Limits};
pub use client_log::{ClientLog, LogLevel, LogMessage, LogSink};
pub use completion::{CompletionRequest, Completions, IntoCompletions, MAX_COMPLETIONS};
pub use context::{
    CallContext, CancellationToken, ContextError, FromCallContext, NeededState, State,
};
pub use elicit::{
    Elicit, ElicitAnswer, ElicitChoice, ElicitError, ElicitField, ElicitFuture, ElicitHandler,
    ElicitRequest, Elicitable,
};
pub use error::{ArgumentProblem, BuildError, ListError, SchemaError, ToolError};
pub use output::{Content, EmbeddedBlob, IntoReturnValue, ReturnValue, ToolOutput};
pub use portable::{
    MapsAreNotPortable, Portable, ReferencesAreNotPortable, TuplesAreNotPortable,
    UntypedValuesAreNotPortable, WideIntegersAreNotPortable,
};
pub use profile::{ModelTarget, Profile};
pub use progress::{Progress, ProgressSink, ProgressUpdate, SinkFuture};
pub use prompt::{
    IntoPromptReply, Prompt, PromptArgument, PromptDefinition, PromptError, PromptMessage,
    PromptReply, Role,
};
pub use resource::{
    Address, IntoResourceContents, Resource, ResourceBody, ResourceContents, ResourceDefinition,
    ResourceError, ResourceUri, TemplateError, UriTemplate,
};
pub use sample::{
    IncludeContext, ModelPreferences, Sample, SampleContent, SampleError, SampleFeatures,
    SampleFuture, SampleHandler, SampleMessage, SampleReply, SampleRequest, SampleStopReason,
    SampleTool, SampleToolChoice, SampleToolResult, SampleToolUse,
};
pub use string_args::{StringArgError, StringArgs};
pub use target::{Target, UnknownTarget};
pub use tool::{
    Args, RecursionPolicy, Tool, ToolAnnotations, ToolDefinition, ToolDefinitionBuilder,
};
pub use tooldef_macros::{Elicitable, Portable, prompt, resource, tool, tools, toolset};
pub use toolset::{Listing, ToolSet, ToolSetBuilder};
