//! Odd, plausible and invalid input schemas for `tooldef::convert`, generated from a fixed seed
//! so that a failure reproduces: every keyword of draft 2020-12, nested combinators,
//! `$defs`/`$ref` (recursive ones too), arrays without `items`, string formats, defaults in
//! every position, `null` types, enums of mixed types, older dialects (draft-07, 2019-09) with
//! their own keywords, and the invalid shapes MCP servers send (`"type": "strnig"`,
//! `"type": []`, a `required` that repeats names or is one string, a `$ref` that is not a
//! string…).
//!
//! The generator is a small deterministic PRNG (SplitMix64) rather than proptest's runner:
//! the cases are a fixed list to run through every target, not a property to shrink.

use serde_json::{Map, Value, json};

/// SplitMix64: small, fast, and the same sequence on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The seed the suite uses unless `HOSTILE_SEED` says otherwise.
pub const DEFAULT_SEED: u64 = 0x7001_DEF5;

/// How many cases the suite generates unless `HOSTILE_CASES` says otherwise.
pub const DEFAULT_CASES: usize = 1_200;

/// One generated tool, and whether its input schema was made invalid on purpose (and how).
#[derive(Debug, Clone)]
pub struct Case {
    /// Its number in the sequence.
    pub index: usize,
    /// The MCP tool (`name`, `description`, `inputSchema`).
    pub tool: Value,
    /// The invalidity injected, when one was.
    pub invalid: Option<&'static str>,
}

/// `count` cases from `seed`.
pub fn cases(seed: u64, count: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..count).map(|index| case(&mut rng, index)).collect()
}

const NAMES: &[&str] = &[
    "zeta",
    "alpha",
    "query",
    "limit",
    "mode",
    "b",
    "a",
    "path",
    "tags",
    "options",
    "id",
    "x_1",
    "Ünïcode",
    "with space",
    "m",
    "count",
    "filter",
    "z",
    "y",
    "when",
];
const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "null", "array", "object",
];
const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "email",
    "uri",
    "uuid",
    "int64",
    "int32",
    "float",
    "double",
    "byte",
    "enum",
    "hostname",
    "ipv4",
    "duration",
    "x-custom",
    "uint32",
];
const PATTERNS: &[&str] = &["^[a-z]+$", "^\\d{3}$", "(?=x)y", "^(a)\\1$", "[A-Z]"];

fn case(rng: &mut Rng, index: usize) -> Case {
    let mut g = Gen {
        rng: rng.clone(),
        defs: Vec::new(),
        depth: 0,
    };
    let mut root = g.object_node(true);
    if !g.defs.is_empty() || g.rng.chance(25) {
        g.add_defs(&mut root);
    }
    let invalid = if g.rng.chance(12) {
        Some(g.make_invalid(&mut root))
    } else {
        None
    };
    if invalid.is_none() && g.rng.chance(8) {
        g.older_dialect(&mut root);
    }
    *rng = g.rng;
    Case {
        index,
        tool: json!({
            "name": format!("odd_{index}"),
            "description": "An odd tool.",
            "inputSchema": root,
        }),
        invalid,
    }
}

struct Gen {
    rng: Rng,
    /// Names of the `$defs` the root will have (references may point at them).
    defs: Vec<String>,
    depth: usize,
}

impl Gen {
    fn object_node(&mut self, root: bool) -> Value {
        let mut node = Map::new();
        if root || self.rng.chance(80) {
            node.insert("type".into(), json!("object"));
        }
        let mut properties = Map::new();
        let count = self.rng.below(if root { 6 } else { 4 }) + usize::from(root);
        for _ in 0..count {
            let name = *self.rng.pick(NAMES);
            properties.insert(name.to_owned(), self.any_node());
        }
        let names: Vec<String> = properties.keys().cloned().collect();
        node.insert("properties".into(), Value::Object(properties));
        if !names.is_empty() && self.rng.chance(60) {
            let required: Vec<Value> = names
                .iter()
                .filter(|_| self.rng.chance(50))
                .map(|n| json!(n))
                .collect();
            node.insert("required".into(), Value::Array(required));
        }
        match self.rng.below(6) {
            0 => {
                node.insert("additionalProperties".into(), json!(false));
            }
            1 => {
                node.insert("additionalProperties".into(), self.leaf());
            }
            2 if !root => {
                node.insert("patternProperties".into(), json!({"^x-": self.leaf()}));
            }
            _ => {}
        }
        if !root {
            self.annotate(&mut node);
        }
        if self.rng.chance(10) {
            node.insert(
                "dependentRequired".into(),
                json!({ names.first().map_or("a", String::as_str): ["zz"] }),
            );
        }
        Value::Object(node)
    }

    fn any_node(&mut self) -> Value {
        if self.depth > 3 {
            return self.leaf();
        }
        self.depth += 1;
        let node = match self.rng.below(14) {
            0..=4 => self.leaf(),
            5 => self.object_node(false),
            6 => self.array_node(),
            7 => self.combinator("anyOf"),
            8 => self.combinator("oneOf"),
            9 => self.combinator("allOf"),
            10 => self.conditional(),
            11 => self.negation(),
            12 if !self.defs.is_empty() || self.rng.chance(50) => self.reference(),
            _ => self.leaf(),
        };
        self.depth -= 1;
        node
    }

    fn leaf(&mut self) -> Value {
        let mut node = Map::new();
        let ty = *self.rng.pick(TYPES);
        match self.rng.below(10) {
            0 => {
                node.insert("type".into(), json!([ty, "null"]));
            }
            1 => {
                let other = *self.rng.pick(TYPES);
                node.insert("type".into(), json!([ty, other]));
            }
            2 => {}
            _ => {
                node.insert("type".into(), json!(ty));
            }
        }
        match ty {
            "string" => {
                if self.rng.chance(40) {
                    node.insert("format".into(), json!(self.rng.pick(FORMATS)));
                }
                if self.rng.chance(20) {
                    node.insert("pattern".into(), json!(self.rng.pick(PATTERNS)));
                }
                if self.rng.chance(20) {
                    node.insert("minLength".into(), json!(self.rng.below(3)));
                    node.insert("maxLength".into(), json!(5 + self.rng.below(10)));
                }
            }
            "integer" | "number" => {
                if self.rng.chance(30) {
                    node.insert("format".into(), json!(self.rng.pick(FORMATS)));
                }
                match self.rng.below(5) {
                    0 => {
                        node.insert("minimum".into(), json!(0));
                        node.insert("maximum".into(), json!(10));
                    }
                    1 => {
                        node.insert("exclusiveMinimum".into(), json!(0.5));
                    }
                    2 => {
                        node.insert("multipleOf".into(), json!(5));
                    }
                    _ => {}
                }
            }
            "array" if self.rng.chance(50) => {
                node.insert("minItems".into(), json!(1));
            }
            _ => {}
        }
        match self.rng.below(12) {
            0 => {
                node.insert("enum".into(), json!(["a", 1, null, true, ""]));
            }
            1 => {
                node.insert("enum".into(), json!(["x", "y"]));
            }
            2 => {
                node.insert("const".into(), json!(self.rng.pick(&["k", "7"])));
            }
            _ => {}
        }
        self.annotate(&mut node);
        Value::Object(node)
    }

    fn annotate(&mut self, node: &mut Map<String, Value>) {
        if self.rng.chance(30) {
            node.insert("description".into(), json!("Some words."));
        }
        if self.rng.chance(10) {
            node.insert("title".into(), json!("A Title"));
        }
        if self.rng.chance(25) {
            let value = self
                .rng
                .pick(&[
                    json!(3),
                    json!("auto"),
                    json!(null),
                    json!([1]),
                    json!({"k": 1}),
                ])
                .clone();
            node.insert("default".into(), value);
        }
        match self.rng.below(20) {
            0 => {
                node.insert("examples".into(), json!(["e1", 2]));
            }
            1 => {
                node.insert("deprecated".into(), json!(true));
            }
            2 => {
                node.insert("readOnly".into(), json!(true));
            }
            3 => {
                node.insert("x-vendor".into(), json!({"a": 1}));
            }
            4 => {
                node.insert("$comment".into(), json!("note"));
            }
            _ => {}
        }
    }

    fn array_node(&mut self) -> Value {
        let mut node = Map::new();
        node.insert("type".into(), json!("array"));
        match self.rng.below(5) {
            0 => {} // no `items`
            1 => {
                node.insert("prefixItems".into(), json!([self.leaf(), self.leaf()]));
                if self.rng.chance(50) {
                    node.insert("items".into(), json!(false));
                }
            }
            2 => {
                node.insert("contains".into(), self.leaf());
                node.insert("minContains".into(), json!(1));
            }
            _ => {
                node.insert("items".into(), self.any_node());
            }
        }
        if self.rng.chance(20) {
            node.insert("uniqueItems".into(), json!(true));
        }
        if self.rng.chance(10) {
            node.insert("unevaluatedItems".into(), json!(false));
        }
        self.annotate(&mut node);
        Value::Object(node)
    }

    fn combinator(&mut self, keyword: &str) -> Value {
        let count = 1 + self.rng.below(3);
        let branches: Vec<Value> = (0..count).map(|_| self.any_node()).collect();
        let mut node = Map::new();
        node.insert(keyword.into(), Value::Array(branches));
        if self.rng.chance(30) {
            node.insert("type".into(), json!(self.rng.pick(TYPES)));
        }
        self.annotate(&mut node);
        Value::Object(node)
    }

    fn conditional(&mut self) -> Value {
        let mut node = Map::new();
        node.insert("type".into(), json!(self.rng.pick(&["string", "integer"])));
        node.insert("if".into(), self.leaf());
        if self.rng.chance(80) {
            node.insert("then".into(), self.leaf());
        }
        if self.rng.chance(60) {
            node.insert("else".into(), self.leaf());
        }
        self.annotate(&mut node);
        Value::Object(node)
    }

    fn negation(&mut self) -> Value {
        let mut node = Map::new();
        if self.rng.chance(50) {
            node.insert("type".into(), json!(self.rng.pick(TYPES)));
        }
        node.insert("not".into(), self.leaf());
        self.annotate(&mut node);
        Value::Object(node)
    }

    fn reference(&mut self) -> Value {
        if self.defs.is_empty() || self.rng.chance(20) {
            let name = format!("D{}", self.defs.len());
            self.defs.push(name);
        }
        let name = self.rng.pick(&self.defs).clone();
        let mut node = Map::new();
        node.insert("$ref".into(), json!(format!("#/$defs/{name}")));
        if self.rng.chance(30) {
            node.insert("description".into(), json!("Beside the reference."));
        }
        if self.rng.chance(15) {
            node.insert("default".into(), json!({"v": 1}));
        }
        Value::Object(node)
    }

    fn add_defs(&mut self, root: &mut Value) {
        if self.defs.is_empty() {
            self.defs.push("D0".to_owned());
        }
        let mut defs = Map::new();
        for name in self.defs.clone() {
            let def = match self.rng.below(4) {
                // Recursive: a node whose property refers back to its own definition.
                0 => json!({
                    "type": "object",
                    "properties": {
                        "value": self.leaf(),
                        "next": {"$ref": format!("#/$defs/{name}")}
                    }
                }),
                1 => json!({"$ref": "#"}),
                _ => {
                    self.depth = 3;
                    let node = self.any_node();
                    self.depth = 0;
                    node
                }
            };
            defs.insert(name, def);
        }
        if let Value::Object(root) = root {
            root.insert("$defs".into(), Value::Object(defs));
        }
    }

    /// Rewrites the schema as an older draft would have it, declared by `$schema`.
    fn older_dialect(&mut self, root: &mut Value) {
        let Value::Object(map) = root else { return };
        let properties = map.entry("properties").or_insert_with(|| json!({}));
        if let Value::Object(properties) = properties {
            properties.insert(
                "pair".into(),
                json!({"type": "array", "items": [{"type": "string"}, {"type": "integer"}],
                       "additionalItems": false, "default": ["a", 1]}),
            );
        }
        if self.rng.chance(50) {
            map.insert(
                "dependencies".into(),
                json!({"pair": ["zeta"], "zeta": {"required": ["pair"]}}),
            );
        }
        let dialect = if self.rng.chance(70) {
            "http://json-schema.org/draft-07/schema#"
        } else {
            "https://json-schema.org/draft/2019-09/schema"
        };
        map.shift_insert(0, "$schema".into(), json!(dialect));
        if let Some(defs) = map.shift_remove("$defs") {
            // draft-07's name for `$defs`; references follow.
            let text = serde_json::to_string(&Value::Object(map.clone()))
                .unwrap_or_default()
                .replace("#/$defs/", "#/definitions/");
            if let Ok(Value::Object(renamed)) = serde_json::from_str(&text) {
                *map = renamed;
            }
            let defs_text = serde_json::to_string(&defs)
                .unwrap_or_default()
                .replace("#/$defs/", "#/definitions/");
            map.insert(
                "definitions".into(),
                serde_json::from_str(&defs_text).unwrap_or(defs),
            );
        }
    }

    /// Breaks the schema in one of the ways real servers do; returns which.
    fn make_invalid(&mut self, root: &mut Value) -> &'static str {
        let Value::Object(map) = root else {
            return "none";
        };
        let first = map
            .get("properties")
            .and_then(Value::as_object)
            .and_then(|p| p.keys().next().cloned());
        let kind = *self.rng.pick(&[
            "misspelt type",
            "empty type list",
            "duplicate required",
            "required as a string",
            "ref not a string",
            "minimum as a string",
            "properties as a list",
            "items as a string",
            "negative minLength",
            "required: true on a property",
            "duplicate type",
        ]);
        let props = map
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .expect("properties is an object");
        let name = first.unwrap_or_else(|| "added".to_owned());
        let mut bad = |value: Value| {
            props.insert(name.clone(), value);
        };
        match kind {
            "misspelt type" => {
                bad(json!({"type": self.rng.pick(&["strnig", "integr", "bool", "int", "Object"])}))
            }
            "empty type list" => bad(json!({"type": []})),
            "duplicate required" => {
                let name = name.clone();
                map.insert("required".into(), json!([name, name]));
            }
            "required as a string" => {
                let name = name.clone();
                map.insert("required".into(), json!(name));
            }
            "ref not a string" => bad(json!({"$ref": {"$defs": "X"}})),
            "minimum as a string" => bad(json!({"type": "integer", "minimum": "5"})),
            "properties as a list" => bad(json!({"type": "object", "properties": ["a", "b"]})),
            "items as a string" => bad(json!({"type": "array", "items": "string"})),
            "negative minLength" => bad(json!({"type": "string", "minLength": -1})),
            "required: true on a property" => bad(json!({"type": "string", "required": true})),
            _ => bad(json!({"type": ["string", "null", "string"]})),
        }
        kind
    }
}
