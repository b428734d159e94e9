//! Valid instances of a schema, generated from the schema alone: `type` (one or several,
//! `null` among them), `enum`, `const`, `anyOf`/`oneOf`/`allOf`, local `$ref`s (recursion kept
//! in check by a depth and size budget), numbers within their bounds, strings by `format`,
//! `pattern` or length, arrays (`items`, `prefixItems`, `minItems`/`maxItems`, `uniqueItems`)
//! and objects (`properties`, `required`, `additionalProperties` as a map's value schema).
//!
//! What the generator does not invent: properties an object with declared `properties` does
//! not declare (the model is not told it may send them, even where the schema leaves the object
//! open, as Gemini's always are). Each instance is checked against the schema by the caller;
//! the generator itself only aims.

use serde_json::{Map, Value};

use super::node::{self, declared_types, json_equal, mentions_ref};
use super::rng::Rng;
use super::{formats, numbers, patterns, strings};

/// How an instance is shaped.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// How often a nullable value is `null`.
    pub null_rate: f64,
    /// How often an optional property is sent.
    pub optional_rate: f64,
    /// How often an integer is written as an integer-valued float (`3.0`).
    pub float_rate: f64,
    /// Past this JSON depth, values are made as small as the schema allows.
    pub soft_depth: usize,
    /// Past this many values, likewise.
    pub max_values: usize,
    /// Recursive types go as deep as `soft_depth` along one path (arrays of one item).
    pub deep: bool,
}

impl Shape {
    /// A typical instance.
    pub fn normal() -> Shape {
        Shape {
            null_rate: 0.3,
            optional_rate: 0.6,
            float_rate: 0.15,
            soft_depth: 10,
            max_values: 120,
            deep: false,
        }
    }

    /// A deep one: a recursive type nested past 64 JSON levels along one path.
    pub fn deep() -> Shape {
        Shape {
            null_rate: 0.2,
            optional_rate: 0.9,
            float_rate: 0.15,
            soft_depth: 90,
            max_values: 600,
            deep: true,
        }
    }
}

/// A generator of instances of one schema.
pub struct Generator<'s> {
    root: &'s Value,
    /// The random source.
    pub rng: Rng,
    shape: Shape,
    values: usize,
}

impl<'s> Generator<'s> {
    /// A generator of instances of `root`.
    pub fn new(root: &'s Value, rng: Rng, shape: Shape) -> Generator<'s> {
        Generator {
            root,
            rng,
            shape,
            values: 0,
        }
    }

    /// One instance of the root schema.
    pub fn instance(&mut self) -> Value {
        self.values = 0;
        self.value(self.root, 0)
    }

    /// Whether values must now be as small as the schema allows.
    fn minimal(&self, depth: usize) -> bool {
        depth >= self.shape.soft_depth || self.values >= self.shape.max_values
    }

    /// A value of `schema` at JSON depth `depth`.
    pub fn value(&mut self, schema: &Value, depth: usize) -> Value {
        self.values += 1;
        match schema {
            Value::Bool(true) => return self.any(depth),
            Value::Bool(false) => panic!("no instance satisfies the schema `false`"),
            Value::Object(map) if map.is_empty() => return self.any(depth),
            _ => {}
        }
        let root = self.root;
        let schema = node::plain(root, schema);
        let schema: &Value = &schema;
        if let Some(value) = schema.get("const") {
            return value.clone();
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                let branch = self.choose_branch(branches, depth);
                let merged = node::with_branch(root, schema, key, branch);
                return self.value(&merged, depth);
            }
        }
        let types = declared_types(schema);
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            let fitting: Vec<&Value> = values
                .iter()
                .filter(|v| {
                    types
                        .as_ref()
                        .is_none_or(|ts| ts.iter().any(|t| node::has_type(v, t)))
                })
                .collect();
            assert!(
                !fitting.is_empty(),
                "an enum with no value of its type: {schema}"
            );
            let non_null: Vec<&Value> = fitting.iter().copied().filter(|v| !v.is_null()).collect();
            let null_allowed = non_null.len() < fitting.len();
            if non_null.is_empty() || (null_allowed && self.null_now(depth)) {
                return Value::Null;
            }
            return (*self.rng.pick(&non_null)).clone();
        }
        let ty = match types {
            Some(types) if types.is_empty() => panic!("a node with no type: {schema}"),
            Some(types) => {
                let non_null: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
                if non_null.is_empty() || (non_null.len() < types.len() && self.null_now(depth)) {
                    "null".to_owned()
                } else {
                    (*self.rng.pick(&non_null)).clone()
                }
            }
            None => infer_type(schema).map_or_else(|| "any".to_owned(), str::to_owned),
        };
        match ty.as_str() {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.rng.chance(0.5)),
            "integer" => numbers::integer(schema, &mut self.rng, self.shape.float_rate),
            "number" => numbers::number(schema, &mut self.rng),
            "string" => Value::String(self.string(schema)),
            "array" => self.array(schema, depth),
            "object" => self.object(schema, depth),
            "any" => self.any(depth),
            other => panic!("unknown type `{other}` in {schema}"),
        }
    }

    fn null_now(&mut self, depth: usize) -> bool {
        self.minimal(depth) || self.rng.chance(self.shape.null_rate)
    }

    fn choose_branch<'b>(&mut self, branches: &'b [Value], depth: usize) -> &'b Value {
        assert!(!branches.is_empty(), "an empty anyOf/oneOf");
        if self.minimal(depth) {
            // Stop recursing: a branch without a `$ref`, `null` first.
            if let Some(null) = branches
                .iter()
                .find(|b| b.get("type") == Some(&Value::from("null")))
            {
                return null;
            }
            let simple: Vec<&Value> = branches.iter().filter(|b| !mentions_ref(b)).collect();
            if !simple.is_empty() {
                return simple[self.rng.below(simple.len() as u64) as usize];
            }
        } else if self.shape.deep {
            // Go down: a branch with a `$ref`, when there is one.
            let deeper: Vec<&Value> = branches.iter().filter(|b| mentions_ref(b)).collect();
            if !deeper.is_empty() && self.rng.chance(0.9) {
                return deeper[self.rng.below(deeper.len() as u64) as usize];
            }
        }
        self.rng.pick(branches)
    }

    fn string(&mut self, schema: &Value) -> String {
        let min = schema
            .get("minLength")
            .and_then(Value::as_u64)
            .map_or(0, |n| n as usize);
        let max = schema
            .get("maxLength")
            .and_then(Value::as_u64)
            .map(|n| n as usize);
        for _ in 0..20 {
            let s = if let Some(format) = schema.get("format").and_then(Value::as_str) {
                formats::generate(format, &mut self.rng).unwrap_or_else(|| {
                    panic!(
                        "the schema-instance generator does not know the format `{format}`; \
                         teach tests/src/schema_instances/formats.rs (known: {:?})",
                        formats::KNOWN
                    )
                })
            } else if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
                patterns::matching(pattern, &mut self.rng)
            } else {
                let hi = match max {
                    Some(max) => max,
                    None => match self.rng.weighted(&[6, 3, 1]) {
                        0 => min + 12,
                        1 => min + 40,
                        _ => min + 300,
                    },
                };
                let lo = if self.rng.chance(0.2) { hi } else { min };
                strings::text(&mut self.rng, lo.min(hi), hi)
            };
            let len = strings::length(&s);
            if len >= min && max.is_none_or(|max| len <= max) {
                return s;
            }
        }
        panic!("no string of {min}..{max:?} characters found for {schema}")
    }

    fn array(&mut self, schema: &Value, depth: usize) -> Value {
        let prefix: &[Value] = schema
            .get("prefixItems")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let items = schema.get("items");
        let min = schema
            .get("minItems")
            .and_then(Value::as_u64)
            .map_or(0, |n| n as usize);
        let mut max = schema
            .get("maxItems")
            .and_then(Value::as_u64)
            .map(|n| n as usize);
        if items == Some(&Value::Bool(false)) {
            max = Some(max.map_or(prefix.len(), |m| m.min(prefix.len())));
        }
        let len = if self.minimal(depth) {
            min
        } else if self.shape.deep && depth > 3 {
            min.max(1).min(max.unwrap_or(usize::MAX))
        } else {
            let hi = max.unwrap_or(min + if self.rng.chance(0.1) { 12 } else { 4 });
            let hi = hi.min(min + 12);
            self.rng.between(min, hi.max(min))
        };
        let unique = schema.get("uniqueItems") == Some(&Value::Bool(true));
        let mut out: Vec<Value> = Vec::with_capacity(len);
        let mut attempts = 0;
        while out.len() < len && attempts < len * 20 + 20 {
            attempts += 1;
            let item_schema = prefix
                .get(out.len())
                .or(items)
                .unwrap_or(&Value::Bool(true));
            let item = self.value(item_schema, depth + 1);
            if unique && out.iter().any(|existing| json_equal(existing, &item)) {
                continue;
            }
            out.push(item);
        }
        if out.len() < min {
            // Unique items ran out (a set of booleans, say): as many as there are.
            assert!(unique, "could not fill {min} items of {schema}");
        }
        Value::Array(out)
    }

    fn object(&mut self, schema: &Value, depth: usize) -> Value {
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<String> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        let minimal = self.minimal(depth);
        let mut out = Map::new();
        let mut names: Vec<&String> = properties.keys().collect();
        if self.rng.chance(0.25) {
            self.rng.shuffle(&mut names);
        }
        for name in names {
            let send =
                required.contains(name) || (!minimal && self.rng.chance(self.shape.optional_rate));
            if send {
                let value = self.value(&properties[name], depth + 1);
                out.insert(name.clone(), value);
            }
        }
        for name in &required {
            if !out.contains_key(name) {
                let value = self.any(depth + 1);
                out.insert(name.clone(), value);
            }
        }
        let extra_schema = match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(map_values @ Value::Object(_)) => Some(map_values),
            // An open object: only one that declares nothing (a map, as Gemini shows maps)
            // gets keys of its own.
            _ if properties.is_empty() => Some(&Value::Bool(true)),
            _ => None,
        };
        if let Some(value_schema) = extra_schema
            && !minimal
        {
            let max = schema
                .get("maxProperties")
                .and_then(Value::as_u64)
                .unwrap_or(8) as usize;
            let wanted = self.rng.between(0, 4).min(max.saturating_sub(out.len()));
            for _ in 0..wanted {
                let key = if self.rng.chance(0.7) {
                    strings::text(&mut self.rng, 1, 10)
                } else {
                    strings::text(&mut self.rng, 0, 3)
                };
                if properties.contains_key(&key) || out.contains_key(&key) {
                    continue;
                }
                let value = self.value(value_schema, depth + 1);
                out.insert(key, value);
            }
        }
        Value::Object(out)
    }

    /// Any JSON value, small.
    fn any(&mut self, depth: usize) -> Value {
        let kinds: &[u32] = if self.minimal(depth) || depth > 6 {
            &[1, 1, 1, 1, 1, 0, 0]
        } else {
            &[1, 1, 2, 2, 2, 1, 1]
        };
        match self.rng.weighted(kinds) {
            0 => Value::Null,
            1 => Value::Bool(self.rng.chance(0.5)),
            2 => numbers::integer(&Value::Null, &mut self.rng, self.shape.float_rate),
            3 => numbers::number(&Value::Null, &mut self.rng),
            4 => Value::String(strings::text(&mut self.rng, 0, 12)),
            5 => {
                let n = self.rng.between(0, 3);
                Value::Array((0..n).map(|_| self.any(depth + 1)).collect())
            }
            _ => {
                let n = self.rng.between(0, 3);
                let mut map = Map::new();
                for _ in 0..n {
                    let key = strings::text(&mut self.rng, 1, 8);
                    let value = self.any(depth + 1);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
        }
    }
}

/// The type a node without `type` implies by its keywords.
fn infer_type(schema: &Value) -> Option<&'static str> {
    let has = |k: &str| schema.get(k).is_some();
    if has("properties") || has("additionalProperties") || has("required") {
        Some("object")
    } else if has("items") || has("prefixItems") || has("minItems") || has("maxItems") {
        Some("array")
    } else if has("minLength") || has("maxLength") || has("pattern") || has("format") {
        Some("string")
    } else if has("minimum") || has("maximum") || has("multipleOf") {
        Some("number")
    } else {
        None
    }
}
