//! Which part of a schema describes a value: the node with its `$ref` resolved, its `allOf`
//! merged and, for `anyOf`/`oneOf`, the branch the value fits (by type, by the properties it
//! has, by the tags it carries), so that walks over an instance can follow the schema down.

use std::borrow::Cow;

use serde_json::Value;

use super::node::{self, declared_types, json_equal, plain, resolved};

/// Whether `value` plausibly belongs to the branch `schema`: its type is allowed, an object's
/// keys are declared (where the branch declares properties) and carries the branch's tags,
/// and a value pinned by `const`/`enum` is one of them.
pub fn fits(root: &Value, value: &Value, schema: &Value) -> bool {
    fits_with(root, value, schema, true)
}

/// [`fits`], optionally without asking an object for the properties the branch requires (an
/// instance about to have its absent properties filled in lacks them).
pub fn fits_with(root: &Value, value: &Value, schema: &Value, check_required: bool) -> bool {
    let schema = plain(root, schema);
    if let Some(c) = schema.get("const") {
        return json_equal(c, value);
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().any(|v| json_equal(v, value));
    }
    if let Some(types) = declared_types(&schema)
        && !types.iter().any(|t| node::has_type(value, t))
    {
        return false;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array)
            && !branches
                .iter()
                .any(|b| fits_with(root, value, b, check_required))
        {
            return false;
        }
    }
    if let (Some(object), Some(properties)) = (
        value.as_object(),
        schema.get("properties").and_then(Value::as_object),
    ) {
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false))
            || schema.get("additionalProperties").is_none();
        if closed && !object.keys().all(|k| properties.contains_key(k)) {
            return false;
        }
        let required_present = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .all(|k| object.contains_key(k));
        if check_required && !required_present {
            return false;
        }
        for (key, property) in properties {
            let property = resolved(root, property);
            let pinned = property.get("const").or_else(|| {
                property
                    .get("enum")
                    .and_then(Value::as_array)
                    .filter(|values| values.len() == 1)
                    .map(|values| &values[0])
            });
            if let (Some(tag), Some(got)) = (pinned, object.get(key))
                && !json_equal(tag, got)
            {
                return false;
            }
        }
    }
    true
}

/// The node that describes `value` under `schema`: `$ref` resolved, `allOf` merged, and the
/// fitting branch of an `anyOf`/`oneOf` merged in (the first that fits; else the first that
/// fits but for required properties; else the first of all). Repeated until no combinator is
/// left.
pub fn branch_for<'a>(root: &'a Value, value: &Value, schema: &'a Value) -> Cow<'a, Value> {
    let mut node = plain(root, schema);
    for _ in 0..16 {
        let Some(key) = ["anyOf", "oneOf"]
            .into_iter()
            .find(|k| node.get(*k).is_some_and(Value::is_array))
        else {
            return node;
        };
        let next = match &node {
            Cow::Borrowed(borrowed) => {
                let branches = borrowed[key].as_array().map_or(&[][..], Vec::as_slice);
                let chosen = choose(root, value, branches);
                node::with_branch(root, borrowed, key, chosen)
            }
            Cow::Owned(owned) => {
                let branches = owned[key].as_array().map_or(&[][..], Vec::as_slice);
                let chosen = choose(root, value, branches);
                Cow::Owned(node::with_branch(root, owned, key, chosen).into_owned())
            }
        };
        node = next;
    }
    node
}

static ANYTHING: Value = Value::Bool(true);

/// The branch `value` fits (the first; else the first it fits but for required properties;
/// else the first of all).
fn choose<'b>(root: &Value, value: &Value, branches: &'b [Value]) -> &'b Value {
    branches
        .iter()
        .find(|b| fits(root, value, b))
        .or_else(|| branches.iter().find(|b| fits_with(root, value, b, false)))
        .or(branches.first())
        .unwrap_or(&ANYTHING)
}

/// The schema of property `key` in the object node `node` (`None`: not described).
pub fn property_schema<'n>(node: &'n Value, key: &str) -> Option<&'n Value> {
    if let Some(property) = node.get("properties").and_then(|p| p.get(key)) {
        return Some(property);
    }
    match node.get("additionalProperties") {
        Some(Value::Bool(false)) => None,
        Some(other) => Some(other),
        None => Some(&ANYTHING),
    }
}

/// The schema of item `index` in the array node `node`.
pub fn item_schema(node: &Value, index: usize) -> &Value {
    if let Some(prefix) = node
        .get("prefixItems")
        .and_then(Value::as_array)
        .and_then(|p| p.get(index))
    {
        return prefix;
    }
    node.get("items").unwrap_or(&ANYTHING)
}

/// The property names an object node requires.
pub fn required(node: &Value) -> Vec<String> {
    node.get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// A JSON Pointer token.
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
