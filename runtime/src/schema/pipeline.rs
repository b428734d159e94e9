//! Composing the transforms per target (the table in `docs/TARGET_RULES.md`).
//!
//! Every rendering starts from a clone of the canonical schema, so rendering never changes it
//! and targets never see each other's rewrites. Order matters and is spelled out below: refs are
//! inlined first (so every later transform sees whole schemas), sentences are appended before
//! `DescribeDefaults` (so "Default: …" ends each description), and Gemini's property ordering
//! comes last (it only reads the final `properties`).

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value};

use super::all_of::SimplifyAllOf;
use super::const_enum::ConstToEnum;
use super::defaults::DescribeDefaults;
use super::exclusive_bounds::IntegerExclusiveBounds;
use super::formats::{DropIntegerFormats, GeminiNumberFormats};
use super::gemini::{GeminiNullable, GeminiPropertyOrdering, ReplaceBoolSchemas, StringOnlyEnums};
use super::inline_refs::InlineRefs;
use super::objects::{CloseObjects, RemoveAdditionalProperties};
use super::one_of::OneOfToAnyOf;
use super::root::{normalize_root, object_root};
use super::strict::StrictRequiredNullable;
use super::strict_check::{strict_blockers, strict_problems};
use super::titles::MergeTitles;
use super::unit_enums::CollapseUnitEnums;
use super::unsupported::DescribeUnsupported;
use super::walk::for_each_subschema;
use crate::{SchemaError, Target};

/// The result of rendering.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetSchema {
    /// The schema to send (a JSON object, root `"type": "object"`).
    pub schema: Map<String, Value>,
    /// Whether it is strict: for OpenAI targets true iff strict was requested AND the schema
    /// could be made strict (no open maps/untyped values after transforms); false for MCP,
    /// Anthropic and Gemini.
    pub strict: bool,
    /// Human-readable notes of what was rewritten or why strict was not possible, e.g.
    /// "`/properties/tags`: an open map (`additionalProperties` is a schema) cannot be strict;
    /// rendered with strict: false".
    pub notes: Vec<String>,
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

/// Renders a canonical input schema for a target. `strict_requested`: the tool asks for strict
/// mode (OpenAI `strict: true`). Never mutates `canonical`.
pub fn render_for(
    canonical: &Schema,
    target: Target,
    strict_requested: bool,
) -> Result<TargetSchema, SchemaError> {
    match target {
        Target::Mcp => finish(
            full_schema(
                canonical,
                target,
                FullSchema {
                    close_objects: true,
                    keep_defaults: true,
                },
            )?,
            target,
        ),
        Target::Anthropic => finish(
            full_schema(
                canonical,
                target,
                FullSchema {
                    close_objects: true,
                    keep_defaults: false,
                },
            )?,
            target,
        ),
        Target::ChatCompletions | Target::Responses => openai(canonical, target, strict_requested),
        Target::Gemini => finish(gemini(canonical, target)?, target),
    }
}

/// Renders a canonical output schema for a target: for MCP's `outputSchema`, the MCP input
/// pipeline without closing objects (a tool's output may carry more than its schema lists);
/// other targets have no output schemas and get their (non-strict) input rendering.
pub fn render_output_for(canonical: &Schema, target: Target) -> Result<TargetSchema, SchemaError> {
    match target {
        Target::Mcp => finish(
            full_schema(
                canonical,
                target,
                FullSchema {
                    close_objects: false,
                    keep_defaults: true,
                },
            )?,
            target,
        ),
        other => render_for(canonical, other, false),
    }
}

/// A rendering in progress: the schema, and the notes gathered so far.
struct Run {
    schema: Schema,
    notes: Vec<String>,
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
}

impl Present {
    fn of(schema: &Schema) -> Present {
        let mut present = Present::default();
        present.scan(schema);
        present
    }

    fn scan(&mut self, schema: &Schema) {
        if let Some(node) = schema.as_object() {
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
                    _ => {}
                }
            }
        }
        for_each_subschema(schema, |_, sub| self.scan(sub));
    }
}

impl Run {
    /// Starts from a clone of `canonical` with its root normalised.
    fn new(canonical: &Schema) -> Self {
        let mut schema = canonical.clone();
        normalize_root(&mut schema);
        let present = Present::of(&schema);
        Run {
            schema,
            notes: Vec::new(),
            present,
        }
    }

    fn apply(&mut self, mut transform: impl Transform) -> &mut Self {
        transform.transform(&mut self.schema);
        self
    }

    /// Applies `transform` when `needed` (see [`Run::present`]).
    fn apply_if(&mut self, needed: bool, transform: impl Transform) -> &mut Self {
        if needed {
            self.apply(transform);
        }
        self
    }

    fn inline_refs(
        &mut self,
        target: Target,
        allow_recursion: bool,
    ) -> Result<&mut Self, SchemaError> {
        if !self.present.refs {
            return Ok(self);
        }
        let mut inline = InlineRefs::new(target, allow_recursion);
        inline.transform(&mut self.schema);
        inline.finish()?;
        Ok(self)
    }

    fn one_of_to_any_of(&mut self) -> &mut Self {
        if !self.present.one_of {
            return self;
        }
        let mut t = OneOfToAnyOf::default();
        t.transform(&mut self.schema);
        self.notes.append(&mut t.notes);
        self
    }

    fn simplify_all_of(&mut self, describe_unmergeable: bool) -> &mut Self {
        if !self.present.all_of {
            return self;
        }
        let mut t = SimplifyAllOf::new(describe_unmergeable);
        t.transform(&mut self.schema);
        self.notes.append(&mut t.notes);
        self
    }
}

fn finish(run: Run, target: Target) -> Result<TargetSchema, SchemaError> {
    Ok(TargetSchema {
        schema: object_root(run.schema, target)?,
        strict: false,
        notes: run.notes,
    })
}

/// How much of full JSON Schema 2020-12 a target keeps: MCP and Anthropic (non-strict) take it
/// all; they differ in whether `default` is sent or only said, and outputs stay open.
struct FullSchema {
    close_objects: bool,
    keep_defaults: bool,
}

/// MCP (`keep_defaults`) and Anthropic: constraints stay; `default` is always said in words.
fn full_schema(canonical: &Schema, target: Target, rules: FullSchema) -> Result<Run, SchemaError> {
    let mut run = Run::new(canonical);
    let present = run.present;
    run.inline_refs(target, true)?
        .apply_if(present.title, MergeTitles)
        .apply_if(present.one_of || present.any_of, CollapseUnitEnums)
        .apply_if(present.format, DropIntegerFormats);
    if rules.close_objects {
        run.apply(CloseObjects);
    }
    run.apply_if(
        present.default,
        DescribeDefaults {
            keep_keyword: rules.keep_defaults,
        },
    );
    Ok(run)
}

/// OpenAI: strict when asked and possible; otherwise the same pipeline without
/// `StrictRequiredNullable`, with the reasons in the notes.
fn openai(
    canonical: &Schema,
    target: Target,
    strict_requested: bool,
) -> Result<TargetSchema, SchemaError> {
    if strict_requested {
        let run = openai_run(canonical, target, true)?;
        if strict_problems(&run.schema).is_empty() {
            let mut rendered = finish(run, target)?;
            rendered.strict = true;
            return Ok(rendered);
        }
    }
    let run = openai_run(canonical, target, false)?;
    // The reasons are found again in the schema that is sent, so that their pointers name its
    // nodes; optional properties are no reason (the strict attempt had made them required).
    let reasons = if strict_requested {
        strict_blockers(&run.schema)
    } else {
        Vec::new()
    };
    let mut rendered = finish(run, target)?;
    rendered.notes.extend(reasons);
    Ok(rendered)
}

fn openai_run(canonical: &Schema, target: Target, strict: bool) -> Result<Run, SchemaError> {
    let mut run = Run::new(canonical);
    let present = run.present;
    run.inline_refs(target, true)?
        .apply_if(present.title, MergeTitles)
        .apply_if(present.one_of || present.any_of, CollapseUnitEnums)
        .one_of_to_any_of()
        .apply_if(present.constant, ConstToEnum)
        .simplify_all_of(false)
        .apply_if(present.format, DropIntegerFormats)
        .apply(DescribeUnsupported {
            keywords: OPENAI_UNSUPPORTED,
            kept_formats: OPENAI_FORMATS,
            allowed: None,
        })
        .apply(CloseObjects);
    if strict {
        run.apply(StrictRequiredNullable);
    }
    run.apply_if(
        present.default,
        DescribeDefaults {
            keep_keyword: false,
        },
    );
    Ok(run)
}

/// Gemini `parameters`: OpenAPI 3.0 subset; every `$ref` inlined (recursion is an error).
fn gemini(canonical: &Schema, target: Target) -> Result<Run, SchemaError> {
    let mut run = Run::new(canonical);
    let present = run.present;
    run.inline_refs(target, false)?
        .apply_if(present.title, MergeTitles)
        .apply_if(present.one_of || present.any_of, CollapseUnitEnums)
        .apply_if(present.constant, ConstToEnum)
        .one_of_to_any_of()
        .simplify_all_of(true)
        .apply(GeminiNumberFormats)
        .apply(IntegerExclusiveBounds)
        .apply(DescribeUnsupported {
            keywords: GEMINI_UNSUPPORTED,
            kept_formats: GEMINI_FORMATS,
            allowed: Some(GEMINI_KEYWORDS),
        })
        .apply(GeminiNullable)
        .apply(StringOnlyEnums)
        .apply(RemoveAdditionalProperties)
        .apply(ReplaceBoolSchemas)
        .apply_if(
            present.default,
            DescribeDefaults {
                keep_keyword: false,
            },
        )
        .apply(GeminiPropertyOrdering);
    Ok(run)
}
