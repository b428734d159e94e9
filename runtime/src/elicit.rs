//! [`Elicit`]: a tool asks the user for structured input while it runs (MCP elicitation).
//!
//! See [`Elicit`] and [`Elicitable`]; the form is made in `elicit/form.rs`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::context::{CallContext, ContextError, FromCallContext};

mod form;

/// The future an [`ElicitHandler`] returns (boxed, so that handlers can be trait objects).
pub type ElicitFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ElicitAnswer, ElicitError>> + Send + 'a>>;

/// One question for the user: what MCP's `elicitation/create` carries in form mode.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitRequest {
    /// What to tell the user, e.g. "Delete 3 files?".
    pub message: String,
    /// The form: a JSON Schema object whose properties are primitives (MCP's `requestedSchema`).
    pub schema: Map<String, Value>,
}

/// What the user did with a question.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitAnswer {
    /// The user filled the form in: its values by property name.
    Accept(Map<String, Value>),
    /// The user said no.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

/// Why [`Elicit::ask`] has no answer. The first three are the user's or the client's choice,
/// which a tool handles (go on without, or stop and say why); the rest are failures.
///
/// A tool may return it as its error (`Result<_, ElicitError>`), or `?` it into a
/// `Result<_, String>`: either way, its text is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ElicitError {
    /// The user declined to answer.
    #[error("the user declined to answer")]
    Declined,
    /// The user dismissed the question.
    #[error("the user cancelled the question")]
    Cancelled,
    /// Nobody can be asked: the client does not support elicitation, or the tool runs where no
    /// [`ElicitHandler`] was installed.
    #[error("the user cannot be asked here: the client does not support elicitation")]
    Unsupported,
    /// The answer came too late (the server stopped waiting for the client to send it).
    #[error("the user did not answer in time")]
    TimedOut,
    /// The client's answer does not fit the form.
    #[error("the user's answer does not fit the form: {0}")]
    Invalid(String),
    /// The question could not be asked or answered (the connection failed, say).
    #[error("asking the user failed: {0}")]
    Failed(String),
    /// The form's type says something an MCP form cannot carry (an `examples`, say, or
    /// `enumNames` that do not name every choice): a mistake in the tool, which
    /// [`Elicitable::form`] shows in a test before any user is asked.
    #[error("the form cannot be shown: {0}")]
    InvalidForm(String),
}

impl From<ElicitError> for String {
    fn from(error: ElicitError) -> String {
        error.to_string()
    }
}

/// Where a call's questions go. Install one with [`CallContext::with_elicit`].
///
/// A closure `Fn(ElicitRequest) -> impl Future<Output = Result<ElicitAnswer, ElicitError>>` is a
/// handler:
///
/// ```
/// use tooldef::{CallContext, Elicit, ElicitAnswer, ElicitRequest};
///
/// // An agent loop that answers every question "yes" (a test double, say).
/// let context = CallContext::new().with_elicit(Elicit::new(|request: ElicitRequest| async move {
///     let mut values = serde_json::Map::new();
///     values.insert("confirm".into(), true.into());
///     Ok(ElicitAnswer::Accept(values))
/// }));
/// # let _ = context;
/// ```
pub trait ElicitHandler: Send + Sync + 'static {
    /// Asks the user, and gives their answer.
    fn elicit(&self, request: ElicitRequest) -> ElicitFuture<'_>;
}

impl<F, Fut> ElicitHandler for F
where
    F: Fn(ElicitRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ElicitAnswer, ElicitError>> + Send + 'static,
{
    fn elicit(&self, request: ElicitRequest) -> ElicitFuture<'_> {
        Box::pin(self(request))
    }
}

/// A tool's way to ask the user (MCP elicitation), injected into a tool parameter of this
/// type.
///
/// A tool takes an `Elicit` parameter (injected context, not an argument) and asks with a type
/// that derives [`Elicitable`](macro@crate::Elicitable):
///
/// ```
/// use tooldef::{Elicit, ElicitError, Elicitable, tool};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
/// struct Confirm {
///     /// Go ahead?
///     confirm: bool,
/// }
///
/// /// Delete the files of a folder.
/// #[tool(destructive)]
/// async fn delete_files(
///     /// The folder.
///     folder: String,
///     elicit: Elicit,
/// ) -> Result<String, ElicitError> {
///     let answer: Confirm = elicit.ask(format!("Delete 3 files in {folder}?")).await?;
///     Ok(if answer.confirm { "deleted".into() } else { "kept".into() })
/// }
/// ```
///
/// Where the question goes is the caller's business: an [`ElicitHandler`] installed in the
/// call's context with [`CallContext::with_elicit`]. The MCP server (feature `mcp`) installs one
/// per call: `elicitation/create` to clients of MCP 2025-11-25 and earlier, an `input_required`
/// result and the client's retry for MCP 2026-07-28, `tasks/get`'s `inputRequests` inside a
/// task. An application that runs a [`ToolSet`](crate::ToolSet) itself may install its own;
/// without one, every question is answered [`ElicitError::Unsupported`], which the tool handles
/// like a refusal.
///
/// MCP elicitation shows a form: a flat object whose fields are strings, numbers, integers,
/// booleans or enums of strings. `#[derive(Elicitable)]` refuses any other field at compile
/// time, spanned at the field, so a question the client could not show does not compile.
///
/// Every shape of field MCP's form has (defaults, titled and untitled, single and multiple
/// choices) is written with serde and schemars attributes: see [`Elicitable`].
#[derive(Clone, Default)]
pub struct Elicit {
    handler: Option<Arc<dyn ElicitHandler>>,
}

impl Elicit {
    /// Questions go to `handler`.
    pub fn new(handler: impl ElicitHandler) -> Elicit {
        Elicit {
            handler: Some(Arc::new(handler)),
        }
    }

    /// Nobody to ask: every question is answered [`ElicitError::Unsupported`].
    pub fn unsupported() -> Elicit {
        Elicit::default()
    }

    /// Whether there is somebody to ask (a handler was installed).
    pub fn is_supported(&self) -> bool {
        self.handler.is_some()
    }

    /// Asks the user to fill in the form of `T` with `message` above it, and gives the answer.
    ///
    /// The answer is checked against `T`'s whole schema (what the form could not say, a
    /// `pattern` say, included) and then deserialised: a client that sends something else gets
    /// [`ElicitError::Invalid`], not a half-read `T`.
    pub async fn ask<T: crate::Elicitable>(
        &self,
        message: impl Into<String>,
    ) -> Result<T, ElicitError> {
        let Some(handler) = &self.handler else {
            return Err(ElicitError::Unsupported);
        };
        let full = full_schema::<T>();
        let request = ElicitRequest {
            message: message.into(),
            schema: form::form(&full).map_err(ElicitError::InvalidForm)?,
        };
        match handler.elicit(request).await? {
            ElicitAnswer::Accept(values) => read_answer(&full, values),
            ElicitAnswer::Decline => Err(ElicitError::Declined),
            ElicitAnswer::Cancel => Err(ElicitError::Cancelled),
        }
    }
}

impl fmt::Debug for Elicit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Elicit")
            .field("supported", &self.is_supported())
            .finish()
    }
}

impl CallContext {
    /// Where the tools of this call send their questions (see [`Elicit`]).
    #[must_use]
    pub fn with_elicit(self, elicit: Elicit) -> CallContext {
        self.with_state(elicit)
    }
}

/// Never fails: without a handler in the context, the tool gets one that answers every question
/// [`ElicitError::Unsupported`].
impl FromCallContext for Elicit {
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
        Ok(context.state::<Elicit>().unwrap_or_default())
    }
}

/// `T`'s schema with every subschema inline (a form has no `$defs`).
fn full_schema<T: schemars::JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The user's values checked against `T`'s whole schema, then read as a `T`.
fn read_answer<T: DeserializeOwned>(
    full: &Value,
    values: Map<String, Value>,
) -> Result<T, ElicitError> {
    let answer = Value::Object(values);
    let validator = crate::arguments::validator(full).map_err(ElicitError::Failed)?;
    let problems: Vec<String> = validator
        .iter_errors(&answer)
        .take(5)
        .map(|error| match error.instance_path().as_str() {
            "" => error.to_string(),
            path => format!("{path}: {error}"),
        })
        .collect();
    if !problems.is_empty() {
        return Err(ElicitError::Invalid(problems.join("; ")));
    }
    serde_json::from_value(answer).map_err(|error| ElicitError::Invalid(error.to_string()))
}

/// A type a tool can ask the user for with [`Elicit::ask`]: a struct of named fields, each an
/// [`ElicitField`]. Derive it with `#[derive(Elicitable)]` (beside `Deserialize` and
/// `JsonSchema`), which checks every field at compile time.
///
/// # Every shape of field MCP has
///
/// What the author writes with serde and schemars reaches the form:
///
/// - a field's doc comment is its description, `#[schemars(title = "…")]` its title;
///   `#[schemars(length(…))]`, `#[schemars(range(…))]`, `#[schemars(email)]`/`url` its bounds
///   and format;
/// - `#[serde(default = "…")]` (or `#[serde(default)]`) is its `default`, for strings, numbers,
///   integers, booleans and choices alike (SEP-1034); its type implements `Serialize`, which
///   schemars needs to write it (the derive says so otherwise);
/// - an enum of unit variants is a choice: without doc comments an untitled one (`enum`); with
///   doc comments or `#[schemars(title = "…")]` on its variants a titled one (`oneOf` of
///   `{const, title}`, a variant without either titled by its value); with
///   `#[schemars(extend("enumNames" = ["…", …]))]` on the enum the legacy titled one (`enum`
///   with `enumNames`), and a `Vec` of it a multiple choice (`items.enum`, or `items.anyOf` of
///   `{const, title}` when titled, `enumNames` included) (SEP-1330);
/// - an `Option` is a field the user may leave empty.
///
/// ```
/// use tooldef::Elicitable;
///
/// #[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema, Elicitable, Default)]
/// #[serde(rename_all = "lowercase")]
/// enum Size {
///     /// Small, 30 cm
///     #[default]
///     Small,
///     /// Large, 40 cm
///     Large,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
/// #[serde(rename_all = "lowercase")]
/// #[schemars(extend("enumNames" = ["Mozzarella", "Black olives"]))]
/// enum Topping {
///     Cheese,
///     Olives,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
/// struct Pizza {
///     #[serde(default)]
///     size: Size,
///     toppings: Vec<Topping>,
/// }
///
/// let form = serde_json::Value::Object(Pizza::form().unwrap());
/// assert_eq!(
///     form["properties"]["size"],
///     serde_json::json!({"type": "string", "default": "small", "oneOf": [
///         {"const": "small", "title": "Small, 30 cm"},
///         {"const": "large", "title": "Large, 40 cm"}
///     ]})
/// );
/// assert_eq!(
///     form["properties"]["toppings"]["items"],
///     serde_json::json!({"anyOf": [
///         {"const": "cheese", "title": "Mozzarella"},
///         {"const": "olives", "title": "Black olives"}
///     ]})
/// );
/// ```
///
/// Nothing is dropped without a word. A rule the form cannot show but the answer can keep
/// (`#[schemars(regex)]`'s `pattern`, a format MCP does not name) stays out of the form and is
/// checked when the answer comes ([`ElicitError::Invalid`]). What the user could never see is
/// refused: at compile time where the derive sees it (`#[schemars(example)]`, `#[deprecated]`,
/// an `extend` keyword MCP's form has not, `enumNames` that do not name each variant once, a
/// variant with both a title and a description),
/// otherwise when the form is made ([`ElicitError::InvalidForm`], which
/// [`Elicitable::form`] shows in a test).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a form MCP elicitation can show",
    label = "not `Elicitable`",
    note = "derive `tooldef::Elicitable` on it: a struct of named fields, each a string, a number, an integer, a boolean or an enum of strings (MCP elicitation shows a flat form)"
)]
pub trait Elicitable: DeserializeOwned + schemars::JsonSchema {
    /// The form [`Elicit::ask`] shows for this type (MCP's `requestedSchema`), or what in the
    /// type a form cannot carry ([`ElicitError::InvalidForm`]). Call it in a test to see the
    /// form before any user does:
    ///
    /// ```
    /// use tooldef::Elicitable;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema, Elicitable)]
    /// struct Size {
    ///     /// Centimetres across.
    ///     #[serde(default = "thirty")]
    ///     #[schemars(range(min = 20, max = 50))]
    ///     width: u8,
    /// }
    /// fn thirty() -> u8 {
    ///     30
    /// }
    ///
    /// let form = Size::form().unwrap();
    /// assert_eq!(
    ///     form["properties"]["width"],
    ///     serde_json::json!({
    ///         "type": "integer",
    ///         "description": "Centimetres across.",
    ///         "minimum": 20,
    ///         "maximum": 50,
    ///         "default": 30
    ///     })
    /// );
    /// ```
    fn form() -> Result<Map<String, Value>, ElicitError>
    where
        Self: Sized,
    {
        form::form(&full_schema::<Self>()).map_err(ElicitError::InvalidForm)
    }
}

/// A field an elicitation form can show: a string, a number, an integer, a boolean, an enum of
/// unit variants (which `#[derive(Elicitable)]` makes one), an `Option` of one (a field the user
/// may leave empty) or a `Vec` of such an enum (several choices).
#[diagnostic::on_unimplemented(
    message = "an elicitation form cannot have a field of type `{Self}`",
    label = "not a string, number, integer, boolean or enum of strings",
    note = "MCP elicitation shows a flat form: each field a string, a number, an integer, a boolean, an enum of unit variants (`#[derive(Elicitable)]` on the enum), an `Option` of one, or a `Vec` of such an enum; ask for a nested value with a second question, or as a string"
)]
pub trait ElicitField {}

/// An enum of unit variants: one choice of a form (`#[derive(Elicitable)]` on the enum), or
/// several in a `Vec`.
#[diagnostic::on_unimplemented(
    message = "an elicitation form cannot have a field of type `Vec<{Self}>`",
    label = "not an enum of unit variants",
    note = "a list in an elicitation form is a multiple choice: a `Vec` of an enum of unit variants with `#[derive(Elicitable)]`"
)]
pub trait ElicitChoice: ElicitField {}

macro_rules! elicit_fields {
    ($($ty:ty),*) => { $(impl ElicitField for $ty {})* };
}

elicit_fields!(
    String, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64
);
impl<T: ElicitField> ElicitField for Option<T> {}
impl<T: ElicitChoice> ElicitField for Vec<T> {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Size {
        /// Small, 30 cl
        Small,
        /// Large, 50 cl
        Large,
    }

    /// Your order.
    #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    struct Order {
        /// How many.
        #[schemars(range(min = 1, max = 9))]
        count: u8,
        size: Option<Size>,
        /// Your email.
        #[schemars(email)]
        email: String,
        #[schemars(regex(pattern = "^[A-Z]{3}$"))]
        code: Option<String>,
    }
    impl crate::Elicitable for Order {}

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn the_form_is_flat_with_mcps_keywords() {
        assert_eq!(
            Value::Object(<Order as crate::Elicitable>::form().unwrap()),
            json!({
                "type": "object",
                "title": "Order",
                "description": "Your order.",
                "properties": {
                    "count": {"type": "integer", "description": "How many.", "minimum": 1, "maximum": 9},
                    "size": {"type": "string", "oneOf": [
                        {"const": "small", "title": "Small, 30 cl"},
                        {"const": "large", "title": "Large, 50 cl"}
                    ]},
                    "email": {"type": "string", "description": "Your email.", "format": "email"},
                    "code": {"type": "string"}
                },
                "required": ["count", "email"]
            })
        );
    }

    #[test]
    fn an_answer_is_checked_against_the_whole_type() {
        let ask = |values: Value| {
            let elicit = Elicit::new(move |_request: ElicitRequest| {
                let values = values.clone();
                async move { Ok(ElicitAnswer::Accept(values.as_object().unwrap().clone())) }
            });
            block_on(async move { elicit.ask::<Order>("Your order?").await })
        };
        assert_eq!(
            ask(json!({"count": 2, "email": "a@b.c", "size": "large"})),
            Ok(Order {
                count: 2,
                size: Some(Size::Large),
                email: "a@b.c".into(),
                code: None
            })
        );
        // The pattern is not in the form, and still holds.
        let Err(ElicitError::Invalid(why)) =
            ask(json!({"count": 2, "email": "a@b.c", "code": "x"}))
        else {
            panic!("a code off the pattern is refused");
        };
        assert!(why.contains("/code"), "{why}");
        assert!(matches!(
            ask(json!({"count": 20, "email": "a@b.c"})),
            Err(ElicitError::Invalid(_))
        ));
    }

    #[test]
    fn declined_cancelled_and_unsupported_are_outcomes() {
        let with = |answer: ElicitAnswer| {
            Elicit::new(move |_request: ElicitRequest| {
                let answer = answer.clone();
                async move { Ok(answer) }
            })
        };
        block_on(async {
            assert_eq!(
                with(ElicitAnswer::Decline).ask::<Order>("?").await,
                Err(ElicitError::Declined)
            );
            assert_eq!(
                with(ElicitAnswer::Cancel).ask::<Order>("?").await,
                Err(ElicitError::Cancelled)
            );
            assert_eq!(
                Elicit::unsupported().ask::<Order>("?").await,
                Err(ElicitError::Unsupported)
            );
            let context = CallContext::new();
            let elicit = Elicit::from_call_context(&context).unwrap();
            assert_eq!(
                elicit.ask::<Order>("?").await,
                Err(ElicitError::Unsupported)
            );
        });
    }
}
