//! [`Resource`]: data an MCP server offers to read (`resources/list`, `resources/read`), at a
//! fixed URI or at every URI of a template (`resources/templates/list`), written as a function
//! under `#[resource]`.
//!
//! ```
//! use tooldef::resource;
//!
//! /// The project's README.
//! #[resource(uri = "docs://readme", mime_type = "text/markdown")]
//! fn readme() -> &'static str {
//!     "# tooldef"
//! }
//!
//! /// A user's profile.
//! #[resource(uri = "users://{id}/profile", mime_type = "application/json")]
//! fn profile(id: u64) -> String {
//!     format!(r#"{{"id": {id}}}"#)
//! }
//! ```
//!
//! A template's variables are the function's parameters, read from the URI's text through
//! [`FromStr`](std::str::FromStr); the macro checks at compile time that each variable has a
//! parameter and each parameter a variable.

mod registry;
mod template;

pub(crate) use registry::Resources;
pub use template::{TemplateError, UriTemplate};

use std::borrow::Cow;
use std::fmt;
use std::future::Future;

use base64::Engine as _;
use serde_json::{Map, Value, json};

use crate::completion::{CompletionRequest, Completions};
use crate::context::{CallContext, ContextError};
use crate::string_args::StringArgError;
use crate::{Content, StringArgs};

/// A resource: a definition, and a function that reads it.
///
/// `#[resource]` implements it for a unit struct named after the function (`readme` →
/// `Readme`); implement it by hand only for what the macro cannot express.
///
/// ```
/// use tooldef::{CallContext, Resource, ToolSet, resource};
///
/// /// The service's status.
/// #[resource(uri = "status://now", mime_type = "text/plain")]
/// fn status() -> &'static str {
///     "all good"
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// assert_eq!(Status.definition().uri(), "status://now");
/// let set = ToolSet::builder().resource(Status).build()?;
/// let contents = set.read_resource("status://now", CallContext::new()).await?;
/// assert_eq!(contents[0].mime_type.as_deref(), Some("text/plain"));
/// # Ok(())
/// # }
/// ```
pub trait Resource: Send + Sync + 'static {
    /// The resource's definition, made once.
    fn definition(&self) -> &'static ResourceDefinition;

    /// The resource's Rust type as its user names it, for messages.
    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }

    /// The application state its context parameters need ([`State<T>`](crate::State) needs a
    /// `T`), which [`ToolSetBuilder::build`](crate::ToolSetBuilder::build) checks was given.
    /// `#[resource]` lists its parameters'; none by default.
    fn needed_state(&self) -> Vec<crate::NeededState> {
        Vec::new()
    }

    /// Reads the resource at `uri`: the fixed URI, or one its template matched, with the
    /// template's variables in `variables`.
    fn read(
        &self,
        uri: &str,
        variables: StringArgs,
        context: CallContext,
    ) -> impl Future<Output = Result<Vec<ResourceContents>, ResourceError>> + Send;

    /// Suggestions for a template variable being typed (MCP `completion/complete`); none by
    /// default.
    fn complete(
        &self,
        request: CompletionRequest,
        context: CallContext,
    ) -> impl Future<Output = Result<Completions, String>> + Send {
        let _ = (request, context);
        async { Ok(Completions::default()) }
    }
}

/// The URI a resource is read at, given to a `#[resource]` function that takes a parameter of
/// this type (a template's function learns the URI's parts from its variables; this is the
/// whole of it, as the client sent it).
///
/// ```
/// use tooldef::{ResourceUri, resource};
///
/// /// Any file under `/srv/files`.
/// #[resource(uri = "file:///srv/files/{+path}", mime_type = "text/plain")]
/// fn file(path: String, uri: ResourceUri) -> String {
///     format!("{uri} is {path}")
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceUri(String);

impl ResourceUri {
    /// The URI `uri`.
    pub fn new(uri: impl Into<String>) -> ResourceUri {
        ResourceUri(uri.into())
    }

    /// The URI.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The URI, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl std::ops::Deref for ResourceUri {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ResourceUri {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ResourceUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a resource is: one URI, or every URI of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// A fixed URI, listed by `resources/list`.
    Fixed(Cow<'static, str>),
    /// A template, listed by `resources/templates/list`.
    Template(UriTemplate),
}

/// A resource's definition: what `resources/list` or `resources/templates/list` shows of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDefinition {
    address: Address,
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Option<Cow<'static, str>>,
    mime_type: Option<Cow<'static, str>>,
    size: Option<u64>,
    annotations: Option<Value>,
    icons: Option<Value>,
    meta: Option<Map<String, Value>>,
}

impl ResourceDefinition {
    /// A resource at the fixed `uri`, named `name` (a short name, for display).
    pub fn fixed(
        uri: impl Into<Cow<'static, str>>,
        name: impl Into<Cow<'static, str>>,
    ) -> ResourceDefinition {
        ResourceDefinition::at(Address::Fixed(uri.into()), name.into())
    }

    /// Resources at every URI of `template` (RFC 6570: `file:///{+path}`), named `name`.
    pub fn template(
        template: &str,
        name: impl Into<Cow<'static, str>>,
    ) -> Result<ResourceDefinition, TemplateError> {
        Ok(ResourceDefinition::at(
            Address::Template(UriTemplate::parse(template)?),
            name.into(),
        ))
    }

    fn at(address: Address, name: Cow<'static, str>) -> ResourceDefinition {
        ResourceDefinition {
            address,
            name,
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }

    /// With a title for display.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With the MIME type of its contents, also given to contents read without one.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<Cow<'static, str>>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With its size in bytes, when known before reading.
    #[must_use]
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// With MCP `annotations` (`audience`, `priority`, `lastModified`).
    #[must_use]
    pub fn with_annotations(mut self, annotations: Value) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// With MCP `icons`.
    #[must_use]
    pub fn with_icons(mut self, icons: Value) -> Self {
        self.icons = Some(icons);
        self
    }

    /// With MCP `_meta`.
    #[must_use]
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Where it is.
    pub fn address(&self) -> &Address {
        &self.address
    }

    /// The fixed URI or the template, as written.
    pub fn uri(&self) -> &str {
        match &self.address {
            Address::Fixed(uri) => uri,
            Address::Template(template) => template.as_str(),
        }
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The MIME type.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// The definition as MCP's `Resource` (fixed) or `ResourceTemplate` object.
    pub fn to_mcp(&self) -> Value {
        let mut resource = Map::new();
        match &self.address {
            Address::Fixed(uri) => resource.insert("uri".into(), json!(uri)),
            Address::Template(template) => {
                resource.insert("uriTemplate".into(), json!(template.as_str()))
            }
        };
        resource.insert("name".into(), json!(self.name));
        let optional = [
            ("title", self.title.as_deref().map(Value::from)),
            ("description", self.description.as_deref().map(Value::from)),
            ("mimeType", self.mime_type.as_deref().map(Value::from)),
            ("annotations", self.annotations.clone()),
            ("icons", self.icons.clone()),
            ("_meta", self.meta.clone().map(Value::Object)),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                resource.insert(key.into(), value);
            }
        }
        if let (Some(size), Address::Fixed(_)) = (self.size, &self.address) {
            resource.insert("size".into(), json!(size));
        }
        Value::Object(resource)
    }
}

/// What reading a resource gives: text or bytes, at a URI, with a MIME type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContents {
    /// The URI they were read from.
    pub uri: String,
    /// Their MIME type.
    pub mime_type: Option<String>,
    /// The text or the bytes.
    pub body: ResourceBody,
    /// MCP `_meta`.
    pub meta: Option<Map<String, Value>>,
}

/// A resource's text, or its bytes (sent base64-encoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

impl ResourceContents {
    /// Text at `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> ResourceContents {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
            meta: None,
        }
    }

    /// Bytes at `uri`.
    pub fn blob(uri: impl Into<String>, bytes: impl Into<Vec<u8>>) -> ResourceContents {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(bytes.into()),
            meta: None,
        }
    }

    /// With a MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// As MCP's `TextResourceContents` or `BlobResourceContents`.
    pub fn to_mcp(&self) -> Value {
        let mut contents = Map::new();
        contents.insert("uri".into(), json!(self.uri));
        if let Some(mime_type) = &self.mime_type {
            contents.insert("mimeType".into(), json!(mime_type));
        }
        match &self.body {
            ResourceBody::Text(text) => contents.insert("text".into(), json!(text)),
            ResourceBody::Blob(bytes) => contents.insert(
                "blob".into(),
                json!(base64::engine::general_purpose::STANDARD.encode(bytes)),
            ),
        };
        if let Some(meta) = &self.meta {
            contents.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(contents)
    }
}

/// An embedded resource (MCP `resource` content), in a prompt's message or a tool's result.
impl From<ResourceContents> for Content {
    fn from(contents: ResourceContents) -> Content {
        let mut block = Map::new();
        block.insert("type".into(), json!("resource"));
        block.insert("resource".into(), contents.to_mcp());
        Content::Resource(block)
    }
}

/// What a `#[resource]` function may return: text (`String`, `&'static str`), bytes
/// (`Vec<u8>`), [`ResourceContents`] or several, or a `Result` of one whose error the client
/// reads. Text and bytes are given the URI read and the resource's MIME type.
#[diagnostic::on_unimplemented(
    message = "a resource cannot return `{Self}`: it is not a resource's contents",
    label = "not text, bytes or `ResourceContents`",
    note = "return a `String` or `&'static str` (text), a `Vec<u8>` (bytes), `ResourceContents` or a `Vec` of them, or a `Result` of one whose error implements `Display`"
)]
pub trait IntoResourceContents {
    /// The contents read from `uri`, or the function's own error message.
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, String>;
}

fn with_type(contents: ResourceContents, mime_type: Option<&str>) -> ResourceContents {
    match (contents.mime_type.is_some(), mime_type) {
        (false, Some(mime_type)) => contents.with_mime_type(mime_type),
        _ => contents,
    }
}

impl IntoResourceContents for String {
    fn into_contents(self, uri: &str, mime: Option<&str>) -> Result<Vec<ResourceContents>, String> {
        Ok(vec![with_type(ResourceContents::text(uri, self), mime)])
    }
}

impl IntoResourceContents for &'static str {
    fn into_contents(self, uri: &str, mime: Option<&str>) -> Result<Vec<ResourceContents>, String> {
        Ok(vec![with_type(ResourceContents::text(uri, self), mime)])
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_contents(self, uri: &str, mime: Option<&str>) -> Result<Vec<ResourceContents>, String> {
        Ok(vec![with_type(ResourceContents::blob(uri, self), mime)])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_contents(self, _: &str, mime: Option<&str>) -> Result<Vec<ResourceContents>, String> {
        Ok(vec![with_type(self, mime)])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_contents(self, _: &str, mime: Option<&str>) -> Result<Vec<ResourceContents>, String> {
        Ok(self.into_iter().map(|c| with_type(c, mime)).collect())
    }
}

impl<T: IntoResourceContents, E: fmt::Display> IntoResourceContents for Result<T, E> {
    fn into_contents(self, uri: &str, mime: Option<&str>) -> Result<Vec<ResourceContents>, String> {
        self.map_err(|e| e.to_string())?.into_contents(uri, mime)
    }
}

/// Why `resources/read` has no contents.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// No resource has this URI, and no template matches it.
    #[error("there is no resource at `{uri}`")]
    NotFound {
        /// The URI asked for.
        uri: String,
    },
    /// A template variable cannot be read as its parameter's type.
    #[error("the resource `{uri}`: {source}")]
    Variable {
        /// The URI asked for.
        uri: String,
        /// What is wrong with the variable.
        source: StringArgError,
    },
    /// The resource's function returned an error.
    #[error("reading `{uri}` failed: {message}")]
    Failed {
        /// The URI.
        uri: String,
        /// The function's message.
        message: String,
    },
    /// A context parameter could not be filled (a server error).
    #[error("the resource `{uri}` is unavailable because of a server error")]
    Unavailable {
        /// The URI.
        uri: String,
        /// Why, for the server's logs.
        reason: String,
    },
    /// The function panicked.
    #[error("reading `{uri}` failed because of a server error")]
    Panicked {
        /// The URI.
        uri: String,
        /// The panic's message, for the server's logs.
        message: String,
    },
}

impl ResourceError {
    /// The error of a context parameter the server did not provide.
    pub fn unavailable(uri: &str, error: &ContextError) -> ResourceError {
        ResourceError::Unavailable {
            uri: uri.to_owned(),
            reason: error.to_string(),
        }
    }
}
