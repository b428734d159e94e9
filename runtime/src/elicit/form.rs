//! The form MCP elicitation shows (`requestedSchema`), made from a type's schemars schema.
//!
//! MCP's form is a flat object whose properties are each one of a few shapes
//! (`PrimitiveSchemaDefinition` in the specification): a string, a number or integer, a
//! boolean, a single choice (untitled `enum`, titled `oneOf` of `{const, title}`, or the legacy
//! `enum` with `enumNames`), or a multiple choice (`items.enum`, or `items.anyOf` of
//! `{const, title}`), each with its own few keywords, `default` among them (SEP-1034).
//!
//! Every keyword of a field's schema is put in one of four places, so that none is lost without
//! a word: carried into the form (the shape's own keywords); left out of the form but checked
//! when the answer comes (`pattern`, a format MCP does not name, exclusive bounds: rules a
//! client cannot show but the answer must still keep); left out as schemars' own bookkeeping
//! (the `format` of a Rust integer or float type, whose range is in `minimum`/`maximum`); or
//! refused, with the field and the keyword named (`examples`, `deprecated`, an extension
//! keyword: something the author wrote that the client would never see).

use serde_json::{Map, Value};

/// The string formats MCP elicitation takes.
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// Keywords a form does not show but the answer is checked against (with the whole schema).
const CHECKED_ON_ANSWER: &[&str] = &[
    "pattern",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "uniqueItems",
];

/// The form of a type whose whole schema (every subschema inline) is `full`, or what in it a
/// form cannot carry.
pub(super) fn form(full: &Value) -> Result<Map<String, Value>, String> {
    let Some(root) = full.as_object() else {
        return Err("the type's schema is not an object schema".into());
    };
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err("an elicitation form is an object: the type's schema is not one".into());
    }
    let mut form = Map::new();
    form.insert("type".into(), "object".into());
    let mut properties = Map::new();
    for (key, value) in root {
        match key.as_str() {
            "type" | "$schema" | "additionalProperties" => {}
            "title" | "description" => {
                form.insert(key.clone(), value.clone());
            }
            "required" => {
                form.insert(key.clone(), value.clone());
            }
            "properties" => {
                let Some(fields) = value.as_object() else {
                    return Err("the type's `properties` is not an object".into());
                };
                for (name, schema) in fields {
                    let field = field(schema).map_err(|why| format!("field `{name}`: {why}"))?;
                    properties.insert(name.clone(), Value::Object(field));
                }
            }
            other => return Err(not_carried(other, "the form itself")),
        }
    }
    form.insert("properties".into(), Value::Object(properties));
    // `required` after `properties`, as forms are usually written.
    if let Some(required) = form.remove("required") {
        form.insert("required".into(), required);
    }
    Ok(form)
}

/// Why `keyword` is refused.
fn not_carried(keyword: &str, place: &str) -> String {
    format!(
        "`{keyword}` on {place} is not something an MCP elicitation form can carry, and the \
         user would never see it: remove it (say it in the doc comment, which becomes the \
         description, if the user should read it)"
    )
}

/// What kind of form field a schema is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    String,
    Number,
    Integer,
    Boolean,
    Choice,
    Choices,
}

/// One field of the form, from its schema.
fn field(schema: &Value) -> Result<Map<String, Value>, String> {
    let schema = flatten_optional(schema)?;
    let kind = kind_of(&schema)?;
    let mut out = Map::new();
    out.insert(
        "type".into(),
        match kind {
            Kind::String | Kind::Choice => "string",
            Kind::Number => "number",
            Kind::Integer => "integer",
            Kind::Boolean => "boolean",
            Kind::Choices => "array",
        }
        .into(),
    );
    for (key, value) in &schema {
        let carried = match (key.as_str(), kind) {
            ("type" | "enum" | "oneOf" | "const" | "enumNames" | "items", _) => false,
            ("title" | "description", _) => true,
            ("default", _) => {
                if !value.is_null() {
                    check_default(kind, value, &schema)?;
                    out.insert(key.clone(), value.clone());
                }
                false
            }
            ("minLength" | "maxLength", Kind::String) => true,
            ("format", Kind::String) => {
                matches!(value.as_str(), Some(format) if FORMATS.contains(&format))
            }
            ("format", Kind::Number | Kind::Integer) if is_rust_number_format(value) => false,
            ("minimum" | "maximum", Kind::Number | Kind::Integer) => true,
            ("minItems" | "maxItems", Kind::Choices) => true,
            (key, _) if CHECKED_ON_ANSWER.contains(&key) => false,
            (key, _) => return Err(not_carried(key, "it")),
        };
        if carried {
            out.insert(key.clone(), value.clone());
        }
    }
    match kind {
        Kind::Choice => {
            let choices = choices(&schema)?;
            match (legacy_names(&schema, &choices)?, choices.titled) {
                (Some(names), false) => {
                    out.insert("enum".into(), choices.values());
                    out.insert("enumNames".into(), names);
                }
                (Some(_), true) => return Err(BOTH_TITLES.into()),
                (None, true) => {
                    out.insert("oneOf".into(), choices.const_titles());
                }
                (None, false) => {
                    out.insert("enum".into(), choices.values());
                }
            }
        }
        Kind::Choices => {
            let items = schema
                .get("items")
                .ok_or("a list in a form is a multiple choice, and this one has no `items`")?;
            let items = items.as_object().ok_or("its `items` is not a schema")?;
            for (key, value) in items {
                match key.as_str() {
                    "type" | "enum" | "oneOf" | "anyOf" | "const" | "enumNames" => {}
                    // The enum type's own doc comment: the field's, where it has none of its
                    // own (as schemars does for a single choice).
                    "title" | "description" => {
                        out.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                    other => return Err(not_carried(other, "its items")),
                }
            }
            let mut choices = choices(items)?;
            // MCP's multiple choice has no `enumNames`: its names are the choices' titles.
            let names = match legacy_names(items, &choices)? {
                Some(names) => Some(names),
                None => legacy_names(&schema, &choices)?,
            };
            if let Some(Value::Array(names)) = names {
                if choices.titled {
                    return Err(BOTH_TITLES.into());
                }
                for ((_, title), name) in choices.list.iter_mut().zip(names) {
                    *title = name.as_str().map(str::to_owned);
                }
                choices.titled = true;
            }
            let mut items = Map::new();
            if choices.titled {
                items.insert("anyOf".into(), choices.const_titles());
            } else {
                items.insert("type".into(), "string".into());
                items.insert("enum".into(), choices.values());
            }
            out.insert("items".into(), Value::Object(items));
        }
        _ => {}
    }
    Ok(out)
}

const BOTH_TITLES: &str = "its choices have titles twice, from `enumNames` and from the \
                           variants' doc comments or titles: keep one";

/// `Option<T>`'s schema as `T`'s: a form says "none" by leaving the field empty. schemars writes
/// it `{"anyOf": [T, {"type": "null"}], …}` or with `"null"` among `type` (and `null` among
/// `enum`); the outer metadata (the field's doc comment) wins over the inner (the type's).
fn flatten_optional(schema: &Value) -> Result<Map<String, Value>, String> {
    let Some(schema) = schema.as_object() else {
        return Err("its schema is not an object".into());
    };
    let mut schema = schema.clone();
    if let Some(Value::Array(branches)) = schema.get("anyOf").cloned() {
        let mut kept = branches.iter().filter(|branch| !is_null_schema(branch));
        let (Some(Value::Object(only)), None) = (kept.next(), kept.next()) else {
            return Err("`anyOf` of several schemas is not a field a form can show".into());
        };
        schema.remove("anyOf");
        for (key, value) in only {
            schema.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    if let Some(Value::Array(types)) = schema.get("type").cloned() {
        let mut kept = types.iter().filter(|t| *t != "null");
        let (Some(only), None) = (kept.next(), kept.next()) else {
            return Err("a field of several types is not one a form can show".into());
        };
        schema.insert("type".into(), only.clone());
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    Ok(schema)
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

fn kind_of(schema: &Map<String, Value>) -> Result<Kind, String> {
    let choice = ["enum", "oneOf", "const"]
        .iter()
        .any(|key| schema.contains_key(*key));
    match schema.get("type").and_then(Value::as_str) {
        Some("string") | None if choice => Ok(Kind::Choice),
        Some("string") => Ok(Kind::String),
        Some("number") => Ok(Kind::Number),
        Some("integer") => Ok(Kind::Integer),
        Some("boolean") => Ok(Kind::Boolean),
        Some("array") => Ok(Kind::Choices),
        Some(other) => Err(format!(
            "a field of type `{other}` is not one a form can show (strings, numbers, integers, \
             booleans and choices)"
        )),
        None => Err("its schema has no `type`".into()),
    }
}

/// The `format` schemars gives a Rust number type (`uint8`, `double`…): its range is in
/// `minimum`/`maximum`, and the answer is read as that type.
fn is_rust_number_format(value: &Value) -> bool {
    matches!(
        value.as_str(),
        Some(
            "int8"
                | "int16"
                | "int32"
                | "int64"
                | "int"
                | "uint8"
                | "uint16"
                | "uint32"
                | "uint64"
                | "uint"
                | "float"
                | "double"
        )
    )
}

/// A choice's values, each with its title if it has one.
struct Choices {
    list: Vec<(String, Option<String>)>,
    /// Whether any has a title (then the choice is shown titled, the others by their value).
    titled: bool,
}

impl Choices {
    fn values(&self) -> Value {
        self.list
            .iter()
            .map(|(value, _)| Value::from(value.as_str()))
            .collect()
    }

    fn const_titles(&self) -> Value {
        self.list
            .iter()
            .map(|(value, title)| {
                let mut choice = Map::new();
                choice.insert("const".into(), value.as_str().into());
                choice.insert("title".into(), title.as_deref().unwrap_or(value).into());
                Value::Object(choice)
            })
            .collect()
    }

    fn contains(&self, value: &Value) -> bool {
        value
            .as_str()
            .is_some_and(|value| self.list.iter().any(|(v, _)| v == value))
    }
}

/// The values of a choice, from schemars' forms of a unit enum: `enum` (no variant documented),
/// `const` (one variant), or `oneOf` whose branches are each a documented variant (`const` with
/// its `description` or `title`) or the undocumented ones together (`enum`).
fn choices(schema: &Map<String, Value>) -> Result<Choices, String> {
    let strings = |values: &Value| -> Result<Vec<String>, String> {
        values
            .as_array()
            .ok_or("`enum` is not a list")?
            .iter()
            .filter(|value| !value.is_null())
            .map(|value| {
                value
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("the choice {value} is not a string"))
            })
            .collect()
    };
    let mut list = Vec::new();
    let mut titled = false;
    if let Some(values) = schema.get("enum") {
        list.extend(strings(values)?.into_iter().map(|value| (value, None)));
    }
    if let Some(value) = schema.get("const") {
        let value = value
            .as_str()
            .ok_or_else(|| format!("the choice {value} is not a string"))?;
        list.push((value.to_owned(), None));
    }
    if let Some(branches) = schema.get("oneOf").or_else(|| schema.get("anyOf")) {
        for branch in branches.as_array().ok_or("`oneOf` is not a list")? {
            let branch = branch
                .as_object()
                .ok_or("a branch of `oneOf` is not a schema")?;
            let mut title = None;
            let mut values = Vec::new();
            for (key, value) in branch {
                match key.as_str() {
                    "type" if value == "string" => {}
                    "enum" => values.extend(strings(value)?),
                    "const" => values.push(
                        value
                            .as_str()
                            .ok_or_else(|| format!("the choice {value} is not a string"))?
                            .to_owned(),
                    ),
                    "title" | "description" => {
                        if title.is_some() {
                            return Err(
                                "a choice in an MCP form has a title and nothing more, and one \
                                 of its variants has both a title and a description: keep one \
                                 (one paragraph of doc comment, or `#[schemars(title)]`)"
                                    .into(),
                            );
                        }
                        title = Some(
                            value
                                .as_str()
                                .ok_or("a choice's title is not a string")?
                                .to_owned(),
                        );
                    }
                    other => return Err(not_carried(other, "one of its choices")),
                }
            }
            if title.is_some() && values.len() != 1 {
                return Err("a titled choice must be one value".into());
            }
            titled |= title.is_some();
            list.extend(values.into_iter().map(|value| (value, title.clone())));
        }
    }
    if list.is_empty() {
        return Err("a choice with no values".into());
    }
    Ok(Choices { list, titled })
}

/// A choice's `enumNames` (the legacy way to title an `enum`), checked to name every value.
fn legacy_names(schema: &Map<String, Value>, choices: &Choices) -> Result<Option<Value>, String> {
    let Some(names) = schema.get("enumNames") else {
        return Ok(None);
    };
    let Some(list) = names.as_array() else {
        return Err("`enumNames` is not a list".into());
    };
    if !list.iter().all(Value::is_string) {
        return Err("`enumNames` must be a list of strings".into());
    }
    if list.len() != choices.list.len() {
        return Err(format!(
            "`enumNames` has {} {} for {} choices: give one per choice, in order",
            list.len(),
            if list.len() == 1 { "name" } else { "names" },
            choices.list.len()
        ));
    }
    Ok(Some(names.clone()))
}

/// A field's `default` must be a value the field takes (MCP's form types it).
fn check_default(kind: Kind, value: &Value, schema: &Map<String, Value>) -> Result<(), String> {
    let fits = match kind {
        Kind::String => value.is_string(),
        Kind::Number => value.is_number(),
        Kind::Integer => value.as_i64().is_some(),
        Kind::Boolean => value.is_boolean(),
        Kind::Choice => choices(schema)?.contains(value),
        Kind::Choices => {
            let Some(Value::Object(items)) = schema.get("items") else {
                return Err(
                    "a list in a form is a multiple choice, and this one has no `items`".into(),
                );
            };
            let choices = choices(items)?;
            value
                .as_array()
                .is_some_and(|values| values.iter().all(|value| choices.contains(value)))
        }
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "its default {value} is not one of the values the field takes"
        ))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn field_of(schema: Value) -> Result<Value, String> {
        field(&schema).map(Value::Object)
    }

    #[test]
    fn choices_come_in_every_shape_mcp_has() {
        // Untitled single.
        assert_eq!(
            field_of(json!({"type": "string", "enum": ["a", "b"], "default": "b"})),
            Ok(json!({"type": "string", "enum": ["a", "b"], "default": "b"}))
        );
        // One variant: schemars writes `const`.
        assert_eq!(
            field_of(json!({"type": "string", "const": "only"})),
            Ok(json!({"type": "string", "enum": ["only"]}))
        );
        // Titled single, an undocumented variant titled by its value.
        assert_eq!(
            field_of(json!({"oneOf": [
                {"type": "string", "enum": ["d"]},
                {"type": "string", "const": "a", "description": "First"},
                {"type": "string", "const": "c", "title": "Third"}
            ]})),
            Ok(json!({"type": "string", "oneOf": [
                {"const": "d", "title": "d"},
                {"const": "a", "title": "First"},
                {"const": "c", "title": "Third"}
            ]}))
        );
        // Legacy titled.
        assert_eq!(
            field_of(
                json!({"type": ["string", "null"], "enum": ["a", "b", null], "enumNames": ["A", "B"]})
            ),
            Ok(json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}))
        );
        // Untitled multiple, titled multiple, and `enumNames` made titles.
        assert_eq!(
            field_of(
                json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 1})
            ),
            Ok(json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 1}))
        );
        assert_eq!(
            field_of(json!({"type": "array", "items": {"oneOf": [
                {"type": "string", "const": "a", "description": "A!"}
            ]}})),
            Ok(json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A!"}]}}))
        );
        assert_eq!(
            field_of(
                json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"], "description": "The enum's doc"}})
            ),
            Ok(
                json!({"type": "array", "description": "The enum's doc", "items": {"anyOf": [
                    {"const": "a", "title": "A"}, {"const": "b", "title": "B"}
                ]}})
            )
        );
    }

    #[test]
    fn defaults_reach_the_form_and_must_fit() {
        for (schema, default) in [
            (json!({"type": "string"}), json!("John Doe")),
            (json!({"type": "integer", "format": "int64"}), json!(30)),
            (json!({"type": "number", "format": "double"}), json!(95.5)),
            (json!({"type": "boolean"}), json!(true)),
            (json!({"type": "string", "enum": ["x", "y"]}), json!("y")),
            (
                json!({"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}),
                json!(["y"]),
            ),
        ] {
            let mut with = schema.clone();
            with["default"] = default.clone();
            assert_eq!(field_of(with).unwrap()["default"], default, "{schema}");
        }
        let wrong = field_of(json!({"type": "string", "enum": ["x"], "default": "z"}));
        assert!(wrong.unwrap_err().contains("default \"z\""));
        let wrong = field_of(json!({"type": "integer", "default": 1.5}));
        assert!(wrong.is_err());
        // `Option<T>` defaulting to `None`: absent is how a form says none.
        assert_eq!(
            field_of(json!({"type": ["string", "null"], "default": null})),
            Ok(json!({"type": "string"}))
        );
    }

    #[test]
    fn what_a_form_cannot_carry_is_refused_by_name() {
        for (schema, said) in [
            (json!({"type": "integer", "examples": [3]}), "`examples`"),
            (
                json!({"type": "integer", "deprecated": true}),
                "`deprecated`",
            ),
            (json!({"type": "string", "x-widget": "big"}), "`x-widget`"),
            (
                json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}),
                "1 name for 2 choices",
            ),
            (
                json!({"oneOf": [{"type": "string", "const": "a", "title": "A", "description": "more"}]}),
                "both a title and a description",
            ),
            (json!({"type": "object"}), "type `object`"),
            (
                json!({"type": "array", "items": {"type": "string"}}),
                "a choice with no values",
            ),
        ] {
            let why = field_of(schema.clone()).unwrap_err();
            assert!(why.contains(said), "{schema}: {why}");
        }
        // Rules the form cannot show stay out of it, and are checked on the answer.
        assert_eq!(
            field_of(
                json!({"type": "string", "pattern": "^a", "format": "hostname", "minLength": 1})
            ),
            Ok(json!({"type": "string", "minLength": 1}))
        );
    }
}
