//! Composing the transforms per target (the table in `docs/TARGET_RULES.md`).
//!
//! Every rendering starts from a clone of the canonical schema, so rendering never changes it
//! and targets never see each other's rewrites. Order matters and is spelled out below: refs are
//! inlined first (so every later transform sees whole schemas), sentences are appended before
//! `DescribeDefaults` (so "Default: …" ends each description), and Gemini's property ordering
//! comes last (it only reads the final `properties`).

use std::borrow::Cow;

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::all_of::SimplifyAllOf;
use super::anthropic_strict::anthropic_strict_problems;
use super::const_enum::ConstToEnum;
use super::defaults::DescribeDefaults;
use super::discriminator::{DISCRIMINATOR, DanglingDiscriminators};
use super::exclusive_bounds::IntegerExclusiveBounds;
use super::formats::{DropIntegerFormats, GeminiNumberFormats, StateNumericFormats};
use super::gemini::{GeminiNullable, GeminiPropertyOrdering, ReplaceBoolSchemas, StringOnlyEnums};
use super::inline_refs::{InlineRefs, inline_cutting_recursion};
use super::mcp_header::{DropMcpHeaders, MCP_HEADER};
use super::objects::{CloseObjects, RemoveAdditionalProperties};
use super::one_of::OneOfToAnyOf;
use super::openai_limits::Size;
use super::repair::{RepairShapes, needs_repair};
use super::root::{normalize_root, object_root};
use super::root_combinators::FoldRootCombinators;
use super::strict::StrictRequiredNullable;
use super::strict_check::{Problem, strict_blockers};
use super::titles::MergeTitles;
use super::unit_enums::CollapseUnitEnums;
use super::unsupported::DescribeUnsupported;
use super::walk::{Recording, for_each_subschema};
use crate::report::{Change, ChangeKind, Place, Recorder, rebase};
use crate::{Profile, RecursionPolicy, SchemaError, Target};

/// The result of rendering.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TargetSchema {
    /// The schema to send (a JSON object, root `"type": "object"`).
    pub schema: Map<String, Value>,
    /// Whether it is strict: true iff strict was requested AND the schema could be made strict
    /// (OpenAI: no open maps/untyped values after transforms; Anthropic: nothing its strict
    /// mode refuses, as rendered); false for MCP and Gemini.
    pub strict: bool,
    /// Every change made, in order; for OpenAI and Anthropic, the reasons it is not strict
    /// come last.
    pub changes: Vec<Change>,
}

/// How to render a schema: what the tool asks for, beyond its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Policy {
    /// The tool asks for strict mode (OpenAI `strict: true`).
    pub strict: bool,
    /// What to do with a recursive type where `$ref` is unavailable (Gemini).
    pub recursion: RecursionPolicy,
    /// Which schema of the tool this is.
    pub place: Place,
    /// What the model takes beyond its API's rules (OpenAI targets only).
    pub profile: Profile,
}

/// Keywords OpenAI does not take (or, undocumented now, refused in older API versions): said in
/// words instead. `format` is among them for the formats not in [`OPENAI_FORMATS`].
const OPENAI_UNSUPPORTED: &[&str] = &[
    "format",
    "minLength",
    "maxLength",
    "uniqueItems",
    "prefixItems",
    "contains",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$id",
    "$anchor",
];

/// The string formats OpenAI strict mode supports.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords Gemini's `parameters` do not take that have a sentence of their own. Every other
/// keyword outside [`GEMINI_KEYWORDS`] is described too (Gemini refuses unknown names).
const GEMINI_UNSUPPORTED: &[&str] = &[
    "format",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "uniqueItems",
    "prefixItems",
    "contains",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "examples",
];

/// What may stay in a Gemini schema when `DescribeUnsupported` runs: Gemini's OpenAPI subset,
/// plus what later Gemini transforms rewrite (`additionalProperties`, `default`, `enum` on
/// non-strings, type arrays).
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "propertyOrdering",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "additionalProperties",
    "default",
];

/// The formats Gemini takes: `enum`/`date-time` on strings, `int32`/`int64` on integers,
/// `float`/`double` on numbers.
const GEMINI_FORMATS: &[&str] = &["date-time", "enum", "int32", "int64", "float", "double"];

/// Keywords Gemini's `parametersJsonSchema` does not take that have a sentence of their own
/// (Gemini ignores what it does not take: said in words, the model still knows it). Every other
/// keyword outside [`GEMINI_JSON_KEYWORDS`] is described too.
const GEMINI_JSON_UNSUPPORTED: &[&str] = &[
    "format",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "uniqueItems",
    "contains",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "examples",
];

/// The JSON Schema Gemini documents for `parametersJsonSchema` (its structured-output subset),
/// plus `default`, which `DescribeDefaults` says in words afterwards.
const GEMINI_JSON_KEYWORDS: &[&str] = &[
    "$ref",
    "$defs",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "default",
];

/// The string formats Gemini's JSON Schema takes.
const GEMINI_JSON_FORMATS: &[&str] = &["date-time", "date", "time"];

/// Renders a canonical input schema for a target. Never mutates `canonical`.
pub(crate) fn render_for(
    canonical: Cow<'_, Schema>,
    target: Target,
    policy: Policy,
) -> Result<TargetSchema, SchemaError> {
    match target {
        Target::Mcp => full_schema(canonical, target, policy, true, true)?.finish(target),
        Target::Anthropic => anthropic(canonical, target, policy),
        Target::ChatCompletions | Target::Responses => openai(canonical, target, policy),
        Target::Gemini => gemini(canonical, target, policy)?.finish(target),
        Target::GeminiJsonSchema => gemini_json(canonical, target, policy)?.finish(target),
    }
}

/// Renders a canonical output schema for a target: for MCP's `outputSchema`, the MCP input
/// pipeline without closing objects (a tool's output may carry more than its schema lists) and
/// with whatever root the result has (MCP 2026-07-28 takes any schema; the MCP server wraps it
/// for earlier clients). Responses (`output_schema`) and Gemini (`response`,
/// `responseJsonSchema`) get their own keywords' rules, never strict, objects left open and any
/// root; Chat Completions and Anthropic, which have no field for it, the same for what a caller
/// makes of it.
pub(crate) fn render_output_for(
    canonical: Cow<'_, Schema>,
    target: Target,
    recursion: RecursionPolicy,
) -> Result<TargetSchema, SchemaError> {
    let policy = Policy {
        strict: false,
        recursion,
        place: Place::Output,
        profile: Profile::Documented,
    };
    match target {
        Target::Mcp => Ok(full_schema(canonical, target, policy, false, true)?.finish_output()),
        Target::Gemini => Ok(gemini(canonical, target, policy)?.finish_output()),
        Target::GeminiJsonSchema => Ok(gemini_json(canonical, target, policy)?.finish_output()),
        Target::ChatCompletions | Target::Responses => openai(canonical, target, policy),
        Target::Anthropic => {
            Ok(full_schema(canonical, target, policy, false, false)?.finish_output())
        }
    }
}

/// A rendering in progress: the schema, and the changes made so far.
struct Run {
    schema: Schema,
    changes: Vec<Change>,
    place: Place,
    recursion: RecursionPolicy,
    /// The keywords of the starting schema that some transforms act on. A transform whose
    /// keyword appears nowhere has nothing to do, and no transform before it adds that keyword,
    /// so it is skipped: most schemas have no `$ref`, `title`, `oneOf` or `default`, and each
    /// walk of a schema costs a hashed lookup per keyword per node.
    present: Present,
}

/// Which of the keywords that gate transforms appear anywhere in a schema.
#[derive(Debug, Clone, Copy, Default)]
struct Present {
    refs: bool,
    title: bool,
    one_of: bool,
    any_of: bool,
    all_of: bool,
    constant: bool,
    format: bool,
    default: bool,
    /// `x-mcp-header`, which only MCP keeps.
    mcp_header: bool,
    /// `discriminator`, whose `mapping` may point into the `$defs` inlining removes.
    discriminator: bool,
    /// Some node has a shape `RepairShapes` repairs.
    repair: bool,
}

impl Present {
    /// Whether `RepairShapes` may have something to do: a shape the schema has, or one that
    /// merging branches (`allOf`, `$ref` siblings, a folded root `anyOf`/`oneOf`) may make, such
    /// as a type-less branch's `properties` merged beside `type: "string"`.
    fn repair_after_merges(self) -> bool {
        self.repair || self.all_of || self.refs || self.any_of || self.one_of
    }

    fn of(schema: &Schema) -> Present {
        let mut present = Present::default();
        present.scan(schema);
        present
    }

    fn scan(&mut self, schema: &Schema) {
        if let Some(node) = schema.as_object() {
            self.repair = self.repair || needs_repair(node);
            for key in node.keys() {
                match key.as_str() {
                    "$ref" | "$defs" | "definitions" => self.refs = true,
                    "title" => self.title = true,
                    "oneOf" => self.one_of = true,
                    "anyOf" => self.any_of = true,
                    "allOf" => self.all_of = true,
                    "const" => self.constant = true,
                    "format" => self.format = true,
                    "default" => self.default = true,
                    MCP_HEADER => self.mcp_header = true,
                    DISCRIMINATOR => self.discriminator = true,
                    _ => {}
                }
            }
        }
        for_each_subschema(schema, |_, sub| self.scan(sub));
    }
}

impl Run {
    /// Starts from `canonical` (a copy, unless it is owned) with its root normalised.
    fn new(canonical: Cow<'_, Schema>, policy: Policy) -> Self {
        // A definition rendered once and thrown away (a foreign tool) gives its schema up;
        // a cached one is copied.
        let mut schema = canonical.into_owned();
        let mut rec = Recorder::default();
        // Arguments are an object, whatever their schema's root says; a result is whatever the
        // tool returns, and its schema is rendered as it is.
        if policy.place == Place::Input {
            normalize_root(&mut schema, &mut rec);
        }
        let present = Present::of(&schema);
        Run {
            schema,
            changes: rec.take(policy.place),
            place: policy.place,
            recursion: policy.recursion,
            present,
        }
    }

    fn apply(&mut self, mut transform: impl Recording) -> &mut Self {
        transform.transform(&mut self.schema);
        let recorder = transform.recorder();
        for (from, to) in recorder.take_moves() {
            rebase(&mut self.changes, &from, &to);
        }
        self.changes.extend(recorder.take(self.place));
        self
    }

    /// Applies `transform` when `needed` (see [`Run::present`]).
    fn apply_if(&mut self, needed: bool, transform: impl Recording) -> &mut Self {
        if needed {
            self.apply(transform);
        }
        self
    }

    /// Inlines every `$ref`; a recursive one stays a `$ref` where `allow_recursion`, and
    /// otherwise is an error or (with [`RecursionPolicy::Describe`]) is cut and described.
    fn inline_refs(
        &mut self,
        target: Target,
        allow_recursion: bool,
    ) -> Result<&mut Self, SchemaError> {
        if !self.present.refs {
            return Ok(self);
        }
        let describe = !allow_recursion && self.recursion == RecursionPolicy::Describe;
        let before = describe.then(|| self.schema.clone());
        let mut inline = InlineRefs::new(target, allow_recursion);
        inline.transform(&mut self.schema);
        let changes = inline.rec.take(self.place);
        match (inline.finish(), before) {
            (Ok(()), _) => self.changes.extend(changes),
            (Err(SchemaError::Recursive { .. }), Some(mut schema)) => {
                let mut rec = Recorder::default();
                inline_cutting_recursion(&mut schema, &mut rec)?;
                self.schema = schema;
                self.changes.extend(rec.take(self.place));
            }
            (Err(error), _) => return Err(error),
        }
        // A `discriminator`'s `mapping` points into the `$defs` just inlined.
        let discriminator = self.present.discriminator;
        Ok(self.apply_if(discriminator, DanglingDiscriminators::default()))
    }

    /// An output schema as a JSON object (any root: an array, a string…), and its changes. A
    /// boolean schema, which output schemas are not kept as, would be its object spelling.
    fn finish_output(self) -> TargetSchema {
        let schema = match self.schema.to_value() {
            Value::Object(root) => root,
            Value::Bool(true) => Map::new(),
            _ => Map::from_iter([("not".to_owned(), Value::Object(Map::new()))]),
        };
        TargetSchema {
            schema,
            strict: false,
            changes: self.changes,
        }
    }

    /// The schema as a JSON object with an object root, and its changes.
    fn finish(self, target: Target) -> Result<TargetSchema, SchemaError> {
        Ok(TargetSchema {
            schema: object_root(self.schema, target)?,
            strict: false,
            changes: self.changes,
        })
    }
}

/// MCP (`keep_defaults`) and Anthropic: full JSON Schema 2020-12, constraints kept; `default`
/// said in words (and kept for MCP); objects closed unless this is an output schema. Anthropic
/// refuses combinators at the root, so they are folded into one object.
fn full_schema(
    canonical: Cow<'_, Schema>,
    target: Target,
    policy: Policy,
    close_objects: bool,
    keep_defaults: bool,
) -> Result<Run, SchemaError> {
    let mut run = Run::new(canonical, policy);
    let present = run.present;
    run.inline_refs(target, true)?
        .apply(FoldRootCombinators {
            keep: target == Target::Mcp,
            ..FoldRootCombinators::default()
        })
        .apply_if(
            present.mcp_header && target != Target::Mcp,
            DropMcpHeaders::default(),
        );
    run.apply_if(present.title, MergeTitles::default())
        .apply_if(
            present.one_of || present.any_of,
            CollapseUnitEnums::default(),
        );
    // MCP keeps schemars' numeric formats (annotations there) beside the bounds they imply, so
    // that its rendering, converted again, renders for every target as the canonical schema.
    if target == Target::Mcp {
        run.apply_if(present.format, StateNumericFormats::default());
    } else {
        run.apply_if(present.format, DropIntegerFormats::default());
    }
    if close_objects {
        run.apply(CloseObjects::default());
    }
    run.apply_if(present.default, DescribeDefaults::new(keep_defaults));
    Ok(run)
}

/// Anthropic: the full schema with root combinators folded and `default` said in words;
/// strict when strict mode is asked for and the rendering already is what Anthropic's strict
/// mode takes (`anthropic_strict_problems`). Nothing is rewritten to make it strict: otherwise
/// the reasons go into the report.
fn anthropic(
    canonical: Cow<'_, Schema>,
    target: Target,
    policy: Policy,
) -> Result<TargetSchema, SchemaError> {
    let run = full_schema(canonical, target, policy, true, false)?;
    let problems = if policy.strict {
        anthropic_strict_problems(&run.schema)
    } else {
        Vec::new()
    };
    let mut rendered = run.finish(target)?;
    rendered.strict = policy.strict && problems.is_empty();
    rendered.changes.extend(not_strict(problems, policy.place));
    Ok(rendered)
}

/// The reasons a rendering is not strict, as changes of its report.
fn not_strict(problems: Vec<Problem>, place: Place) -> impl Iterator<Item = Change> {
    problems.into_iter().map(move |(pointer, why)| Change {
        place,
        pointer,
        kind: ChangeKind::NotStrict { why },
    })
}

/// OpenAI: one pipeline; when strict mode is asked for and nothing but optional properties stands
/// in its way (`strict_blockers`), `StrictRequiredNullable` makes every property required and
/// the rendering strict; otherwise the reasons go into the report.
fn openai(
    canonical: Cow<'_, Schema>,
    target: Target,
    policy: Policy,
) -> Result<TargetSchema, SchemaError> {
    let mut run = Run::new(canonical, policy);
    let present = run.present;
    run.inline_refs(target, true)?
        .apply(FoldRootCombinators::default())
        .apply_if(present.mcp_header, DropMcpHeaders::default())
        .apply_if(present.title, MergeTitles::default())
        .apply_if(
            present.one_of || present.any_of,
            CollapseUnitEnums::default(),
        )
        .apply_if(present.one_of, OneOfToAnyOf::default())
        .apply_if(present.constant, ConstToEnum::default())
        .apply_if(present.all_of, SimplifyAllOf::new(false))
        .apply_if(present.format, DropIntegerFormats::default())
        .apply_if(present.repair_after_merges(), RepairShapes::default())
        .apply(DescribeUnsupported {
            plain_patterns_only: true,
            ..DescribeUnsupported::new(OPENAI_UNSUPPORTED, OPENAI_FORMATS, None)
        });
    // What the model's profile takes in words rather than keywords (every format of them, where
    // `format` is among them).
    let profiled = policy.profile.described_keywords();
    run.apply_if(
        !profiled.is_empty(),
        DescribeUnsupported::new(profiled, &[], None),
    )
    // A result may carry more than its schema lists: output schemas stay open.
    .apply_if(policy.place == Place::Input, CloseObjects::default());
    // Optional properties are no reason: making every property required (and nullable) is
    // what strict mode's last step does.
    let mut blockers = if policy.strict {
        strict_blockers(&run.schema)
    } else {
        Vec::new()
    };
    let strict = if policy.strict && policy.profile.allows_strict() {
        // The size limits are said even when something else already stands in the way, so
        // that a tool's author sees every reason at once.
        let past_limits = strict_within_limits(&mut run, blockers.is_empty());
        blockers.extend(past_limits);
        blockers.is_empty()
    } else {
        false
    };
    run.apply_if(present.default, DescribeDefaults::new(false));
    let mut rendered = match policy.place {
        Place::Output => run.finish_output(),
        _ => run.finish(target)?,
    };
    rendered.strict = strict;
    rendered.changes.extend(not_strict(blockers, policy.place));
    Ok(rendered)
}

/// OpenAI strict mode's last step, `StrictRequiredNullable`, applied (when `can_be_strict`)
/// only if the schema it gives is within OpenAI's size limits (`openai_limits`); the limits the
/// schema is past, measured on what is sent. `DescribeDefaults`, which runs after, changes
/// nothing these limits count (names, `enum`s, nesting).
fn strict_within_limits(run: &mut Run, can_be_strict: bool) -> Vec<Problem> {
    let size = Size::of(&run.schema);
    let past = size.problems();
    if !past.is_empty() || !can_be_strict {
        return past;
    }
    // A `null` joins the `enum` of an optional property: a schema close to the enum-value or
    // character limit is measured again once it has them, and sent as it was (not strict) if
    // they take it past. Every other schema is not copied for it.
    if !size.near_limits() {
        run.apply(StrictRequiredNullable::default());
        return past;
    }
    let (schema, changes) = (run.schema.clone(), run.changes.len());
    run.apply(StrictRequiredNullable::default());
    let past = Size::of(&run.schema).problems();
    if !past.is_empty() {
        run.schema = schema;
        run.changes.truncate(changes);
    }
    past
}

/// What both of Gemini's forms start with: refs inlined (a recursive one kept where
/// `allow_recursion`), the root one object, titles merged, unit enums collapsed, and the
/// combinators neither form has (`const`, `oneOf`, `allOf`) rewritten or described.
fn gemini_front(
    canonical: Cow<'_, Schema>,
    target: Target,
    policy: Policy,
    allow_recursion: bool,
) -> Result<Run, SchemaError> {
    let mut run = Run::new(canonical, policy);
    let present = run.present;
    run.inline_refs(target, allow_recursion)?
        .apply(FoldRootCombinators::default())
        .apply_if(present.mcp_header, DropMcpHeaders::default())
        .apply_if(present.title, MergeTitles::default())
        .apply_if(
            present.one_of || present.any_of,
            CollapseUnitEnums::default(),
        )
        .apply_if(present.constant, ConstToEnum::default())
        .apply_if(present.one_of, OneOfToAnyOf::default())
        .apply_if(present.all_of, SimplifyAllOf::new(true));
    Ok(run)
}

/// Gemini `parameters`: OpenAPI 3.0 subset; every `$ref` inlined (a recursive type is an error,
/// or cut and described, as the policy says).
fn gemini(canonical: Cow<'_, Schema>, target: Target, policy: Policy) -> Result<Run, SchemaError> {
    let mut run = gemini_front(canonical, target, policy, false)?;
    let present = run.present;
    run.apply(GeminiNumberFormats::default())
        .apply(IntegerExclusiveBounds::default())
        .apply_if(present.repair_after_merges(), RepairShapes::default())
        .apply(DescribeUnsupported::new(
            GEMINI_UNSUPPORTED,
            GEMINI_FORMATS,
            Some(GEMINI_KEYWORDS),
        ))
        .apply(GeminiNullable::default())
        .apply(StringOnlyEnums::default())
        .apply(RemoveAdditionalProperties::default())
        .apply(ReplaceBoolSchemas::default())
        .apply_if(present.default, DescribeDefaults::new(false))
        .apply(GeminiPropertyOrdering::default());
    Ok(run)
}

/// Gemini `parametersJsonSchema`: JSON Schema, so a recursive type stays a `$ref` and maps,
/// tuples and `null` stay what they are; what Gemini's subset has no keyword for (`oneOf`,
/// `const`, `allOf`, string lengths, patterns, most formats) is rewritten or said in words.
fn gemini_json(
    canonical: Cow<'_, Schema>,
    target: Target,
    policy: Policy,
) -> Result<Run, SchemaError> {
    let mut run = gemini_front(canonical, target, policy, true)?;
    let present = run.present;
    run.apply_if(present.format, DropIntegerFormats::default())
        .apply(IntegerExclusiveBounds::default())
        .apply_if(present.repair_after_merges(), RepairShapes::default())
        .apply(DescribeUnsupported::new(
            GEMINI_JSON_UNSUPPORTED,
            GEMINI_JSON_FORMATS,
            Some(GEMINI_JSON_KEYWORDS),
        ))
        .apply_if(policy.place == Place::Input, CloseObjects::default())
        .apply_if(present.default, DescribeDefaults::new(false));
    Ok(run)
}
