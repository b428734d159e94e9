//! "What the schema allows, the call accepts": property tests whose arguments are generated from
//! the schema each target shows the model, not from Rust values (which never produce `3.0` for
//! an integer, an explicit `null`, an offset on a date-time or an f32 extreme).
//!
//! For every showcase tool (as an echo) and every tricky tool of `tooldef_tests::tricky`, in
//! every target that renders it, instances are generated from the target's schema (Gemini's
//! OpenAPI dialect translated to JSON Schema first), [`DRAWS_PER_TOOL`] per tool shared among its
//! targets, and most of them are also mutated into an invalid one; a quarter also have two or
//! more fields of one object broken at once, each of which the problems must name at its own
//! place. Each instance is called through the tool set as a JSON value and as JSON
//! text (a mutation in one of the two, chosen at random), and judged by
//! `tooldef_tests::schema_instances::oracle` against the full constraints (the MCP rendering,
//! `null`s of optional properties removed, plus the ranges of 32- and 64-bit integers and `f32`, which
//! no rendering states by design):
//!
//! - valid for both: accepted, and the function gets what the model meant (defaults for what
//!   was left out, `3.0` the integer 3, a date-time the same instant, a set in any order, an
//!   `f32` the nearest `f32`);
//! - breaking a rule (one the target only described in words, an unstated range, or a
//!   mutation): refused with `InvalidArguments` whose problems say where, what was expected
//!   and what was received, in JSON's terms; a value against a union is explained through a
//!   branch that takes its type, never through another's "expected `null`".
//!
//! Instances of the MCP schema are also turned into each target's form (a strict target's
//! absent properties sent as `null`) and must be valid there: a rendering is never stricter
//! than the canonical schema; in the strict form they are called too.
//!
//! `store_tree` is recursive, which Gemini cannot express (tooldef refuses to render it there):
//! it is tested in the other four targets only.
//!
//! Findings are grouped by category and cause, one example each, with the seed and the
//! instance's index, so that a failure can be replayed alone:
//! `SCHEMA_ONLY=tool/target/index cargo test -p tooldef-tests --test schema_properties`
//! (`SCHEMA_SEED` changes the base seed, `SCHEMA_CASES` the number of instances per tool and
//! target).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tokio::runtime::Runtime;
use tooldef::{Target, ToolDefinition, ToolError, ToolSet};
use tooldef_tests::schema_instances::dialect::{self, is_strict, shown_schema};
use tooldef_tests::schema_instances::generate::{Generator, Shape};
use tooldef_tests::schema_instances::messages::names_each;
use tooldef_tests::schema_instances::mutate::{break_siblings, mutate};
use tooldef_tests::schema_instances::node::mentions_ref;
use tooldef_tests::schema_instances::nulls::absent_as_null;
use tooldef_tests::schema_instances::oracle::{
    Category, Constraints, Expectation, Finding, Outcome, mask, shorten,
};
use tooldef_tests::schema_instances::ranges::has_unstated_ranges;
use tooldef_tests::schema_instances::rng::Rng;
use tooldef_tests::tricky;

/// Instances generated per tool, shared among the targets that render it (each valid for the
/// target's schema); most are also mutated into an invalid one.
const DRAWS_PER_TOOL: usize = 10_000;
/// How often an instance is also mutated.
const MUTATION_RATE: f64 = 0.6;
/// How often two or more fields of one of its objects are also broken at once.
const SIBLINGS_RATE: f64 = 0.25;
/// The base seed.
const SEED: u64 = 0x7001_DEF0_0011;

fn seed() -> u64 {
    std::env::var("SCHEMA_SEED")
        .ok()
        .and_then(|s| {
            s.strip_prefix("0x")
                .map_or_else(|| s.parse().ok(), |h| u64::from_str_radix(h, 16).ok())
        })
        .unwrap_or(SEED)
}

/// Instances per target of a tool rendered for `targets` targets: `SCHEMA_CASES` if set, else
/// enough for [`DRAWS_PER_TOOL`] across them.
fn cases(targets: usize) -> usize {
    std::env::var("SCHEMA_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| DRAWS_PER_TOOL.div_ceil(targets.max(1)))
}

/// `SCHEMA_ONLY=tool[/target[/index]]`.
fn only() -> (Option<String>, Option<String>, Option<usize>) {
    let Ok(spec) = std::env::var("SCHEMA_ONLY") else {
        return (None, None, None);
    };
    let mut parts = spec.split('/');
    (
        parts.next().map(str::to_owned),
        parts.next().map(str::to_owned),
        parts.next().and_then(|i| i.parse().ok()),
    )
}

// ---------------------------------------------------------------------------------------------
// What is tested.
// ---------------------------------------------------------------------------------------------

/// A tool's schemas: canonical, full (MCP) and per target.
struct Plan {
    definition: &'static ToolDefinition,
    canonical: Value,
    full: Value,
    full_validator: jsonschema::Validator,
    unstated_ranges: bool,
    targets: Vec<TargetPlan>,
}

struct TargetPlan {
    target: Target,
    strict: bool,
    shown: Value,
    validator: jsonschema::Validator,
}

impl Plan {
    fn name(&self) -> &str {
        self.definition.name()
    }

    fn constraints(&self) -> Constraints<'_> {
        Constraints {
            canonical: &self.canonical,
            full: &self.full,
            full_validator: &self.full_validator,
            unstated_ranges: self.unstated_ranges,
        }
    }
}

/// Every tool's plan, and the targets that refuse to render a tool (with why).
fn plans(set: &ToolSet) -> (Vec<Plan>, Vec<(String, Target, String)>) {
    let mut refused = Vec::new();
    let plans = set
        .definitions()
        .map(|definition| {
            let name = definition.name();
            let mcp = definition
                .to_json(Target::Mcp)
                .unwrap_or_else(|err| panic!("{name} for MCP: {err}"));
            let full = shown_schema(&mcp, Target::Mcp);
            let full_validator =
                dialect::validator(&full).unwrap_or_else(|err| panic!("{name} for MCP: {err}"));
            let targets = Target::ALL
                .into_iter()
                .filter_map(|target| {
                    // One tool at a time: a set's listing fails whole when one tool cannot be
                    // rendered.
                    let tool = match definition.to_json(target) {
                        Ok(tool) => tool,
                        Err(err) => {
                            refused.push((name.to_owned(), target, err.to_string()));
                            return None;
                        }
                    };
                    let shown = shown_schema(&tool, target);
                    let validator = dialect::validator(&shown)
                        .unwrap_or_else(|err| panic!("{name} for {target}: {err}"));
                    Some(TargetPlan {
                        target,
                        strict: is_strict(&tool, target),
                        shown,
                        validator,
                    })
                })
                .collect();
            let canonical = definition.input_schema().as_value().clone();
            Plan {
                definition,
                unstated_ranges: has_unstated_ranges(&canonical),
                canonical,
                full,
                full_validator,
                targets,
            }
        })
        .collect();
    (plans, refused)
}

// ---------------------------------------------------------------------------------------------
// Findings, grouped.
// ---------------------------------------------------------------------------------------------

/// Where a finding was made, to replay it.
#[derive(Debug, Clone)]
struct Example {
    tool: String,
    target: Target,
    index: usize,
    what: String,
    instance: String,
    detail: String,
}

impl Example {
    /// Which example a group shows: the first by tool, target, index and form, whatever order
    /// the workers finished in.
    fn key(&self) -> (&str, Target, usize, &str) {
        (&self.tool, self.target, self.index, &self.what)
    }
}

#[derive(Default)]
struct Group {
    count: usize,
    places: BTreeSet<String>,
    example: Option<Example>,
}

/// The counts of one tool and target.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    /// Generated from the target's schema, valid for it.
    generated: usize,
    /// Of those, valid for the full constraints too (must be accepted).
    valid: usize,
    /// Of those, breaking a rule the target's schema does not state: one it said in words, or
    /// a range of Rust's number types no rendering states (must be refused).
    described: usize,
    /// Mutations, invalid for the target's schema and the full constraints (must be refused).
    invalid: usize,
    /// Mutations invalid for the target's schema only (either way).
    tolerated: usize,
    /// Calls made.
    calls: usize,
    /// Instances the generator failed to make (each a `generator-bug` finding).
    not_generated: usize,
    /// MCP instances also called in the strict targets' form (`null` for what they leave out).
    converted: usize,
    /// Time spent, in milliseconds.
    millis: u128,
    /// Time spent per phase: generating, judging (expectations and verdicts), calling, checking
    /// other targets' forms, mutating.
    phases: [std::time::Duration; 5],
}

#[derive(Default)]
struct Report {
    groups: BTreeMap<(Category, String), Group>,
    counts: BTreeMap<(String, Target), Counts>,
    /// How many mutations of each family were called.
    mutations: BTreeMap<String, usize>,
    /// What is worth knowing but not a failure.
    notes: Vec<String>,
}

impl Report {
    fn add(&mut self, finding: Finding, example: Example) {
        let group = self
            .groups
            .entry((finding.category, finding.signature))
            .or_default();
        group.count += 1;
        group
            .places
            .insert(format!("{}/{}", example.tool, example.target.short_name()));
        let example = Example {
            detail: finding.detail,
            ..example
        };
        if group
            .example
            .as_ref()
            .is_none_or(|e| example.key() < e.key())
        {
            group.example = Some(example);
        }
    }

    fn merge(&mut self, other: Report) {
        for (key, group) in other.groups {
            let mine = self.groups.entry(key).or_default();
            mine.count += group.count;
            mine.places.extend(group.places);
            if let Some(example) = group.example
                && mine
                    .example
                    .as_ref()
                    .is_none_or(|e| example.key() < e.key())
            {
                mine.example = Some(example);
            }
        }
        for (kind, n) in other.mutations {
            *self.mutations.entry(kind).or_default() += n;
        }
        self.notes.extend(other.notes);
        for (key, counts) in other.counts {
            let mine = self.counts.entry(key).or_default();
            mine.generated += counts.generated;
            mine.valid += counts.valid;
            mine.described += counts.described;
            mine.invalid += counts.invalid;
            mine.tolerated += counts.tolerated;
            mine.calls += counts.calls;
            mine.not_generated += counts.not_generated;
            mine.millis += counts.millis;
            mine.converted += counts.converted;
            for (mine, theirs) in mine.phases.iter_mut().zip(counts.phases) {
                *mine += theirs;
            }
        }
    }

    /// One line per tool and target (printed with `SCHEMA_COUNTS=1`).
    fn counts_table(&self) -> String {
        let mut out = String::from(
            "tool/target: generated (valid + breaking a rule the schema does not state), \
             mutated (invalid + invalid for the target only), calls\n",
        );
        for ((tool, target), c) in &self.counts {
            out.push_str(&format!(
                "  {tool}/{}: {} ({} + {}), {} ({} + {}), {}\n",
                target.short_name(),
                c.generated,
                c.valid,
                c.described,
                c.invalid + c.tolerated,
                c.invalid,
                c.tolerated,
                c.calls
            ));
        }
        out
    }

    /// The counts in a few lines: totals, and the least and most per tool and target.
    fn summary(&self) -> String {
        let tools: BTreeSet<&str> = self.counts.keys().map(|(t, _)| t.as_str()).collect();
        let range = |f: fn(&Counts) -> usize| {
            let values: Vec<usize> = self.counts.values().map(f).collect();
            let (min, max) = (
                values.iter().min().copied().unwrap_or(0),
                values.iter().max().copied().unwrap_or(0),
            );
            let total: usize = values.iter().sum();
            format!("{total} ({min}–{max} per tool and target)")
        };
        let families: Vec<String> = self
            .mutations
            .iter()
            .map(|(family, n)| format!("{family} {n}"))
            .collect();
        format!(
            "{} tools, {} tool-targets (store_tree is recursive: not rendered for Gemini)\n\
             generated from the target's schema: {}\n\
             - valid for the full constraints (must be accepted, meaning kept): {}\n\
             - breaking a rule the target's schema does not state (must be refused): {}\n\
             mutated, invalid for the target's schema and the full constraints (must be refused): {}\n\
             mutated, invalid for the target's schema only (either way): {}\n\
             MCP instances also called in the strict targets' form (must be accepted): {}\n\
             calls: {}; mutations by family: {}\n",
            tools.len(),
            self.counts.len(),
            range(|c| c.generated),
            range(|c| c.valid),
            range(|c| c.described),
            range(|c| c.invalid),
            range(|c| c.tolerated),
            self.counts.values().map(|c| c.converted).sum::<usize>(),
            range(|c| c.calls),
            families.join(", ")
        )
    }

    /// The findings, grouped: at most 25 groups per category, one example each.
    fn findings_text(&self, seed: u64) -> String {
        printable(&self.findings_text_raw(seed))
    }

    fn findings_text_raw(&self, seed: u64) -> String {
        let total: usize = self.groups.values().map(|g| g.count).sum();
        let mut out = format!(
            "{total} findings in {} groups (seed {seed:#x}); replay one with \
             SCHEMA_ONLY=tool/target/index cargo test -p tooldef-tests --test schema_properties\n",
            self.groups.len()
        );
        let mut by_category: BTreeMap<Category, Vec<(&String, &Group)>> = BTreeMap::new();
        for ((category, signature), group) in &self.groups {
            by_category
                .entry(*category)
                .or_default()
                .push((signature, group));
        }
        for (category, mut groups) in by_category {
            groups.sort_by_key(|(_, g)| std::cmp::Reverse(g.count));
            let count: usize = groups.iter().map(|(_, g)| g.count).sum();
            out.push_str(&format!(
                "\n== {} ({count} in {} groups)\n",
                category.name(),
                groups.len()
            ));
            for (signature, group) in groups.iter().take(25) {
                let places: Vec<&str> = group.places.iter().map(String::as_str).collect();
                let shown_places = if places.len() > 6 {
                    format!("{}, … ({} in all)", places[..6].join(", "), places.len())
                } else {
                    places.join(", ")
                };
                out.push_str(&format!(
                    "[{}] ×{} in {shown_places}: {signature}\n",
                    category.name(),
                    group.count
                ));
                if let Some(e) = &group.example {
                    out.push_str(&format!(
                        "    e.g. SCHEMA_ONLY={}/{}/{} ({}): {}\n    → {}\n",
                        e.tool,
                        e.target.short_name(),
                        e.index,
                        e.what,
                        e.instance,
                        shorten(&e.detail.replace('\n', " "), 600)
                    ));
                }
            }
            if groups.len() > 25 {
                out.push_str(&format!("… and {} more groups\n", groups.len() - 25));
            }
        }
        out
    }
}

/// `text` with control and invisible characters escaped, so that a report prints on one line
/// per entry (generated strings hold newlines, NULs and zero-width characters).
fn printable(text: &str) -> String {
    text.lines()
        .map(|line| {
            line.chars()
                .map(|c| {
                    if c.is_control()
                        || matches!(c, '\u{200B}' | '\u{FEFF}' | '\u{2028}' | '\u{301}')
                    {
                        c.escape_unicode().to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------------------------------------
// Calls.
// ---------------------------------------------------------------------------------------------

fn outcome_of(result: Result<tooldef::ToolOutput, ToolError>) -> Outcome {
    match result {
        Ok(output) => {
            let echoed = match output.structured {
                Some(structured) => Ok(structured),
                None => serde_json::from_str(&output.to_text()),
            };
            match echoed {
                Ok(value) => Outcome::Accepted(value),
                Err(err) => Outcome::Other(format!("the echo is not JSON: {err}")),
            }
        }
        Err(ToolError::InvalidArguments { problems, .. }) => Outcome::Refused(problems),
        Err(other) => Outcome::Other(format!("{other:?}")),
    }
}

/// How a call's arguments are passed.
#[derive(Clone, Copy, PartialEq)]
enum Forms {
    /// As a JSON value and as JSON text (two calls, two code paths: the text may take the fast
    /// path straight into the argument type).
    Both,
    /// As a value only.
    Value,
    /// As text only.
    Text,
}

/// Calls the tool with `instance` in `forms`, judging each call.
#[allow(clippy::too_many_arguments)]
fn call_and_judge(
    rt: &Runtime,
    set: &ToolSet,
    plan: &Plan,
    expectation: &Expectation,
    instance: &Value,
    forms: Forms,
    must_name: &[String],
    mut example: Example,
    report: &mut Report,
    counts: &mut Counts,
) {
    let text = serde_json::to_string(instance).expect("JSON text");
    example.instance = shorten(&text, 400);
    let constraints = plan.constraints();
    let phase = std::time::Instant::now();
    let mut outcomes = Vec::new();
    if forms != Forms::Text {
        outcomes.push((
            "as a value",
            outcome_of(rt.block_on(set.call(plan.name(), instance))),
        ));
    }
    if forms != Forms::Value {
        outcomes.push((
            "as text",
            outcome_of(rt.block_on(set.call(plan.name(), text.as_str()))),
        ));
    }
    counts.calls += outcomes.len();
    counts.phases[2] += phase.elapsed();
    let phase = std::time::Instant::now();
    let what = example.what.clone();
    for (how, outcome) in outcomes {
        let named = match (expectation, &outcome) {
            (Expectation::Refuse { .. }, Outcome::Refused(problems)) => {
                names_each(problems, must_name).map_err(|poor| Finding {
                    category: Category::PoorMessage,
                    signature: poor.fault.clone(),
                    detail: poor.detail,
                })
            }
            _ => Ok(()),
        };
        if let Err(finding) = constraints.judge(expectation, &outcome).and(named) {
            report.add(
                finding,
                Example {
                    what: format!("{what}, {how}"),
                    ..example.clone()
                },
            );
        }
    }
    counts.phases[1] += phase.elapsed();
}

/// Every instance of one tool and target.
fn run_job(
    rt: &Runtime,
    set: &ToolSet,
    plan: &Plan,
    target_plan: &TargetPlan,
    base: u64,
    indices: &[usize],
) -> Report {
    let started = std::time::Instant::now();
    let mut report = Report::default();
    let mut counts = Counts::default();
    let target = target_plan.target;
    let tool = plan.name().to_owned();
    let recursive = mentions_ref(&target_plan.shown);
    let constraints = plan.constraints();
    for &index in indices {
        let example = |what: &str| Example {
            tool: tool.clone(),
            target,
            index,
            what: what.to_owned(),
            instance: String::new(),
            detail: String::new(),
        };
        let mut rng = Rng::new(Rng::seed_for(
            base,
            &[&tool, target.short_name()],
            index as u64,
        ));
        let shape = if recursive && rng.chance(0.04) {
            Shape::deep()
        } else {
            Shape::normal()
        };
        // A valid instance of the shown schema (the generator aims; the validator decides).
        let phase = std::time::Instant::now();
        let mut generator = Generator::new(&target_plan.shown, rng, shape);
        let mut instance = None;
        let mut last_errors = Vec::new();
        for _ in 0..20 {
            let candidate = generator.instance();
            let errors: Vec<String> = target_plan
                .validator
                .iter_errors(&candidate)
                .map(|e| format!("at `{}`: {e}", e.instance_path()))
                .collect();
            if errors.is_empty() {
                instance = Some(candidate);
                break;
            }
            last_errors = errors;
            last_errors.push(format!(
                "instance: {}",
                shorten(&candidate.to_string(), 300)
            ));
        }
        let mut rng = generator.rng;
        counts.phases[0] += phase.elapsed();
        let Some(instance) = instance else {
            counts.not_generated += 1;
            report.add(
                Finding {
                    category: Category::Generator,
                    signature: mask(last_errors.first().map_or("", String::as_str)),
                    detail: last_errors.join("; "),
                },
                example("generating"),
            );
            continue;
        };
        counts.generated += 1;
        let phase = std::time::Instant::now();
        let expectation = constraints.expectation(&instance, true);
        counts.phases[1] += phase.elapsed();
        match expectation {
            Expectation::Accept { .. } => counts.valid += 1,
            _ => counts.described += 1,
        }
        let what = match expectation {
            Expectation::Accept { .. } => "valid",
            _ => "valid for the target, breaking a rule its schema does not state",
        };
        call_and_judge(
            rt,
            set,
            plan,
            &expectation,
            &instance,
            Forms::Both,
            &[],
            example(what),
            &mut report,
            &mut counts,
        );
        // An instance of the MCP schema is valid in every target's form.
        let phase = std::time::Instant::now();
        let mut strict_form = None;
        if target == Target::Mcp && matches!(expectation, Expectation::Accept { .. }) {
            for other in plan.targets.iter().filter(|t| t.target != Target::Mcp) {
                let form = if other.strict {
                    absent_as_null(&other.shown, &instance, &other.shown)
                } else {
                    instance.clone()
                };
                if other.strict && form != instance {
                    strict_form = Some(form.clone());
                }
                if let Some(error) = other.validator.iter_errors(&form).next() {
                    report.add(
                        Finding {
                            category: Category::StricterRendering,
                            signature: format!(
                                "{}: {}",
                                other.target.short_name(),
                                mask(&error.to_string())
                            ),
                            detail: format!(
                                "valid for MCP, but for {} at `{}`: {error}; its form: {}",
                                other.target,
                                error.instance_path(),
                                shorten(&form.to_string(), 300)
                            ),
                        },
                        Example {
                            instance: shorten(&instance.to_string(), 400),
                            ..example("an MCP instance in another target's form")
                        },
                    );
                }
            }
        }
        counts.phases[3] += phase.elapsed();
        // That instance in the strict targets' form (`null` for what it leaves out) is called
        // too, in one form: the strict targets' own instances often break a rule their schema
        // only describes (a pattern, a format), so these are their fully valid calls.
        if let Some(form) = strict_form {
            counts.converted += 1;
            let expectation = constraints.expectation(&form, true);
            let forms = if index % 2 == 0 {
                Forms::Value
            } else {
                Forms::Text
            };
            call_and_judge(
                rt,
                set,
                plan,
                &expectation,
                &form,
                forms,
                &[],
                example("an MCP instance in the strict targets' form"),
                &mut report,
                &mut counts,
            );
        }
        // Faults in two or more fields of one object, each to be named at its own place (not
        // the object explained through a branch of its union that would drop it).
        if rng.chance(SIBLINGS_RATE) {
            let phase = std::time::Instant::now();
            let broken = break_siblings(
                &target_plan.shown,
                &instance,
                |v| !target_plan.validator.is_valid(v),
                &mut rng,
            );
            counts.phases[4] += phase.elapsed();
            if let Some((mutated, places)) = broken {
                let expectation = constraints.expectation(&mutated, false);
                *report.mutations.entry("siblings".to_owned()).or_default() += 1;
                counts.invalid += 1;
                let forms = if rng.chance(0.5) {
                    Forms::Value
                } else {
                    Forms::Text
                };
                call_and_judge(
                    rt,
                    set,
                    plan,
                    &expectation,
                    &mutated,
                    forms,
                    &places,
                    example(&format!("{} fields of one object broken", places.len())),
                    &mut report,
                    &mut counts,
                );
            }
        }
        // A mutation, confirmed invalid for the shown schema.
        if !rng.chance(MUTATION_RATE) {
            continue;
        }
        for _ in 0..5 {
            let phase = std::time::Instant::now();
            let Some((mutated, what, family)) = mutate(&target_plan.shown, &instance, &mut rng)
            else {
                continue;
            };
            if target_plan.validator.is_valid(&mutated) {
                counts.phases[4] += phase.elapsed();
                continue;
            }
            counts.phases[4] += phase.elapsed();
            let phase = std::time::Instant::now();
            let expectation = constraints.expectation(&mutated, false);
            counts.phases[1] += phase.elapsed();
            *report.mutations.entry(family.to_owned()).or_default() += 1;
            let label = match expectation {
                Expectation::Either { .. } => {
                    counts.tolerated += 1;
                    format!("mutated ({what}), invalid for the target only")
                }
                _ => {
                    counts.invalid += 1;
                    format!("mutated ({what})")
                }
            };
            // One form per mutation (half the calls): across hundreds of them both paths are
            // taken often.
            let forms = if rng.chance(0.5) {
                Forms::Value
            } else {
                Forms::Text
            };
            call_and_judge(
                rt,
                set,
                plan,
                &expectation,
                &mutated,
                forms,
                &[],
                example(&label),
                &mut report,
                &mut counts,
            );
            break;
        }
    }
    counts.millis = started.elapsed().as_millis();
    report.counts.insert((tool, target), counts);
    report
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime")
}

// ---------------------------------------------------------------------------------------------
// Schema-level checks.
// ---------------------------------------------------------------------------------------------

/// Defaults of `f32`s (`format: float`) must be the short decimal the programmer wrote, not its
/// widening to `f64` (`0.1`, not `0.10000000149011612`).
fn widened_defaults(plan: &Plan, report: &mut Report) {
    for node in tooldef_tests::walk(&plan.canonical) {
        let schema = node.schema;
        if schema.get("format").and_then(Value::as_str) != Some("float") {
            continue;
        }
        let Some(default) = schema.get("default").and_then(Value::as_f64) else {
            continue;
        };
        let short: f64 = format!("{}", default as f32).parse().unwrap_or(default);
        if short != default {
            report.add(
                Finding {
                    category: Category::Schema,
                    signature: "an f32 default shown widened to f64".to_owned(),
                    detail: format!(
                        "`default` at `{}` is {default}, the f32 {} ({short})",
                        node.pointer, default as f32
                    ),
                },
                Example {
                    tool: plan.name().to_owned(),
                    target: Target::Mcp,
                    index: 0,
                    what: "the canonical schema".to_owned(),
                    instance: String::new(),
                    detail: String::new(),
                },
            );
        }
    }
}

/// The string values of a unit enum, in the order a rendering lists them.
fn enum_values_in_order(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("enum", Value::Array(values)) => {
                        out.extend(values.iter().filter_map(Value::as_str).map(str::to_owned))
                    }
                    ("const", Value::String(s)) => out.push(s.clone()),
                    ("description", _) => {}
                    _ => enum_values_in_order(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| enum_values_in_order(i, out)),
        _ => {}
    }
}

/// A unit enum documented on only some variants: schemars lists the undocumented variants first
/// and tooldef cannot restore the declaration order (docs/TARGET_RULES.md, "document every
/// variant, or none"). Said as a note, not a failure: the order changes nothing a call accepts.
fn unit_enum_order(plans: &[Plan], report: &mut Report) {
    let declared = ["low", "normal", "high", "critical"];
    for plan in plans.iter().filter(|p| p.name() == "file_ticket") {
        let mut differ = Vec::new();
        let mut listed = Vec::new();
        for target_plan in &plan.targets {
            let mut values = Vec::new();
            enum_values_in_order(&target_plan.shown["properties"]["priority"], &mut values);
            if values != declared {
                differ.push(target_plan.target.short_name());
                listed = values;
            }
        }
        if !differ.is_empty() {
            report.notes.push(format!(
                "file_ticket's `priority` is listed as {listed:?} (declared {declared:?}) in {} \
                 (a documented limitation: document every variant, or none)",
                differ.join(", ")
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The properties.
// ---------------------------------------------------------------------------------------------

#[test]
fn what_the_schema_allows_the_call_accepts() {
    let started = std::time::Instant::now();
    let set = tricky::echoes();
    let (plans, refused) = plans(&set);
    // Only the recursive tree is refused, and only by Gemini.
    assert_eq!(
        refused
            .iter()
            .map(|(tool, target, _)| (tool.as_str(), *target))
            .collect::<Vec<_>>(),
        [("store_tree", Target::Gemini)],
        "{refused:?}"
    );
    let base = seed();
    let (only_tool, only_target, only_index) = only();
    let indices = |plan: &Plan| -> Vec<usize> {
        match only_index {
            Some(i) => vec![i],
            None => (0..cases(plan.targets.len())).collect(),
        }
    };
    let jobs: Vec<(&Plan, &TargetPlan)> = plans
        .iter()
        .filter(|p| only_tool.as_deref().is_none_or(|t| t == p.name()))
        .flat_map(|p| p.targets.iter().map(move |t| (p, t)))
        .filter(|(_, t)| {
            only_target
                .as_deref()
                .is_none_or(|s| s == t.target.short_name())
        })
        .collect();
    assert!(!jobs.is_empty(), "SCHEMA_ONLY matches nothing");
    // The biggest schemas (recursive ones above all) first, so that no core idles at the end.
    let mut jobs = jobs;
    jobs.sort_by_key(|(_, t)| {
        let size = t.shown.to_string().len();
        std::cmp::Reverse(if mentions_ref(&t.shown) {
            size * 4
        } else {
            size
        })
    });

    let next = AtomicUsize::new(0);
    let report = Mutex::new(Report::default());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let rt = runtime();
                loop {
                    let job = next.fetch_add(1, Ordering::Relaxed);
                    let Some((plan, target_plan)) = jobs.get(job) else {
                        break;
                    };
                    let part = run_job(&rt, &set, plan, target_plan, base, &indices(plan));
                    report.lock().expect("not poisoned").merge(part);
                }
            });
        }
    });
    let mut report = report.into_inner().expect("not poisoned");
    if only_tool.is_none() {
        for plan in &plans {
            widened_defaults(plan, &mut report);
        }
        unit_enum_order(&plans, &mut report);
    }

    if std::env::var_os("SCHEMA_COUNTS").is_some() {
        println!("{}", report.counts_table());
    }
    let mut phases = [std::time::Duration::ZERO; 5];
    for c in report.counts.values() {
        for (p, q) in phases.iter_mut().zip(c.phases) {
            *p += q;
        }
    }
    let summary = format!(
        "{}{}took {:.1} s on {workers} threads; the jobs spent: generating {:.1} s, judging \
         {:.1} s, calling {:.1} s, checking other targets' forms {:.1} s, mutating {:.1} s",
        report.summary(),
        report
            .notes
            .iter()
            .map(|n| format!("note: {n}\n"))
            .collect::<String>(),
        started.elapsed().as_secs_f64(),
        phases[0].as_secs_f64(),
        phases[1].as_secs_f64(),
        phases[2].as_secs_f64(),
        phases[3].as_secs_f64(),
        phases[4].as_secs_f64()
    );
    println!("{summary}");
    if only_index.is_none() {
        // Enough instances everywhere: DRAWS_PER_TOOL generated per tool, across its targets.
        for plan in &plans {
            let drawn: usize = report
                .counts
                .iter()
                .filter(|((tool, _), _)| tool == plan.name())
                .map(|(_, c)| c.generated + c.not_generated)
                .sum();
            let wanted = indices(plan).len() * plan.targets.len();
            assert_eq!(drawn, wanted, "{}", plan.name());
            if std::env::var_os("SCHEMA_CASES").is_none() && only_tool.is_none() {
                assert!(drawn >= DRAWS_PER_TOOL, "{}: {drawn}", plan.name());
            }
        }
    }
    if !report.groups.is_empty() {
        panic!("{}\n{summary}", report.findings_text(base));
    }
}

#[test]
fn the_tools_cover_the_shapes_asked_for() {
    let set = tricky::echoes();
    let names: Vec<&str> = set.definitions().map(ToolDefinition::name).collect();
    for showcase in tricky::SHOWCASE {
        assert!(names.contains(&showcase), "{showcase}");
    }
    assert!(names.len() >= 30, "{} tools", names.len());
    assert!(names.len() - tricky::SHOWCASE.len() >= 21);
    // `store_labels` opted out of portability: rendered non-strict for OpenAI, as the user asked.
    let chat = set
        .definition("store_labels")
        .expect("a tool")
        .to_json(Target::ChatCompletions)
        .expect("rendered");
    assert_eq!(chat["function"]["strict"], false);
}

// ---------------------------------------------------------------------------------------------
// The oracle on known instances, so that the properties cannot pass vacuously.
// ---------------------------------------------------------------------------------------------

fn plan_of<'p>(plans: &'p [Plan], tool: &str) -> &'p Plan {
    plans
        .iter()
        .find(|p| p.name() == tool)
        .unwrap_or_else(|| panic!("no tool {tool}"))
}

#[test]
fn the_oracle_classifies_known_instances() {
    let set = tricky::echoes();
    let (plans, _) = plans(&set);
    let levels = plan_of(&plans, "set_levels").constraints();
    let base = json!({
        "percent": 1, "delta": 0, "byte": 3, "tiny": -1, "short": 5, "word": 6,
        "int": 7, "uint": 8,
    });
    // `3.0` is the integer 3; `null` for an optional property is its absence.
    let mut float = base.clone();
    float["byte"] = json!(3.0);
    float["step"] = Value::Null;
    match levels.expectation(&float, true) {
        Expectation::Accept { meant } => {
            assert_eq!(meant.get("step"), None);
            assert_eq!(
                levels
                    .judge(
                        &Expectation::Accept {
                            meant: meant.clone()
                        },
                        &Outcome::Accepted(json!({
                            "percent": 1, "delta": 0, "byte": 3, "tiny": -1, "short": 5, "word": 6,
                            "int": 7, "uint": 8, "step": null,
                        }))
                    )
                    .map_err(|f| f.detail),
                Ok(())
            );
            // A changed value is caught.
            let changed = levels.judge(
                &Expectation::Accept { meant },
                &Outcome::Accepted(json!({
                    "percent": 1, "delta": 0, "byte": 4, "tiny": -1, "short": 5, "word": 6,
                    "int": 7, "uint": 8, "step": null,
                })),
            );
            assert_eq!(changed.unwrap_err().category, Category::ChangedMeaning);
        }
        other => panic!("{other:?}"),
    }
    // Past a bound: refused, and a serde-worded message is poor.
    let mut big = base.clone();
    big["byte"] = json!(256);
    let expectation = levels.expectation(&big, false);
    assert!(matches!(expectation, Expectation::Refuse { .. }));
    let good = levels.judge(
        &expectation,
        &Outcome::Refused(vec![tooldef::ArgumentProblem {
            pointer: "/byte".to_owned(),
            message: "must be at most 255, got 256".to_owned(),
        }]),
    );
    assert!(good.is_ok(), "{good:?}");
    for message in [
        "invalid value: integer `256`, expected u8",
        "must be at most 255",
        "expected another type",
    ] {
        let poor = levels.judge(
            &expectation,
            &Outcome::Refused(vec![tooldef::ArgumentProblem {
                pointer: "/byte".to_owned(),
                message: message.to_owned(),
            }]),
        );
        assert_eq!(
            poor.map_err(|f| f.category),
            Err(Category::PoorMessage),
            "{message}"
        );
    }
    let misplaced = levels.judge(
        &expectation,
        &Outcome::Refused(vec![tooldef::ArgumentProblem {
            pointer: String::new(),
            message: "must be at most 255, got 256".to_owned(),
        }]),
    );
    assert!(misplaced.is_err());
    // A date-time with an offset is the same instant.
    let slot = plan_of(&plans, "book_slot").constraints();
    let sent = json!({
        "at": "2024-01-01T01:00:00+01:00", "local": "2024-01-01T00:00:00.5-02:30",
        "day": "2024-02-29", "clock": "08:00:00.5", "stamp": "2024-01-01T08:00:00",
    });
    let Expectation::Accept { meant } = slot.expectation(&sent, true) else {
        panic!("valid");
    };
    let echoed = json!({
        "at": "2024-01-01T00:00:00Z", "local": "2024-01-01T00:00:00.500-02:30",
        "day": "2024-02-29", "clock": "08:00:00.500", "stamp": "2024-01-01T08:00:00",
        "until": null,
    });
    assert!(
        slot.judge(&Expectation::Accept { meant }, &Outcome::Accepted(echoed))
            .is_ok()
    );
}

#[test]
fn generated_instances_cover_what_rust_values_never_produce() {
    // Over the MCP schema of `set_levels` and `record_counters`: integer-valued floats, the
    // 64-bit extremes and bounds exactly; for the strict Chat schema of `connect`: `null`s.
    let set = tricky::echoes();
    let (plans, _) = plans(&set);
    let mut seen = BTreeSet::new();
    for (tool, target) in [
        ("set_levels", Target::Mcp),
        ("record_counters", Target::Mcp),
        ("connect", Target::ChatCompletions),
        ("book_slot", Target::Mcp),
        ("measure", Target::Mcp),
    ] {
        let plan = plan_of(&plans, tool);
        let shown = &plan
            .targets
            .iter()
            .find(|t| t.target == target)
            .expect("rendered")
            .shown;
        for i in 0..300 {
            let mut generator = Generator::new(
                shown,
                Rng::new(Rng::seed_for(1, &[tool], i)),
                Shape::normal(),
            );
            let text = generator.instance().to_string();
            for (mark, needle) in [
                ("float integer", ".0,"),
                ("i64::MIN", "-9223372036854775808"),
                ("i64::MAX", "9223372036854775807"),
                ("u64::MAX", "18446744073709551615"),
                ("u8 bound", "\"byte\":255"),
                ("null", "null"),
                ("offset", "+0"),
                ("fraction", ":00."),
                ("f32 max", "3.4028235e+38"),
            ] {
                if text.contains(needle) {
                    seen.insert(mark);
                }
            }
        }
    }
    assert_eq!(seen.len(), 9, "{seen:?}");
    // A recursive type nested past the 64 levels of JSON a call used to be limited to.
    let tree = plan_of(&plans, "store_tree");
    let deepest = (0..20)
        .map(|i| {
            let mut generator = Generator::new(
                &tree.targets[0].shown,
                Rng::new(Rng::seed_for(2, &["deep"], i)),
                Shape::deep(),
            );
            depth(&generator.instance())
        })
        .max()
        .unwrap_or(0);
    assert!(deepest > 64, "{deepest}");
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The bugs issue 11 started from, as outcomes the oracle must flag (whether or not the tool set
/// still has them): each is a call and what a buggy tool set answered.
#[test]
fn the_oracle_flags_the_bugs_issue_11_started_from() {
    let set = tricky::echoes();
    let (plans, _) = plans(&set);
    let refused = |pointer: &str, message: &str| {
        Outcome::Refused(vec![tooldef::ArgumentProblem {
            pointer: pointer.to_owned(),
            message: message.to_owned(),
        }])
    };
    let levels = json!({
        "percent": 1, "delta": 0, "byte": 3.0, "tiny": -1, "short": 5, "word": 6, "int": 7,
        "uint": 8,
    });
    let mut extra = levels.clone();
    extra["extra"] = json!(1);
    let mut deep = json!({"label": "leaf"});
    for _ in 0..40 {
        deep = json!({"label": "x", "children": [deep]});
    }
    let cases = [
        (
            "set_levels",
            levels.clone(),
            refused("/byte", "invalid type: floating point `3.0`, expected u8"),
            Category::RefusedValid,
        ),
        (
            "measure",
            json!({"ratio": 1e39, "precise": 1.0, "samples": []}),
            Outcome::Accepted(json!({"ratio": null, "precise": 1.0, "maybe": null, "samples": []})),
            Category::AcceptedInvalid,
        ),
        (
            "record_counters",
            json!({"total": 9223372036854775808.0, "count": 1, "id": 1}),
            refused(
                "/total",
                "must be a 64-bit integer, got 9223372036854775808",
            ),
            Category::PoorMessage,
        ),
        (
            "apply_edit",
            json!({"edit": {"op": "reset"}, "keep_original": "yes"}),
            refused(
                "/keep_original",
                "expected another type, got a string (\"yes\")",
            ),
            Category::PoorMessage,
        ),
        (
            "set_levels",
            extra,
            refused(
                "",
                "unknown field `extra`, expected one of `percent`, `delta`, `byte`",
            ),
            Category::PoorMessage,
        ),
        (
            "book_slot",
            json!({
                "at": "2024-01-01T00:00:00Z", "local": "2024-01-01T00:00:00+01:00",
                "day": "2024-01-01", "clock": "08:00:00", "stamp": "2024-01-01T08:00:00",
            }),
            refused("/at", "input is out of range"),
            Category::RefusedValid,
        ),
        (
            "store_tree",
            json!({"root": deep}),
            refused(
                "",
                "the arguments are nested 82 levels deep; at most 64 are accepted",
            ),
            Category::RefusedValid,
        ),
    ];
    for (tool, instance, outcome, category) in cases {
        let constraints = plan_of(&plans, tool).constraints();
        let expectation = constraints.expectation(&instance, true);
        let verdict = constraints.judge(&expectation, &outcome);
        assert_eq!(
            verdict.as_ref().map_err(|f| f.category),
            Err(category),
            "{tool}: {instance} → {outcome:?}: {verdict:?}"
        );
    }
}
