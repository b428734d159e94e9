#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
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
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
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
    UniformTuplesAreNotPortable, UntypedValuesAreNotPortable, WideIntegersAreNotPortable,
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
