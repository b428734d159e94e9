//! Invalid instances: one mutation of a valid instance at a random place, chosen from what the
//! schema says there (a wrong JSON type, a number past a bound or not an integer or not a
//! multiple, a string too short or too long or off its pattern or format, a value outside an
//! enum, a required property missing, an unknown property on a closed object, too many or too
//! few items, duplicate items in a set), and, rarely, arguments that are not an object. The
//! caller confirms each is invalid against the schema it was meant to break.

use serde_json::{Number, Value, json};

use super::branch::{branch_for, escape, item_schema, property_schema, required};
use super::node::{self, declared_types};
use super::numbers::{self, integer_range, next_down, next_up};
use super::rng::Rng;
use super::{formats, strings};

/// Every place in an instance, as JSON Pointers (the root last), each with whether it holds an
/// object or an array.
fn places(value: &Value, pointer: String, out: &mut Vec<(String, bool)>) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                places(child, format!("{pointer}/{}", escape(key)), out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                places(item, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push((pointer, value.is_object() || value.is_array()));
}

/// The schema node describing the value at `pointer` (`None`: nothing describes it).
fn node_at(root: &Value, instance: &Value, pointer: &str) -> Option<Value> {
    let mut schema: std::borrow::Cow<'_, Value> = std::borrow::Cow::Borrowed(root);
    let mut value = instance;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        let node = branch_for(root, value, &schema);
        let (child_schema, child) = match value {
            Value::Object(object) => (property_schema(&node, &token)?.clone(), object.get(&token)?),
            Value::Array(items) => {
                let i: usize = token.parse().ok()?;
                (item_schema(&node, i).clone(), items.get(i)?)
            }
            _ => return None,
        };
        schema = std::borrow::Cow::Owned(child_schema);
        value = child;
    }
    Some(branch_for(root, value, &schema).into_owned())
}

/// A mutation of `valid` (an instance of `root`): the mutated instance, what was done, and the
/// family of the mutation (`type`, `range`, `required`, …); `None` when no mutation applies
/// where it looked.
pub fn mutate(root: &Value, valid: &Value, rng: &mut Rng) -> Option<(Value, String, &'static str)> {
    if rng.chance(0.01) {
        let replacement = rng
            .pick(&[json!([]), json!("arguments"), json!(3), json!(true)])
            .clone();
        return Some((
            replacement,
            "arguments that are not an object".to_owned(),
            "root",
        ));
    }
    let mut all = Vec::new();
    places(valid, String::new(), &mut all);
    // Containers a third of the time: they are few, and hold the object and array mutations.
    let containers: Vec<&(String, bool)> = all.iter().filter(|(_, c)| *c).collect();
    let pointer = if !containers.is_empty() && rng.chance(0.33) {
        rng.pick(&containers).0.clone()
    } else {
        rng.pick(&all).0.clone()
    };
    let node = node_at(root, valid, &pointer)?;
    let current = valid.pointer(&pointer)?.clone();
    let (replacement, what, family) = mutation(&node, &current, rng)?;
    let mut mutated = valid.clone();
    *mutated.pointer_mut(&pointer)? = replacement;
    Some((mutated, format!("{what} at `{pointer}`"), family))
}

/// A value of a JSON type `types` does not allow, never `null` (which a left-out optional
/// property may be) and never an integer where numbers are allowed.
fn of_another_type(types: &[String], rng: &mut Rng) -> Option<Value> {
    let allows = |t: &str| {
        types
            .iter()
            .any(|x| x == t || (t == "integer" && x == "number"))
    };
    let others: Vec<Value> = [
        ("string", json!("7")),
        ("integer", json!(7)),
        ("boolean", json!(true)),
        ("array", json!([1])),
        ("object", json!({"k": 1})),
    ]
    .into_iter()
    .filter(|(t, _)| !allows(t))
    .map(|(_, v)| v)
    .collect();
    (!others.is_empty()).then(|| rng.pick(&others).clone())
}

/// Several faults in one object: two or more of its properties each given a value of a JSON
/// type its schema does not allow, each confirmed by `invalid` to break the instance alone. The
/// mutated instance and the places broken; `None` when no object of `valid` has two properties
/// that can be broken so.
pub fn break_siblings(
    root: &Value,
    valid: &Value,
    invalid: impl Fn(&Value) -> bool,
    rng: &mut Rng,
) -> Option<(Value, Vec<String>)> {
    let mut all = Vec::new();
    places(valid, String::new(), &mut all);
    let mut objects: Vec<Vec<(String, Value)>> = Vec::new();
    for (pointer, _) in all.iter().filter(|(_, container)| *container) {
        let Some(Value::Object(object)) = valid.pointer(pointer) else {
            continue;
        };
        let mut breakable = Vec::new();
        for key in object.keys() {
            let place = format!("{pointer}/{}", escape(key));
            let Some(node) = node_at(root, valid, &place) else {
                continue;
            };
            // A tag (`"op": "insert"`) chooses what its siblings must be: with it broken, the
            // others cannot be judged, and naming the tag alone is the right answer.
            let tag = node.get("const").is_some()
                || node
                    .get("enum")
                    .and_then(Value::as_array)
                    .is_some_and(|values| values.len() == 1);
            let Some(types) = declared_types(&node).filter(|_| !tag) else {
                continue;
            };
            let Some(replacement) = of_another_type(&types, rng) else {
                continue;
            };
            let mut alone = valid.clone();
            *alone.pointer_mut(&place)? = replacement.clone();
            if invalid(&alone) {
                breakable.push((place, replacement));
            }
        }
        if breakable.len() >= 2 {
            objects.push(breakable);
        }
    }
    if objects.is_empty() {
        return None;
    }
    let mut chosen = rng.pick(&objects).clone();
    rng.shuffle(&mut chosen);
    chosen.truncate(rng.between(2, chosen.len()));
    let mut mutated = valid.clone();
    for (place, replacement) in &chosen {
        *mutated.pointer_mut(place)? = replacement.clone();
    }
    Some((
        mutated,
        chosen.into_iter().map(|(place, _)| place).collect(),
    ))
}

/// One kind of mutation: its family (what the choice is balanced over), the value, and what it
/// did.
type Options = Vec<(&'static str, Value, String)>;

fn mutation(node: &Value, current: &Value, rng: &mut Rng) -> Option<(Value, String, &'static str)> {
    let types = declared_types(node);
    let mut options: Options = Vec::new();
    // A value of another JSON type.
    if let Some(types) = &types {
        let allows = |t: &str| {
            types
                .iter()
                .any(|x| x == t || (t == "integer" && x == "number"))
        };
        let others: Vec<(&str, Value)> = vec![
            ("string", json!("7")),
            ("integer", json!(7)),
            ("number", json!(2.5)),
            ("boolean", json!(true)),
            ("null", Value::Null),
            ("array", json!([1])),
            ("object", json!({"k": 1})),
        ];
        for (t, v) in others {
            if !allows(t) {
                let expected = types.join(" or ");
                let article = if t.starts_with(['a', 'i', 'o']) {
                    "an"
                } else {
                    "a"
                };
                options.push((
                    "type",
                    v,
                    format!("{article} {t} where {expected} is expected"),
                ));
            }
        }
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array)
        && current.is_string()
    {
        let s = format!("{}_unknown", current.as_str().unwrap_or_default());
        if !values.contains(&Value::String(s.clone())) {
            options.push((
                "enum",
                Value::String(s),
                "a value outside the enum".to_owned(),
            ));
        }
    }
    if let Some(s) = node.get("const").and_then(Value::as_str) {
        options.push((
            "enum",
            json!(format!("{s}x")),
            "a value other than the const".to_owned(),
        ));
    }
    match current {
        Value::Number(n) => number_mutations(node, n, rng, &mut options),
        Value::String(s) => string_mutations(node, s, rng, &mut options),
        Value::Array(items) => array_mutations(node, items, &mut options),
        Value::Object(object) => {
            for key in required(node) {
                if object.contains_key(&key) {
                    let mut smaller = object.clone();
                    smaller.remove(&key);
                    options.push((
                        "required",
                        Value::Object(smaller),
                        "a required property left out".to_owned(),
                    ));
                }
            }
            if node.get("additionalProperties") == Some(&Value::Bool(false))
                || (node.get("properties").is_some() && node.get("additionalProperties").is_none())
            {
                let mut bigger = object.clone();
                bigger.insert("unexpected_extra".to_owned(), json!(1));
                options.push((
                    "unknown",
                    Value::Object(bigger),
                    "an unknown property".to_owned(),
                ));
            }
            if let Some(value_schema) = node.get("additionalProperties").filter(|a| a.is_object()) {
                // A map entry of the wrong type.
                let wrong = if node::has_type(
                    &json!("x"),
                    value_schema
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("string"),
                ) {
                    json!({"k": 1})
                } else {
                    json!("not the value type")
                };
                let mut bigger = object.clone();
                bigger.insert("entry".to_owned(), wrong);
                options.push((
                    "map",
                    Value::Object(bigger),
                    "a map entry of the wrong type".to_owned(),
                ));
            }
        }
        _ => {}
    }
    // A family first, then one of its mutations: wrong types would otherwise crowd out the rest.
    let mut families: Vec<&str> = options.iter().map(|(f, _, _)| *f).collect();
    families.sort_unstable();
    families.dedup();
    if families.is_empty() {
        return None;
    }
    let family = *rng.pick(&families);
    let chosen: Vec<&(&str, Value, String)> =
        options.iter().filter(|(f, _, _)| *f == family).collect();
    let (family, value, what) = rng.pick(&chosen);
    Some((value.clone(), what.clone(), family))
}

fn number_mutations(node: &Value, n: &Number, rng: &mut Rng, options: &mut Options) {
    let types = declared_types(node).unwrap_or_default();
    let integer = types.iter().any(|t| t == "integer") && !types.iter().any(|t| t == "number");
    let x = n.as_f64().unwrap_or(0.0);
    if integer {
        options.push((
            "integer",
            json!(x.trunc() + 0.5),
            "a fraction where an integer is expected".to_owned(),
        ));
        let (lo, hi) = integer_range(node);
        if let Some(lo) = lo {
            options.push((
                "range",
                numbers::integer_json(lo - 1, rng, 0.2),
                "an integer below the minimum".to_owned(),
            ));
        }
        if let Some(hi) = hi {
            options.push((
                "range",
                numbers::integer_json(hi + 1, rng, 0.2),
                "an integer above the maximum".to_owned(),
            ));
        }
    } else {
        let float = |f: f64| Number::from_f64(f).map(Value::Number);
        if let Some(lo) = node.get("minimum").and_then(Value::as_f64)
            && let Some(v) = float(if rng.chance(0.5) {
                next_down(lo)
            } else {
                lo - 1.0
            })
        {
            options.push(("range", v, "a number below the minimum".to_owned()));
        }
        if let Some(hi) = node.get("maximum").and_then(Value::as_f64)
            && let Some(v) = float(if rng.chance(0.5) {
                next_up(hi)
            } else {
                hi + 1.0
            })
        {
            options.push(("range", v, "a number above the maximum".to_owned()));
        }
        if let Some(lo) = node.get("exclusiveMinimum").and_then(Value::as_f64)
            && let Some(v) = float(lo)
        {
            options.push((
                "range",
                v,
                "a number equal to the exclusive minimum".to_owned(),
            ));
        }
        if let Some(hi) = node.get("exclusiveMaximum").and_then(Value::as_f64)
            && let Some(v) = float(hi)
        {
            options.push((
                "range",
                v,
                "a number equal to the exclusive maximum".to_owned(),
            ));
        }
    }
    if let Some(m) = node.get("multipleOf").and_then(Value::as_f64)
        && let Some(v) = Number::from_f64(x + if integer && m >= 2.0 { 1.0 } else { m / 2.0 })
    {
        options.push((
            "multiple",
            Value::Number(v),
            "a number that is not a multiple".to_owned(),
        ));
    }
}

fn string_mutations(node: &Value, s: &str, rng: &mut Rng, options: &mut Options) {
    if let Some(min) = node.get("minLength").and_then(Value::as_u64)
        && min > 0
    {
        let shorter: String = s.chars().take(min as usize - 1).collect();
        options.push((
            "length",
            json!(shorter),
            "a string shorter than minLength".to_owned(),
        ));
    }
    if let Some(max) = node.get("maxLength").and_then(Value::as_u64) {
        let mut longer = s.to_owned();
        while strings::length(&longer) <= max as usize {
            longer.push(strings::character(rng));
        }
        options.push((
            "length",
            json!(longer),
            "a string longer than maxLength".to_owned(),
        ));
    }
    if node.get("pattern").is_some() {
        let broken = match rng.weighted(&[1, 1, 1]) {
            0 => format!("{s} !"),
            1 => format!("!{s}"),
            _ => String::new(),
        };
        options.push((
            "pattern",
            json!(broken),
            "a string off the pattern".to_owned(),
        ));
    }
    if let Some(format) = node.get("format").and_then(Value::as_str) {
        options.push((
            "format",
            json!(formats::invalid(format, rng)),
            format!("a string that is not a valid `{format}`"),
        ));
    }
}

fn array_mutations(node: &Value, items: &[Value], options: &mut Options) {
    if let Some(max) = node.get("maxItems").and_then(Value::as_u64) {
        let mut more = items.to_vec();
        let filler = items.last().cloned().unwrap_or(json!(1));
        while more.len() <= max as usize {
            more.push(filler.clone());
        }
        options.push((
            "items",
            Value::Array(more),
            "more items than maxItems".to_owned(),
        ));
    }
    if let Some(min) = node.get("minItems").and_then(Value::as_u64)
        && min > 0
    {
        options.push((
            "items",
            Value::Array(items[..(min as usize - 1).min(items.len())].to_vec()),
            "fewer items than minItems".to_owned(),
        ));
    }
    if node.get("uniqueItems") == Some(&Value::Bool(true)) && !items.is_empty() {
        let mut twice = items.to_vec();
        twice.push(items[0].clone());
        options.push((
            "unique",
            Value::Array(twice),
            "a duplicate item in a set".to_owned(),
        ));
    }
}
