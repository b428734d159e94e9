//! Walking a JSON instance alongside the schema that describes it: every value is visited with
//! the schema branches that may describe it (its `$ref` resolved, its `anyOf`/`oneOf`/`allOf`
//! flattened). The argument pipeline rewrites and checks arguments with it, and canonicalisation
//! walks a `default` with it. Depth is bounded by the data, which the argument limits bound.

use serde_json::Value;

/// Called on every value met, with the schema branches that may describe it.
pub(crate) type Visitor<'v> = dyn FnMut(&mut Value, &[&Value]) + 'v;

/// Visits `data` and then its children (those that remain after the visit), each with the
/// branches of `schema` (resolved against `root`) that describe it.
pub(crate) fn walk_mut(data: &mut Value, schema: &Value, root: &Value, visit: &mut Visitor<'_>) {
    let branches = branches(schema, root);
    visit(data, &branches);
    match data {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if let Some(child) = property_schema(&branches, key) {
                    walk_mut(value, child, root, visit);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(child) = item_schema(&branches, index) {
                    walk_mut(item, child, root, visit);
                }
            }
        }
        _ => {}
    }
}

/// Called on every value met, with the branches that describe it and its path.
pub(crate) type PathVisitor<'d, 'v> = dyn FnMut(&'d Value, &[&Value], &[Step<'d>]) + 'v;

/// One step of the path from the root of an instance to a value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    /// A property of an object.
    Key(&'a str),
    /// An item of an array.
    Index(usize),
}

/// The JSON Pointer of a path.
pub(crate) fn pointer(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        out.push('/');
        match step {
            Step::Key(key) => out.push_str(&key.replace('~', "~0").replace('/', "~1")),
            Step::Index(index) => out.push_str(&index.to_string()),
        }
    }
    out
}

/// Visits `data` and its children without changing them, each with its path and the branches
/// that describe it.
pub(crate) fn walk<'d>(
    data: &'d Value,
    schema: &Value,
    root: &Value,
    path: &mut Vec<Step<'d>>,
    visit: &mut PathVisitor<'d, '_>,
) {
    let branches = branches(schema, root);
    visit(data, &branches, path);
    match data {
        Value::Object(map) => {
            for (key, value) in map {
                if let Some(child) = property_schema(&branches, key) {
                    path.push(Step::Key(key));
                    walk(value, child, root, path, visit);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                if let Some(child) = item_schema(&branches, index) {
                    path.push(Step::Index(index));
                    walk(item, child, root, path, visit);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// The schema of the property `key`: declared in `properties`, else `additionalProperties` when
/// it is a schema (a map's values).
fn property_schema<'s>(branches: &[&'s Value], key: &str) -> Option<&'s Value> {
    branches
        .iter()
        .find_map(|b| b.get("properties").and_then(|p| p.get(key)))
        .or_else(|| {
            branches
                .iter()
                .find_map(|b| b.get("additionalProperties").filter(|a| a.is_object()))
        })
}

/// The schema of the item at `index`: its `prefixItems` entry, else `items`.
fn item_schema<'s>(branches: &[&'s Value], index: usize) -> Option<&'s Value> {
    branches
        .iter()
        .find_map(|b| {
            b.get("prefixItems")
                .and_then(Value::as_array)
                .and_then(|p| p.get(index))
        })
        .or_else(|| {
            branches
                .iter()
                .find_map(|b| b.get("items").filter(|i| i.is_object()))
        })
}

/// The schemas that may describe a value: the schema itself (its `$ref` resolved) and the
/// branches of its `anyOf`/`oneOf`/`allOf`, flattened.
pub(crate) fn branches<'s>(schema: &'s Value, root: &'s Value) -> Vec<&'s Value> {
    let mut out = Vec::new();
    let mut pending = vec![schema];
    // Bounded: a schema whose refs loop without data between them must not loop here.
    let mut budget = 64;
    while let Some(schema) = pending.pop() {
        budget -= 1;
        if budget == 0 {
            break;
        }
        let schema = resolve(schema, root);
        out.push(schema);
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(list) = schema.get(key).and_then(Value::as_array) {
                pending.extend(list.iter().rev());
            }
        }
    }
    out
}

fn resolve<'s>(schema: &'s Value, root: &'s Value) -> &'s Value {
    let mut schema = schema;
    for _ in 0..16 {
        match schema.get("$ref").and_then(Value::as_str) {
            Some("#") => schema = root,
            Some(reference) => match reference.strip_prefix('#').and_then(|p| root.pointer(p)) {
                Some(target) => schema = target,
                None => return schema,
            },
            None => return schema,
        }
    }
    schema
}

/// The JSON types a branch names in `type` (none when it names none).
pub(crate) fn types(branch: &Value) -> Vec<&str> {
    match branch.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

/// The JSON types the branches name, together.
pub(crate) fn types_of<'s>(branches: &[&'s Value]) -> Vec<&'s str> {
    branches.iter().flat_map(|b| types(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_value_is_visited_with_its_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tree": {"$ref": "#/$defs/Tree"},
                "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
                "map": {"type": "object", "additionalProperties": {"type": "number"}}
            },
            "$defs": {"Tree": {"type": "object", "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
            }}}
        });
        let data = json!({
            "tree": {"value": 1, "children": [{"value": 2, "children": []}]},
            "pair": [1, "a"],
            "map": {"x": 1.5}
        });
        let mut seen = Vec::new();
        walk(
            &data,
            &schema,
            &schema,
            &mut Vec::new(),
            &mut |value, branches, path| {
                if !value.is_object() && !value.is_array() {
                    seen.push((pointer(path), types_of(branches).join("|")));
                }
            },
        );
        assert_eq!(
            seen,
            [
                ("/tree/value".to_owned(), "integer".to_owned()),
                ("/tree/children/0/value".to_owned(), "integer".to_owned()),
                ("/pair/0".to_owned(), "integer".to_owned()),
                ("/pair/1".to_owned(), "string".to_owned()),
                ("/map/x".to_owned(), "number".to_owned()),
            ]
        );
    }
}
