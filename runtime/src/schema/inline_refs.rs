//! `InlineRefs`: replacing local `$ref`s by the schemas they point at.
//!
//! Models read a schema top to bottom; a `$ref` makes them look elsewhere, and Gemini's
//! `parameters` cannot express one at all. Each reference is replaced by a copy of its target
//! (itself inlined), merged with the keywords written beside the `$ref`. A reference back to a
//! schema that is being inlined (an ancestor) would never end: it is kept as a `$ref` (with the
//! `$defs` entries it needs) when the target allows recursion, and is an error otherwise.

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::merge::{Conflict, merge_ref_siblings};
use super::node::take;
use super::walk::{Child, Loc, for_each_subschema_mut, recording, transform_subschemas_tracked};
use crate::report::{ChangeKind, Recorder};
use crate::{SchemaError, Target};

/// How many references one document may expand. Each expansion copies a subtree, and a chain
/// of definitions that each use the previous one twice doubles at every step: past this many,
/// references are kept as `$ref` (or, where recursion is refused, reported as one), so a hostile
/// foreign schema cannot exhaust memory.
const MAX_EXPANSIONS: usize = 2_000;

/// Where definitions live at the root, in draft 2020-12 and draft-07 spelling.
const DEF_KEYWORDS: [&str; 2] = ["$defs", "definitions"];

/// Inlines every local `$ref` (`#/$defs/X`, `#/definitions/X`, `#`, any `#/…` JSON Pointer).
///
/// The schema it transforms is taken as the document root (references resolve against it).
/// `Transform::transform` cannot fail, so the first error is kept and returned by
/// [`InlineRefs::finish`]; the schema is then partly transformed and must be discarded.
#[derive(Debug, Clone)]
pub(crate) struct InlineRefs {
    /// Keep recursive references as `$ref` (with their `$defs`) instead of failing.
    pub allow_recursion: bool,
    /// The target named in a [`SchemaError::Recursive`].
    target: Target,
    /// The first error met.
    error: Option<SchemaError>,
    /// The references inlined, and the definitions removed.
    pub rec: Recorder,
    /// Where recursion is allowed, keep every reference to a definition that contains itself
    /// (rather than writing out its first use): what makes rendering idempotent.
    keep_recursive: bool,
}

impl InlineRefs {
    /// Inlining for `target`; see [`InlineRefs::allow_recursion`].
    pub(crate) fn new(target: Target, allow_recursion: bool) -> Self {
        InlineRefs {
            allow_recursion,
            target,
            error: None,
            rec: Recorder::default(),
            keep_recursive: allow_recursion,
        }
    }

    /// The outcome: `Err` when a reference was unresolvable, or recursive while recursion is not
    /// allowed.
    pub(crate) fn finish(self) -> Result<(), SchemaError> {
        self.error.map_or(Ok(()), Err)
    }
}

impl Transform for InlineRefs {
    fn transform(&mut self, schema: &mut Schema) {
        if self.error.is_some() {
            return;
        }
        let original = schema.as_value().clone();
        let recursive = if self.keep_recursive {
            recursive_definitions(&original)
        } else {
            Vec::new()
        };
        let mut inliner = Inliner {
            root: &original,
            recursive: &recursive,
            keep_apart: self.target.is_openai(),
            allow_recursion: self.allow_recursion,
            locations: vec![Vec::new()],
            kept: Vec::new(),
            budget: MAX_EXPANSIONS,
            error: None,
            rec: std::mem::take(&mut self.rec),
        };
        match schema.get("$ref") {
            Some(Value::String(reference)) => {
                let reference = reference.clone();
                inliner.inline_ref(schema, &reference, true);
            }
            _ => inliner.inline_children(schema, true),
        }
        if inliner.error.is_none() {
            inliner.inline_needed_defs(schema);
        }
        match inliner.error {
            Some(InlineError::Unresolved(reference)) => {
                self.error = Some(SchemaError::UnresolvedRef { reference });
            }
            Some(InlineError::Recursive(reference)) => {
                self.error = Some(SchemaError::Recursive {
                    target: self.target,
                    reference,
                });
            }
            None => {
                let needed = inliner.needed_defs();
                for keyword in prune_defs(schema, &needed) {
                    inliner.rec.record_at(
                        String::new(),
                        ChangeKind::Removed {
                            keyword,
                            why: "every reference to its definitions was inlined".to_owned(),
                        },
                    );
                }
            }
        }
        self.rec = inliner.rec;
    }
}

/// Why inlining stopped.
enum InlineError {
    Unresolved(String),
    Recursive(String),
}

/// The state of one inlining pass over a document.
struct Inliner<'a> {
    /// The document as it was before inlining: references resolve against it.
    root: &'a Value,
    /// The definitions that contain themselves: where recursion is allowed, references to them
    /// stay references everywhere, so that rendering a rendering again changes nothing (were
    /// the first use inlined, each pass would write out one more level).
    recursive: &'a [Vec<String>],
    /// Move the keywords beside a reference that stays out of its node, next to an `anyOf` of
    /// the reference alone (OpenAI refuses any keyword beside a `$ref`).
    keep_apart: bool,
    allow_recursion: bool,
    /// The location (in `root`) of the node being visited, for each reference being inlined:
    /// `[document position, position inside the first target, …]`. A reference whose target is
    /// a prefix of any of them points at an ancestor.
    locations: Vec<Vec<String>>,
    /// Targets of the references kept in place (recursion), in the order met.
    kept: Vec<Vec<String>>,
    /// How many more references may be expanded (see [`MAX_EXPANSIONS`]).
    budget: usize,
    error: Option<InlineError>,
    /// The references inlined; its pointer is the output position of the node being visited.
    rec: Recorder,
}

impl Inliner<'_> {
    fn inline_node(&mut self, schema: &mut Schema) {
        if self.error.is_some() {
            return;
        }
        match schema.get("$ref") {
            Some(Value::String(reference)) => {
                let reference = reference.clone();
                self.inline_ref(schema, &reference, false);
            }
            _ => self.inline_children(schema, false),
        }
    }

    /// Inlines below `schema`; at the document root the definitions are skipped (only those
    /// still needed afterwards are visited, by [`Inliner::inline_needed_defs`]).
    fn inline_children(&mut self, schema: &mut Schema, skip_defs: bool) {
        for_each_subschema_mut(schema, |loc, sub| {
            if skip_defs && DEF_KEYWORDS.contains(&loc.keyword) {
                return;
            }
            let pushed = self.enter(loc);
            let len = self.rec.pointer.len();
            loc.push_to(&mut self.rec.pointer);
            self.inline_node(sub);
            self.rec.pointer.truncate(len);
            self.leave(pushed);
        });
    }

    fn enter(&mut self, loc: Loc<'_>) -> usize {
        let Some(here) = self.locations.last_mut() else {
            return 0;
        };
        here.push(loc.keyword.to_owned());
        match loc.child {
            Child::None => 1,
            Child::Name(name) => {
                here.push(name.to_owned());
                2
            }
            Child::Index(i) => {
                here.push(i.to_string());
                2
            }
        }
    }

    fn leave(&mut self, pushed: usize) {
        if let Some(here) = self.locations.last_mut() {
            here.truncate(here.len().saturating_sub(pushed));
        }
    }

    /// Replaces the reference node `schema` by its inlined target merged with its siblings;
    /// `at_root`: the node is the document root (its definitions are visited later, if needed).
    fn inline_ref(&mut self, schema: &mut Schema, reference: &str, at_root: bool) {
        let Some(path) = parse_ref(reference) else {
            self.error = Some(InlineError::Unresolved(reference.to_owned()));
            return;
        };
        let Some(target) = resolve(self.root, &path) else {
            self.error = Some(InlineError::Unresolved(reference.to_owned()));
            return;
        };
        let recursive = self.locations.iter().any(|l| l.starts_with(&path))
            || (!at_root && self.recursive.iter().any(|d| path.starts_with(d)));
        if recursive || self.budget == 0 {
            if !self.allow_recursion {
                self.error = Some(InlineError::Recursive(reference.to_owned()));
                return;
            }
            if !self.kept.contains(&path) {
                self.kept.push(path);
            }
            // The reference stays; keywords beside it may still hold references.
            self.inline_children(schema, at_root);
            if self.keep_apart && !at_root {
                keep_reference_apart(schema, &mut self.rec);
            }
            return;
        }
        self.budget -= 1;
        let Ok(mut target) = Schema::try_from(target.clone()) else {
            self.error = Some(InlineError::Unresolved(reference.to_owned()));
            return;
        };
        let mut siblings = schema.as_object().cloned().unwrap_or_default();
        take(&mut siblings, "$ref");
        let mut siblings = Schema::from(siblings);
        self.inline_children(&mut siblings, at_root);

        self.locations.push(path);
        self.inline_node(&mut target);
        self.locations.pop();

        let siblings = siblings.as_object().cloned().unwrap_or_default();
        self.rec.record(ChangeKind::Inlined {
            reference: reference.to_owned(),
        });
        let target = target.to_value();
        let merged = match merge_ref_siblings(target.clone(), siblings.clone()) {
            Ok(merged) => merged,
            Err(Conflict(keyword)) => {
                self.rec.record(ChangeKind::Rewritten {
                    from: format!(
                        "keywords beside the `$ref` that disagree with `{reference}` on `{keyword}`"
                    ),
                    to: "an `allOf` of the referenced schema and those keywords".to_owned(),
                });
                both_as_all_of(target, siblings)
            }
        };
        if let Ok(merged) = Schema::try_from(merged) {
            *schema = merged;
        }
    }

    /// Inlines inside the root definitions that kept references still point at, following the
    /// references kept inside them in turn.
    fn inline_needed_defs(&mut self, root: &mut Schema) {
        let mut done: Vec<(String, String)> = Vec::new();
        while let Some(def) = self.needed_defs().into_iter().find(|d| !done.contains(d)) {
            done.push(def.clone());
            let (keyword, name) = &def;
            let Some(entry) = root
                .get_mut(keyword.as_str())
                .and_then(Value::as_object_mut)
                .and_then(|defs| defs.get_mut(name.as_str()))
                .and_then(|v| <&mut Schema>::try_from(v).ok())
            else {
                continue;
            };
            self.locations = vec![vec![keyword.clone(), name.clone()]];
            self.rec.pointer.clear();
            Loc {
                keyword: keyword.as_str(),
                child: Child::Name(name.as_str()),
            }
            .push_to(&mut self.rec.pointer);
            self.inline_node(entry);
            self.rec.pointer.clear();
            if self.error.is_some() {
                return;
            }
        }
    }

    /// The root definitions (`(keyword, name)`) that kept references point into.
    fn needed_defs(&self) -> Vec<(String, String)> {
        let mut needed = Vec::new();
        for path in &self.kept {
            if let [keyword, name, ..] = path.as_slice()
                && DEF_KEYWORDS.contains(&keyword.as_str())
            {
                let def = (keyword.clone(), name.clone());
                if !needed.contains(&def) {
                    needed.push(def);
                }
            }
        }
        needed
    }
}

/// `{"$ref": r, <keywords>}` → `{<keywords>, "anyOf": [{"$ref": r}]}`: the same meaning, with
/// the reference alone in its node.
fn keep_reference_apart(schema: &mut Schema, rec: &mut Recorder) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    if node.len() < 2 || node.contains_key("anyOf") {
        return;
    }
    let Some(reference) = take(node, "$ref") else {
        return;
    };
    node.insert(
        "anyOf".to_owned(),
        Value::Array(vec![serde_json::json!({ "$ref": reference })]),
    );
    rec.record(ChangeKind::Rewritten {
        from: "keywords beside a `$ref`".to_owned(),
        to: "the same keywords beside an `anyOf` of the `$ref` alone".to_owned(),
    });
}

/// The definitions (`["$defs", name]`) whose schema refers, directly or through others, back to
/// themselves.
fn recursive_definitions(root: &Value) -> Vec<Vec<String>> {
    let mut defs: Vec<(Vec<String>, Vec<Vec<String>>)> = Vec::new();
    for keyword in DEF_KEYWORDS {
        if let Some(Value::Object(entries)) = root.get(keyword) {
            for (name, body) in entries {
                let mut refs = Vec::new();
                references_in(body, &mut refs, 0);
                defs.push((vec![keyword.to_owned(), name.clone()], refs));
            }
        }
    }
    let def_of = |path: &Vec<String>| defs.iter().position(|(d, _)| path.starts_with(d));
    let edges: Vec<Vec<usize>> = defs
        .iter()
        .map(|(_, refs)| refs.iter().filter_map(def_of).collect())
        .collect();
    (0..defs.len())
        .filter(|&start| {
            let mut seen = vec![false; defs.len()];
            let mut pending = edges[start].clone();
            while let Some(next) = pending.pop() {
                if next == start {
                    return true;
                }
                if !std::mem::replace(&mut seen[next], true) {
                    pending.extend(&edges[next]);
                }
            }
            false
        })
        .map(|i| defs[i].0.clone())
        .collect()
}

/// The local references anywhere in `value` (depth-bounded: a schema deeper than this is not
/// one a tool has).
fn references_in(value: &Value, out: &mut Vec<Vec<String>>, depth: usize) {
    if depth > 256 {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(path) = map.get("$ref").and_then(Value::as_str).and_then(parse_ref) {
                out.push(path);
            }
            for child in map.values() {
                references_in(child, out, depth + 1);
            }
        }
        Value::Array(items) => {
            for child in items {
                references_in(child, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Removes the root definitions nobody points at any more (and the keyword when it is empty);
/// the keywords removed.
fn prune_defs(schema: &mut Schema, needed: &[(String, String)]) -> Vec<String> {
    let mut removed = Vec::new();
    let Some(root) = schema.as_object_mut() else {
        return removed;
    };
    for keyword in DEF_KEYWORDS {
        let Some(Value::Object(defs)) = root.get_mut(keyword) else {
            continue;
        };
        defs.retain(|name, _| needed.iter().any(|(k, n)| k == keyword && n == name));
        if defs.is_empty() {
            take(root, keyword);
            removed.push(keyword.to_owned());
        }
    }
    removed
}

/// `{"allOf": [target, constraints], <annotations>}`: a `$ref` whose siblings cannot be merged
/// into its target, spelled so that every target's `allOf` handling applies.
fn both_as_all_of(mut target: Value, mut siblings: Map<String, Value>) -> Value {
    let mut node = Map::new();
    for keyword in ["description", "title", "default", "examples"] {
        if let Some(value) = take(&mut siblings, keyword) {
            node.insert(keyword.to_owned(), value);
        }
    }
    // The field's description replaces its type's (as in `merge_ref_siblings`), which merging
    // the `allOf` would otherwise join back.
    if node.contains_key("description")
        && let Value::Object(target) = &mut target
    {
        take(target, "description");
    }
    node.insert(
        "allOf".to_owned(),
        Value::Array(vec![target, Value::Object(siblings)]),
    );
    Value::Object(node)
}

/// The JSON Pointer segments of a local reference (`#`, `#/$defs/A`, percent- and
/// `~`-escaped); `None` for remote references and plain-name anchors.
pub(super) fn parse_ref(reference: &str) -> Option<Vec<String>> {
    let fragment = percent_decode(reference.strip_prefix('#')?)?;
    if fragment.is_empty() {
        return Some(Vec::new());
    }
    let pointer = fragment.strip_prefix('/')?;
    Some(
        pointer
            .split('/')
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The schema at `path` in `root`; `None` when missing or not a schema.
pub(super) fn resolve<'v>(root: &'v Value, path: &[String]) -> Option<&'v Value> {
    let mut here = root;
    for segment in path {
        here = match here {
            Value::Object(map) => map.get(segment)?,
            Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    matches!(here, Value::Object(_) | Value::Bool(_)).then_some(here)
}

/// Inlines every reference of `schema`, and replaces each one that points back at an enclosing
/// definition (which a target without `$ref`, Gemini, cannot express) by an object described in
/// words. For foreign tools, whose schemas must reach the model somehow; a Rust tool gets
/// [`SchemaError::Recursive`] instead.
pub(crate) fn inline_cutting_recursion(
    schema: &mut Schema,
    rec: &mut Recorder,
) -> Result<(), SchemaError> {
    // Every use written out as far as it goes: the recursion is cut where it recurs.
    let mut inline = InlineRefs::new(Target::Gemini, true);
    inline.keep_recursive = false;
    inline.transform(schema);
    let mut inline_changes = inline.rec.take(crate::report::Place::Input);
    inline.finish()?;
    let mut cut = CutRecursiveRefs::default();
    cut.transform(schema);
    if let Some(root) = schema.as_object_mut() {
        for keyword in DEF_KEYWORDS {
            if take(root, keyword).is_some() {
                cut.rec.record_at(
                    String::new(),
                    ChangeKind::Removed {
                        keyword: keyword.to_owned(),
                        why: "its types are written out where they are used".to_owned(),
                    },
                );
            }
        }
    }
    inline_changes.extend(cut.rec.take(crate::report::Place::Input));
    // The definitions are gone: what was done inside them is said where they were used.
    inline_changes.retain(|change| {
        !DEF_KEYWORDS
            .iter()
            .any(|keyword| change.pointer.starts_with(&format!("/{keyword}/")))
    });
    for change in inline_changes {
        rec.record_at(change.pointer, change.kind);
    }
    Ok(())
}

/// What `inline_cutting_recursion` leaves of a recursive reference.
#[derive(Default)]
struct CutRecursiveRefs {
    rec: Recorder,
}

recording!(CutRecursiveRefs);

impl Transform for CutRecursiveRefs {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(node) = schema.as_object_mut()
            && let Some(Value::String(reference)) = node.get("$ref").cloned()
        {
            self.rec.record(ChangeKind::RecursionCut {
                reference: reference.clone(),
            });
            let said = node
                .get("description")
                .and_then(Value::as_str)
                .map(|d| format!("{} ", d.trim_end()))
                .unwrap_or_default();
            let name = reference.rsplit('/').next().unwrap_or_default();
            let sentence = if name.is_empty() || reference == "#" {
                "Same shape as the whole argument object: give it the same fields (the \
                     structure is recursive)."
                    .to_owned()
            } else {
                format!(
                    "A `{name}` again: give it the same fields as the `{name}` described \
                         above (the structure is recursive, or too large to write out in full)."
                )
            };
            // The default beside the reference is the author's too: it stays, for
            // `DescribeDefaults` to say.
            let default = node.get("default").cloned();
            node.clear();
            node.insert("type".to_owned(), Value::from("object"));
            node.insert(
                "description".to_owned(),
                Value::from(format!("{said}{sentence}")),
            );
            if let Some(default) = default {
                node.insert("default".to_owned(), default);
            }
            return;
        }
        transform_subschemas_tracked(self, schema);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::test_util::assert_same;
    use schemars::json_schema;

    #[test]
    fn recursion_is_cut_into_a_described_object() {
        let schema = json_schema!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {
                "next": {"description": "The next one.", "$ref": "#/$defs/Node"}
            }}}
        });
        let mut cut = schema.clone();
        let mut rec = Recorder::default();
        inline_cutting_recursion(&mut cut, &mut rec).unwrap();
        assert!(rec.changes().iter().any(|c| c.pointer == "/properties/root/properties/next"
            && matches!(&c.kind, ChangeKind::RecursionCut { reference } if reference == "#/$defs/Node")));
        assert!(cut.get("$defs").is_none());
        let next = cut.pointer("/properties/root/properties/next").unwrap();
        assert_eq!(next["type"], "object");
        let description = next["description"].as_str().unwrap();
        assert!(
            description.starts_with("The next one. A `Node` again"),
            "{description}"
        );
    }

    fn inline(mut schema: Schema, allow_recursion: bool) -> Result<Schema, SchemaError> {
        let mut t = InlineRefs::new(Target::Gemini, allow_recursion);
        t.transform(&mut schema);
        t.finish().map(|()| schema)
    }

    #[test]
    fn inlines_and_drops_defs() {
        let out = inline(
            json_schema!({
                "type": "object",
                "properties": {
                    "p": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]},
                    "q": {"$ref": "#/definitions/Q"}
                },
                "$defs": {"Point": {"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}}, "X": {"type": "number"}},
                "definitions": {"Q": {"type": "string"}}
            }),
            false,
        )
        .unwrap();
        assert_same(
            &out,
            &json_schema!({
                "type": "object",
                "properties": {
                    "p": {"anyOf": [{"type": "object", "properties": {"x": {"type": "number"}}}, {"type": "null"}]},
                    "q": {"type": "string"}
                }
            }),
        );
    }

    #[test]
    fn siblings_override_descriptions_included() {
        let out = inline(
            json_schema!({
                "properties": {
                    "u": {"$ref": "#/$defs/Units", "description": "Units to use.", "default": "c"},
                    "same": {"$ref": "#/$defs/Units", "description": "Temperature units."}
                },
                "$defs": {"Units": {"description": "Temperature units.", "type": "string", "enum": ["c", "f"]}}
            }),
            true,
        )
        .unwrap();
        assert_same(
            &out,
            &json_schema!({
                "properties": {
                    "u": {"description": "Units to use.", "type": "string", "enum": ["c", "f"], "default": "c"},
                    "same": {"description": "Temperature units.", "type": "string", "enum": ["c", "f"]}
                }
            }),
        );
    }

    #[test]
    fn recursion_kept_when_allowed() {
        let input = json_schema!({
            "type": "object",
            "properties": {
                "tree": {"$ref": "#/$defs/Node"},
                "me": {"$ref": "#"}
            },
            "$defs": {
                "Node": {"type": "object", "properties": {
                    "leaf": {"$ref": "#/$defs/Leaf"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                }},
                "Leaf": {"type": "string"},
                "Unused": {"$ref": "#/$defs/Missing"}
            }
        });
        let out = inline(input.clone(), true).unwrap();
        assert_same(
            &out,
            &json_schema!({
                "type": "object",
                "properties": {
                    "tree": {"$ref": "#/$defs/Node"},
                    "me": {"$ref": "#"}
                },
                "$defs": {
                    "Node": {"type": "object", "properties": {
                        "leaf": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                    }}
                }
            }),
        );
        assert_eq!(
            inline(input, false),
            Err(SchemaError::Recursive {
                target: Target::Gemini,
                reference: "#/$defs/Node".into()
            })
        );
    }

    #[test]
    fn mutual_recursion_keeps_what_it_needs() {
        let out = inline(
            json_schema!({
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {
                    "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
                    "B": {"properties": {"a": {"$ref": "#/$defs/A"}}}
                }
            }),
            true,
        )
        .unwrap();
        assert_same(
            &out,
            &json_schema!({
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {
                    "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
                    "B": {"properties": {"a": {"$ref": "#/$defs/A"}}}
                }
            }),
        );
    }

    #[test]
    fn root_self_reference() {
        let input =
            json_schema!({"properties": {"next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}});
        assert_same(&inline(input.clone(), true).unwrap(), &input);
        assert_eq!(
            inline(input, false),
            Err(SchemaError::Recursive {
                target: Target::Gemini,
                reference: "#".into()
            })
        );
    }

    #[test]
    fn unresolved_references() {
        for reference in [
            "#/$defs/Missing",
            "https://example.com/s.json",
            "#anchor",
            "#/%zz",
        ] {
            assert_eq!(
                inline(
                    json_schema!({"properties": {"a": {"$ref": reference}}}),
                    true
                ),
                Err(SchemaError::UnresolvedRef {
                    reference: reference.into()
                }),
                "{reference}"
            );
        }
        // A reference to something that is not a schema.
        assert!(
            inline(
                json_schema!({"properties": {"a": {"$ref": "#/x"}}, "x": 3}),
                true
            )
            .is_err()
        );
    }

    #[test]
    fn every_location_and_escapes() {
        let out = inline(
            json_schema!({
                "dependentSchemas": {"a": {"$ref": "#/$defs/a~1b"}},
                "additionalProperties": {"$ref": "#/%24defs/S"},
                "items": [{"$ref": "#/$defs/S"}],
                "not": {"$ref": "#/$defs/T", "description": "beside"},
                "$defs": {"a~b": {"required": ["x"]}, "a/b": {"required": ["y"]}, "S": {"type": "string"}, "T": true}
            }),
            false,
        )
        .unwrap();
        assert_same(
            &out,
            &json_schema!({
                "dependentSchemas": {"a": {"required": ["y"]}},
                "additionalProperties": {"type": "string"},
                "items": [{"type": "string"}],
                "not": {"description": "beside"}
            }),
        );
    }

    #[test]
    fn expansion_is_bounded() {
        // D0 = string, Dn = [Dn-1, Dn-1]: 2^40 copies if fully expanded.
        let mut defs = serde_json::Map::new();
        defs.insert("D0".into(), serde_json::json!({"type": "string"}));
        for n in 1..=40 {
            let previous = format!("#/$defs/D{}", n - 1);
            defs.insert(
                format!("D{n}"),
                serde_json::json!({"prefixItems": [{"$ref": previous}, {"$ref": previous}]}),
            );
        }
        let schema = Schema::try_from(serde_json::json!({
            "properties": {"x": {"$ref": "#/$defs/D40"}},
            "$defs": defs
        }))
        .unwrap();
        let out = inline(schema.clone(), true).unwrap();
        assert!(out.as_value().to_string().len() < 10_000_000);
        assert!(out.get("$defs").is_some(), "refs past the budget are kept");
        assert!(matches!(
            inline(schema, false),
            Err(SchemaError::Recursive { .. })
        ));
    }

    #[test]
    fn root_reference_and_odd_inputs() {
        let out = inline(
            json_schema!({"$ref": "#/$defs/Args", "$defs": {"Args": {"type": "object", "properties": {}}}}),
            false,
        )
        .unwrap();
        assert_same(&out, &json_schema!({"type": "object", "properties": {}}));
        assert_same(
            &inline(json_schema!(true), false).unwrap(),
            &json_schema!(true),
        );
        assert_same(
            &inline(json_schema!(false), false).unwrap(),
            &json_schema!(false),
        );
        let odd = json_schema!({"$ref": 3, "properties": {"a": {"$ref": null}}});
        assert_same(&inline(odd.clone(), false).unwrap(), &odd);
    }
}
