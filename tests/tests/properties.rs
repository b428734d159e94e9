//! Property tests of the showcase's argument types against every target's rendered schema.
//!
//! For every showcase tool, random arguments that respect the Rust types and every constraint the
//! schema states are turned into JSON in two forms:
//!
//! - the *plain* form, with absent optional and defaulted properties left out, which must be
//!   valid against the input schema of MCP, Anthropic and Gemini;
//! - the *strict* form, with every absent property sent as `null` at every nesting level, as
//!   OpenAI strict mode makes a model send them, which must be valid against the input schema of
//!   Chat Completions and Responses.
//!
//! Both forms are then called, as a JSON value and as JSON text, through two tool sets:
//!
//! - [`ECHOES`], the showcase's tools with their own definitions and argument structs but a
//!   function that hands back the arguments as deserialised: they must equal the generated values
//!   with defaults applied (the argument structs have no `PartialEq`, and several functions ignore
//!   some of their parameters, so their results alone would not show every field);
//! - [`showcase::toolset`], where every call must succeed and give what calling the Rust function
//!   directly with the same values (defaults applied) gives.
//!
//! The standalone argument types (`Units`, `Cabin`, `FlightSearch`, `Guest`, `Stop`, `Schedule`)
//! derive `PartialEq` and round-trip directly: value → JSON → valid against the schema each
//! target gives the type wherever it appears → deserialised → equal to the value.
//!
//! Formats (`date`, `date-time`, `email`) are asserted, not just annotated. Gemini's schema is
//! OpenAPI-flavoured; it is validated as JSON Schema 2020-12 once its `nullable: true` is spelled
//! as the type `null` (its other keywords, `propertyOrdering` and `format: double`, are ignored).

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::LazyLock;

use proptest::prelude::*;
use proptest::string::string_regex;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::runtime::Runtime;
use tooldef::{Args, Target, ToolError, ToolOutput, ToolSet};
use tooldef_examples::showcase::{
    self, Cabin, FlightSearch, Guest, Schedule, Stop, Units, book_hotel, cancel_booking,
    convert_currency, get_server_time, get_weather, plan_itinerary, search_flights, send_message,
    set_reminder,
};
use tooldef_tests::tricky::showcase::add_echoes;

/// Cases per property.
const CASES: u32 = 1000;

// ---------------------------------------------------------------------------------------------
// Schemas and validators, built once.
// ---------------------------------------------------------------------------------------------

/// A tool's input schema as one target renders it, ready to validate against.
struct Rendered {
    /// The schema (Gemini's with `nullable` spelled as JSON Schema); `None` for a Gemini tool
    /// without parameters.
    schema: Option<Value>,
    /// Its validator, formats asserted.
    validator: Option<jsonschema::Validator>,
}

fn validator_for(schema: &Value, at: &str) -> jsonschema::Validator {
    assert!(
        !schema.to_string().contains("\"$ref\""),
        "{at}: a `$ref` would not resolve in a subschema: {schema}"
    );
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|err| panic!("{at}: the schema does not compile: {err}\n{schema}"))
}

/// The input schema of `definition` as `target` renders it.
fn input_schema(name: &str, target: Target) -> Option<Value> {
    let definition = TOOLS
        .definition(name)
        .unwrap_or_else(|| panic!("no showcase tool `{name}`"));
    let json = definition
        .to_json(target)
        .unwrap_or_else(|err| panic!("{name} for {target}: {err}"));
    // Gemini omits its parameters for a tool without any.
    let mut schema = tooldef_tests::input_schema_in(&json, target).cloned();
    if target == Target::Gemini
        && let Some(schema) = &mut schema
    {
        openapi_nullable_as_json_schema(schema);
    }
    if !target.is_gemini() {
        assert!(schema.is_some(), "{name} for {target}: no input schema");
    }
    schema
}

/// OpenAPI 3.0's `nullable: true` (Gemini) as JSON Schema: `null` added to `type` and `enum`.
fn openapi_nullable_as_json_schema(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("nullable") == Some(&Value::Bool(true)) {
                map.remove("nullable");
                if let Some(Value::String(ty)) = map.get("type").cloned() {
                    map.insert("type".to_owned(), json!([ty, "null"]));
                }
                if let Some(Value::Array(values)) = map.get_mut("enum") {
                    values.push(Value::Null);
                }
            }
            map.values_mut().for_each(openapi_nullable_as_json_schema);
        }
        Value::Array(items) => items.iter_mut().for_each(openapi_nullable_as_json_schema),
        _ => {}
    }
}

static TOOLS: LazyLock<ToolSet> = LazyLock::new(showcase::toolset);

/// Every showcase tool's input schema and validator for every target, by tool name.
static INPUTS: LazyLock<HashMap<&'static str, Vec<(Target, Rendered)>>> = LazyLock::new(|| {
    TOOLS
        .definitions()
        .map(|definition| {
            let name = definition.name();
            let rendered = Target::ALL
                .into_iter()
                .map(|target| {
                    let schema = input_schema(name, target);
                    let validator = schema
                        .as_ref()
                        .map(|s| validator_for(s, &format!("{name} for {target}")));
                    (target, Rendered { schema, validator })
                })
                .collect();
            (name, rendered)
        })
        .collect()
});

/// The schema each target gives a standalone type, where it sits in a tool's input schema (at a
/// JSON Pointer), and its validator.
type TypeSchemas = Vec<(String, Target, Value, jsonschema::Validator)>;

fn type_schemas(tool: &str, pointer: &str) -> TypeSchemas {
    Target::ALL
        .into_iter()
        .map(|target| {
            let root = input_schema(tool, target)
                .unwrap_or_else(|| panic!("{tool} for {target}: no parameters"));
            let at = format!("{tool}#{pointer} for {target}");
            let schema = root
                .pointer(pointer)
                .unwrap_or_else(|| panic!("{at}: no such schema in {root}"))
                .clone();
            let validator = validator_for(&schema, &at);
            (at, target, schema, validator)
        })
        .collect()
}

static UNITS_SCHEMAS: LazyLock<TypeSchemas> =
    LazyLock::new(|| type_schemas("get_weather", "/properties/units"));
static CABIN_SCHEMAS: LazyLock<TypeSchemas> =
    LazyLock::new(|| type_schemas("search_flights", "/properties/cabin"));
static FLIGHT_SEARCH_SCHEMAS: LazyLock<TypeSchemas> =
    LazyLock::new(|| type_schemas("search_flights", ""));
static GUEST_SCHEMAS: LazyLock<TypeSchemas> =
    LazyLock::new(|| type_schemas("book_hotel", "/properties/guest"));
static STOP_SCHEMAS: LazyLock<TypeSchemas> =
    LazyLock::new(|| type_schemas("plan_itinerary", "/properties/stops/items"));
static SCHEDULE_SCHEMAS: LazyLock<TypeSchemas> =
    LazyLock::new(|| type_schemas("set_reminder", "/properties/schedule"));

fn errors_of(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The strict form.
// ---------------------------------------------------------------------------------------------

/// `instance` with every property the (strict) `schema` declares but `instance` lacks sent as
/// `null`, at every nesting level: objects by `properties`, arrays by `items`, unions by the
/// `anyOf` branch the instance belongs to.
fn fill_nulls(instance: &Value, schema: &Value) -> Value {
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array)
        && let Some(branch) = branches.iter().find(|b| belongs_to(instance, b))
    {
        return fill_nulls(instance, branch);
    }
    match instance {
        Value::Object(object) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return instance.clone();
            };
            let mut filled = Map::new();
            for (key, property) in properties {
                let value = object
                    .get(key)
                    .map_or(Value::Null, |value| fill_nulls(value, property));
                filled.insert(key.clone(), value);
            }
            // Anything the schema does not declare stays, for validation to reject.
            for (key, value) in object {
                if !properties.contains_key(key) {
                    filled.insert(key.clone(), value.clone());
                }
            }
            Value::Object(filled)
        }
        Value::Array(items) => match schema.get("items") {
            Some(item) if item.is_object() => {
                Value::Array(items.iter().map(|i| fill_nulls(i, item)).collect())
            }
            _ => instance.clone(),
        },
        _ => instance.clone(),
    }
}

/// Whether an object `instance` belongs to the object `branch`: every key it has is declared,
/// and every property the branch pins to one value (a tag) has that value.
fn belongs_to(instance: &Value, branch: &Value) -> bool {
    let (Some(object), Some(properties)) = (
        instance.as_object(),
        branch.get("properties").and_then(Value::as_object),
    ) else {
        return false;
    };
    object.keys().all(|k| properties.contains_key(k))
        && properties.iter().all(|(key, property)| {
            let pinned = property.get("const").or_else(|| {
                property
                    .get("enum")
                    .and_then(Value::as_array)
                    .filter(|values| values.len() == 1)
                    .map(|values| &values[0])
            });
            match pinned {
                Some(tag) => object.get(key) == Some(tag),
                None => true,
            }
        })
}

/// `value` without the `null` members of its objects, at every level: the plain form of a
/// serialised value whose `None`s serde wrote as `null`.
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Checks.
// ---------------------------------------------------------------------------------------------

/// Checks the plain form against the MCP, Anthropic and Gemini input schemas and the strict form
/// (made from each OpenAI schema) against the Chat Completions and Responses ones; returns the
/// strict form.
fn strict_form_and_check(tool: &str, plain: &Value) -> Result<Value, TestCaseError> {
    let mut strict_forms = Vec::new();
    for (target, rendered) in &INPUTS[tool] {
        let (form, instance) = match &rendered.schema {
            Some(schema) if target.is_openai() => {
                strict_forms.push(fill_nulls(plain, schema));
                ("strict", strict_forms.last().expect("just pushed"))
            }
            _ => ("plain", plain),
        };
        match &rendered.validator {
            Some(validator) => {
                let errors = errors_of(validator, instance);
                prop_assert!(
                    errors.is_empty(),
                    "{tool} for {target}: the {form} form {instance} is invalid: {errors:#?}\nschema: {}",
                    rendered.schema.as_ref().unwrap_or(&Value::Null)
                );
            }
            // Gemini without `parameters`: only an empty object fits.
            None => prop_assert_eq!(instance, &json!({}), "{} for {}", tool, target),
        }
    }
    // Both OpenAI targets ask for the same strict form.
    prop_assert_eq!(strict_forms.len(), 2, "{}: two OpenAI schemas", tool);
    prop_assert_eq!(
        &strict_forms[0],
        &strict_forms[1],
        "{}: two strict forms",
        tool
    );
    Ok(strict_forms.swap_remove(0))
}

/// What a successful call must give back for a function that returned `expected`.
fn assert_output(
    at: &str,
    tool: &str,
    output: &ToolOutput,
    expected: &Value,
) -> Result<(), TestCaseError> {
    let has_output_schema = TOOLS
        .definition(tool)
        .is_some_and(|d| d.output_schema().is_some());
    prop_assert_eq!(output.structured.is_some(), has_output_schema, "{}", at);
    if let Some(structured) = &output.structured {
        prop_assert_eq!(structured, expected, "{}: structured content", at);
    }
    let text = output.to_text();
    match expected {
        // A string result is the text itself, structured or not.
        Value::String(s) => prop_assert_eq!(&text, s, "{}: text", at),
        _ => {
            let parsed: Value = serde_json::from_str(&text).map_err(|err| {
                TestCaseError::fail(format!("{at}: the text {text:?} is not JSON: {err}"))
            })?;
            prop_assert_eq!(&parsed, expected, "{}: text", at);
        }
    }
    Ok(())
}

/// The showcase's tools as echoes (`tooldef_tests::tricky::showcase`): the same definitions,
/// argument types and pipeline, with functions that hand back the arguments as deserialised.
static ECHOES: LazyLock<ToolSet> = LazyLock::new(|| {
    add_echoes(ToolSet::builder())
        .build()
        .expect("distinct names")
});

/// One call: where it was made, and what the tool gave (its output, or its own error).
type Outcome = (String, Result<ToolOutput, String>);

/// Calls `tool` in `tools` with the plain and strict forms, each as a JSON value and as JSON
/// text: what each call gave, or the first error other than the function's own.
fn call_four_ways(
    rt: &Runtime,
    tools: &ToolSet,
    tool: &str,
    plain: &Value,
    strict: &Value,
) -> Result<Vec<Outcome>, TestCaseError> {
    let mut outcomes = Vec::new();
    for (form, arguments) in [("plain", plain), ("strict", strict)] {
        let text = serde_json::to_string(arguments).expect("JSON text");
        let as_value = rt.block_on(tools.call(tool, arguments));
        let as_text = rt.block_on(tools.call(tool, text.as_str()));
        for (how, result) in [("as a value", as_value), ("as text", as_text)] {
            let at = format!("{tool}, the {form} form {arguments} {how}");
            match result {
                Ok(output) => outcomes.push((at, Ok(output))),
                // The function's own error: compared with the direct call's.
                Err(ToolError::Failed { message, .. }) => outcomes.push((at, Err(message))),
                Err(error) => {
                    return Err(TestCaseError::fail(format!(
                        "{at}: the call failed: {error}\n{error:#?}"
                    )));
                }
            }
        }
    }
    Ok(outcomes)
}

/// A tool property: the arguments' strict form and validation in every target; then, with the
/// plain and strict forms, each as a JSON value and as JSON text:
///
/// - through [`ECHOES`], the tool's argument struct must be deserialised as `received` (the
///   generated values with defaults applied);
/// - through [`showcase::toolset`], every call must reach the function and give what calling it
///   directly gives (`expected`: its return value, or its error's message).
fn check_tool(
    rt: &Runtime,
    tool: &str,
    plain: &Value,
    received: &Value,
    expected: impl FnOnce() -> Result<Value, String>,
) -> Result<(), TestCaseError> {
    let strict = strict_form_and_check(tool, plain)?;
    for (at, outcome) in call_four_ways(rt, &ECHOES, tool, plain, &strict)? {
        let output = outcome
            .map_err(|message| TestCaseError::fail(format!("{at}: the echo failed: {message}")))?;
        let echoed = match output.structured {
            Some(structured) => structured,
            None => serde_json::from_str(&output.to_text()).expect("an echo is JSON"),
        };
        prop_assert_eq!(&echoed, received, "{}: the arguments as deserialised", at);
    }
    // The tool set first, so that a direct call that panics cannot hide what the set did.
    let outcomes = call_four_ways(rt, &TOOLS, tool, plain, &strict)?;
    let expected = expected();
    for (at, outcome) in outcomes {
        match (outcome, &expected) {
            (Ok(output), Ok(expected)) => assert_output(&at, tool, &output, expected)?,
            (Err(message), Err(expected)) => prop_assert_eq!(&message, expected, "{}", at),
            // A NaN or infinite number (an amount near `f64::MAX` converted, say) has no JSON
            // form: serde_json writes `null`, which an output schema that wants a number refuses,
            // and the set says so rather than sending a result the client would refuse.
            (Err(message), Ok(Value::Null))
                if message.contains("has `null` where its output schema does not allow it") => {}
            (outcome, expected) => {
                return Err(TestCaseError::fail(format!(
                    "{at}: the call gave {outcome:?}, the direct call {expected:?}"
                )));
            }
        }
    }
    Ok(())
}

fn returned<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).expect("a serialisable return value")
}

/// A standalone type's property: its serde form valid in every target and back equal; the plain
/// form (`None`s left out, absent defaults left out) valid for the non-OpenAI targets and back
/// equal; the strict form (absent properties as `null`) valid for the OpenAI targets.
fn check_type<T>(schemas: &TypeSchemas, value: &T, plain: &Value) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let serialised = serde_json::to_value(value).expect("serialisable");
    let back: T = serde_json::from_value(serialised.clone())
        .map_err(|err| TestCaseError::fail(format!("{serialised} does not deserialise: {err}")))?;
    prop_assert_eq!(&back, value, "from its own JSON {}", serialised);
    let back: T = serde_json::from_value(plain.clone())
        .map_err(|err| TestCaseError::fail(format!("{plain} does not deserialise: {err}")))?;
    prop_assert_eq!(&back, value, "from its plain form {}", plain);
    for (at, target, schema, validator) in schemas {
        let mut forms = vec![("serde", serialised.clone())];
        if target.is_openai() {
            forms.push(("strict", fill_nulls(plain, schema)));
        } else {
            forms.push(("plain", plain.clone()));
        }
        for (form, instance) in forms {
            let errors = errors_of(validator, &instance);
            prop_assert!(
                errors.is_empty(),
                "{at}: the {form} form {instance} is invalid: {errors:#?}\nschema: {schema}"
            );
        }
    }
    Ok(())
}

/// Runs `test` on `CASES` values of `strategy`; on failure, panics with the minimal input.
fn run<S>(strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy,
    S::Value: Debug,
{
    let config = Config {
        cases: CASES,
        // Only this file is ours to write: no regression files next to it.
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    match runner.run(&strategy, test) {
        Ok(()) => {}
        Err(TestError::Fail(reason, value)) => {
            panic!("{reason}\nminimal failing input: {value:#?}")
        }
        Err(TestError::Abort(reason)) => panic!("aborted: {reason}"),
    }
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime")
}

// ---------------------------------------------------------------------------------------------
// Strategies.
// ---------------------------------------------------------------------------------------------

fn regex(pattern: &str) -> BoxedStrategy<String> {
    string_regex(pattern)
        .unwrap_or_else(|err| panic!("{pattern}: {err}"))
        .boxed()
}

/// Any text of `min..=max` characters (Unicode scalar values, as `minLength`/`maxLength`
/// count them): printable ASCII half of the time, anything the other half.
fn text(min: usize, max: usize) -> BoxedStrategy<String> {
    prop_oneof![
        regex(&format!("[ -~]{{{min},{max}}}")),
        regex(&format!("(?s).{{{min},{max}}}")),
    ]
    .boxed()
}

fn strings(max_items: usize) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(0, 20), 0..=max_items)
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// An RFC 3339 `full-date`.
fn date() -> impl Strategy<Value = String> {
    (prop_oneof![1970u32..=2100, 0u32..=9999], 1u32..=12)
        .prop_flat_map(|(year, month)| (Just(year), Just(month), 1..=days_in_month(year, month)))
        .prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
}

/// An RFC 3339 `date-time` (without leap seconds).
fn date_time() -> impl Strategy<Value = String> {
    let offset = prop_oneof![
        Just("Z".to_owned()),
        (prop::bool::ANY, 0u32..=23, 0u32..=59)
            .prop_map(|(east, h, m)| format!("{}{h:02}:{m:02}", if east { '+' } else { '-' })),
    ];
    (
        date(),
        0u32..=23,
        0u32..=59,
        0u32..=59,
        prop::option::of(regex("[0-9]{1,9}")),
        offset,
    )
        .prop_map(|(date, h, m, s, fraction, offset)| {
            let fraction = fraction.map(|f| format!(".{f}")).unwrap_or_default();
            format!("{date}T{h:02}:{m:02}:{s:02}{fraction}{offset}")
        })
}

/// An email address: a dot-atom local part at a host name (whose labels never hold `--`, which
/// RFC 5891 reserves in third and fourth place for IDNA).
fn email() -> BoxedStrategy<String> {
    regex(
        r"[A-Za-z0-9_+-]{1,12}(\.[A-Za-z0-9_+-]{1,8}){0,2}@([a-z0-9](-?[a-z0-9]){0,10}\.){1,3}[a-z]{2,6}",
    )
}

fn units() -> impl Strategy<Value = Units> {
    prop_oneof![Just(Units::Metric), Just(Units::Imperial)]
}

fn cabin() -> impl Strategy<Value = Cabin> {
    prop_oneof![
        Just(Cabin::Economy),
        Just(Cabin::PremiumEconomy),
        Just(Cabin::Business)
    ]
}

/// Inserts `value` under `key` when present.
fn put<T: Serialize>(object: &mut Map<String, Value>, key: &str, value: Option<T>) {
    if let Some(value) = value {
        object.insert(key.to_owned(), returned(value));
    }
}

/// A `FlightSearch` as generated: `None` is an absent property.
#[derive(Debug, Clone)]
struct FlightSearchArgs {
    origin: String,
    destination: String,
    departure_date: String,
    return_date: Option<String>,
    passengers: Option<u8>,
    cabin: Option<Cabin>,
    nonstop_only: Option<bool>,
}

impl FlightSearchArgs {
    fn value(&self) -> FlightSearch {
        FlightSearch {
            origin: self.origin.clone(),
            destination: self.destination.clone(),
            departure_date: self.departure_date.clone(),
            return_date: self.return_date.clone(),
            passengers: self.passengers.unwrap_or(1),
            cabin: self.cabin.unwrap_or(Cabin::Economy),
            nonstop_only: self.nonstop_only.unwrap_or(false),
        }
    }

    fn plain(&self) -> Value {
        let mut object = Map::new();
        object.insert("origin".into(), self.origin.clone().into());
        object.insert("destination".into(), self.destination.clone().into());
        object.insert("departureDate".into(), self.departure_date.clone().into());
        put(&mut object, "returnDate", self.return_date.clone());
        put(&mut object, "passengers", self.passengers);
        put(&mut object, "cabin", self.cabin);
        put(&mut object, "nonstopOnly", self.nonstop_only);
        Value::Object(object)
    }
}

/// An IATA-like code: exactly three characters.
fn airport() -> BoxedStrategy<String> {
    prop_oneof![regex("[A-Z]{3}"), regex("(?s).{3}")].boxed()
}

fn flight_search() -> impl Strategy<Value = FlightSearchArgs> {
    (
        airport(),
        airport(),
        date(),
        prop::option::of(date()),
        prop::option::of(1u8..=9),
        prop::option::of(cabin()),
        prop::option::of(prop::bool::ANY),
    )
        .prop_map(
            |(
                origin,
                destination,
                departure_date,
                return_date,
                passengers,
                cabin,
                nonstop_only,
            )| {
                FlightSearchArgs {
                    origin,
                    destination,
                    departure_date,
                    return_date,
                    passengers,
                    cabin,
                    nonstop_only,
                }
            },
        )
}

fn guest() -> impl Strategy<Value = Guest> {
    (
        text(1, 100),
        email(),
        prop::option::of(regex(r"\+[1-9][0-9]{6,14}")),
    )
        .prop_map(|(name, email, phone)| Guest { name, email, phone })
}

fn guest_plain(guest: &Guest) -> Value {
    let mut object = Map::new();
    object.insert("name".into(), guest.name.clone().into());
    object.insert("email".into(), guest.email.clone().into());
    put(&mut object, "phone", guest.phone.clone());
    Value::Object(object)
}

/// A `Stop` as generated: `None` is absent `activities`.
#[derive(Debug, Clone)]
struct StopArgs {
    city: String,
    nights: u32,
    activities: Option<Vec<String>>,
}

impl StopArgs {
    fn value(&self) -> Stop {
        Stop {
            city: self.city.clone(),
            nights: self.nights,
            activities: self.activities.clone().unwrap_or_default(),
        }
    }

    fn plain(&self) -> Value {
        let mut object = Map::new();
        object.insert("city".into(), self.city.clone().into());
        object.insert("nights".into(), self.nights.into());
        put(&mut object, "activities", self.activities.clone());
        Value::Object(object)
    }
}

fn stop() -> impl Strategy<Value = StopArgs> {
    (
        text(0, 30),
        // Mostly a plausible stay; now and then anywhere up to the type's maximum.
        prop_oneof![4 => 1u32..=60, 1 => 1u32..=u32::MAX],
        prop::option::of(strings(5)),
    )
        .prop_map(|(city, nights, activities)| StopArgs {
            city,
            nights,
            activities,
        })
}

fn schedule() -> impl Strategy<Value = Schedule> {
    prop_oneof![
        date_time().prop_map(|at| Schedule::Once { at }),
        (0u8..=23, 0u8..=59).prop_map(|(hour, minute)| Schedule::Daily { hour, minute }),
        (1u8..=72).prop_map(|hours| Schedule::BeforeDeparture { hours }),
    ]
}

// ---------------------------------------------------------------------------------------------
// The helpers the properties rest on, on known values, so that the properties cannot pass
// vacuously.
// ---------------------------------------------------------------------------------------------

#[test]
fn the_strict_form_sends_null_at_every_level() {
    let plain = json!({
        "hotel_id": "h1",
        "guest": {"name": "Ana", "email": "ana@example.com"},
        "check_in": "2026-01-31",
        "nights": 2,
    });
    assert_eq!(
        strict_form_and_check("book_hotel", &plain).unwrap(),
        json!({
            "hotel_id": "h1",
            "guest": {"name": "Ana", "email": "ana@example.com", "phone": null},
            "check_in": "2026-01-31",
            "nights": 2,
            "requests": null,
        })
    );
    let plain = json!({"stops": [
        {"city": "Porto", "nights": 2},
        {"city": "Faro", "nights": 1, "activities": ["swim"]},
    ]});
    assert_eq!(
        strict_form_and_check("plan_itinerary", &plain).unwrap(),
        json!({
            "stops": [
                {"city": "Porto", "nights": 2, "activities": null},
                {"city": "Faro", "nights": 1, "activities": ["swim"]},
            ],
            "pace": null,
        })
    );
    let plain = json!({"text": "Pack", "schedule": {"kind": "daily", "hour": 8, "minute": 0}});
    assert_eq!(
        strict_form_and_check("set_reminder", &plain).unwrap(),
        json!({
            "text": "Pack",
            "schedule": {"kind": "daily", "hour": 8, "minute": 0},
            "volume": null,
        })
    );
}

#[test]
fn the_validators_reject_what_the_schemas_forbid() {
    let rejects = |tool: &str, target: Target, instance: Value| {
        let (_, rendered) = INPUTS[tool]
            .iter()
            .find(|(t, _)| *t == target)
            .expect("every target");
        let validator = rendered.validator.as_ref().expect("a schema");
        assert!(
            !errors_of(validator, &instance).is_empty(),
            "{tool} for {target} accepts {instance}"
        );
    };
    // Formats are asserted, not just annotations.
    rejects(
        "send_agent_message",
        Target::Mcp,
        json!({"to": "not an address", "subject": "Hi", "body": ""}),
    );
    rejects(
        "book_hotel",
        Target::Anthropic,
        json!({
            "hotel_id": "h1",
            "guest": {"name": "Ana", "email": "ana@example.com"},
            "check_in": "2026-02-29",
            "nights": 2,
        }),
    );
    rejects(
        "set_reminder",
        Target::ChatCompletions,
        json!({"text": "Pack", "schedule": {"kind": "once", "at": "2026-12-01 08:00"}, "volume": null}),
    );
    // Strict mode wants every property: the plain form is not enough.
    rejects("get_weather", Target::Responses, json!({"city": "Lisbon"}));
    // Gemini's `nullable` admits `null`, nothing more; its bounds still hold.
    rejects(
        "convert_currency",
        Target::Gemini,
        json!({"amount": 1, "from": "EUR", "to": "USD", "round_to": "2"}),
    );
    rejects(
        "convert_currency",
        Target::Gemini,
        json!({"amount": -1, "from": "EUR", "to": "USD"}),
    );
    // A tag with another variant's fields.
    for target in Target::ALL {
        rejects(
            "set_reminder",
            target,
            json!({"text": "Pack", "schedule": {"kind": "daily", "hours": 3}, "volume": 0.5}),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The standalone argument types.
// ---------------------------------------------------------------------------------------------

#[test]
fn units_round_trip_in_every_target() {
    run(units(), |units| {
        check_type(&UNITS_SCHEMAS, &units, &returned(units))
    });
}

#[test]
fn cabin_round_trips_in_every_target() {
    run(cabin(), |cabin| {
        check_type(&CABIN_SCHEMAS, &cabin, &returned(cabin))
    });
}

#[test]
fn flight_search_round_trips_in_every_target() {
    run(flight_search(), |args| {
        check_type(&FLIGHT_SEARCH_SCHEMAS, &args.value(), &args.plain())
    });
}

#[test]
fn guest_round_trips_in_every_target() {
    run(guest(), |guest| {
        check_type(&GUEST_SCHEMAS, &guest, &guest_plain(&guest))
    });
}

#[test]
fn stop_round_trips_in_every_target() {
    run(stop(), |args| {
        check_type(&STOP_SCHEMAS, &args.value(), &args.plain())
    });
}

#[test]
fn schedule_round_trips_in_every_target() {
    run(schedule(), |schedule| {
        let serialised = returned(&schedule);
        // Every field of every variant is required: its plain form is its serde form.
        prop_assert_eq!(&without_nulls(&serialised), &serialised);
        check_type(&SCHEDULE_SCHEMAS, &schedule, &serialised)
    });
}

// ---------------------------------------------------------------------------------------------
// The tools.
// ---------------------------------------------------------------------------------------------

#[test]
fn get_server_time_calls_round_trip() {
    let rt = runtime();
    run(Just(()), |()| {
        check_tool(&rt, "get_server_time", &json!({}), &json!({}), || {
            Ok(returned(get_server_time()))
        })
    });
}

#[test]
fn get_weather_calls_round_trip() {
    let rt = runtime();
    let strategy = (
        text(0, 40),
        prop::option::of(1u32..=14),
        prop::option::of(units()),
        prop::option::of(prop::bool::ANY),
    );
    run(strategy, |(city, days, units, include_hourly)| {
        let mut plain = Map::new();
        plain.insert("city".into(), city.clone().into());
        put(&mut plain, "days", days);
        put(&mut plain, "units", units);
        put(&mut plain, "include_hourly", include_hourly);
        let (days, units, include_hourly) = (
            days.unwrap_or(3),
            units.unwrap_or(Units::Metric),
            include_hourly.unwrap_or(false),
        );
        let received = json!({
            "city": city,
            "days": days,
            "units": units,
            "include_hourly": include_hourly,
        });
        check_tool(&rt, "get_weather", &Value::Object(plain), &received, || {
            Ok(returned(get_weather(city, days, units, include_hourly)))
        })
    });
}

#[test]
fn convert_currency_calls_round_trip() {
    let rt = runtime();
    // Mostly currencies the function knows; now and then one it refuses (its own error).
    let currency = || {
        prop_oneof![
            3 => prop::sample::select(vec!["EUR", "USD", "GBP", "JPY"]).prop_map(str::to_owned),
            1 => regex("[A-Z]{3}"),
        ]
    };
    let amount = prop_oneof![
        4 => 0.0f64..1e6,
        2 => (0u32..1_000_000).prop_map(f64::from),
        1 => prop::num::f64::POSITIVE | prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL
            | prop::num::f64::ZERO,
        1 => Just(0.0),
        1 => Just(-0.0),
    ];
    let strategy = (amount, currency(), currency(), prop::option::of(0u8..=6));
    run(strategy, |(amount, from, to, round_to)| {
        let mut plain = Map::new();
        plain.insert("amount".into(), returned(amount));
        plain.insert("from".into(), from.clone().into());
        plain.insert("to".into(), to.clone().into());
        put(&mut plain, "round_to", round_to);
        let received = json!({"amount": amount, "from": from, "to": to, "round_to": round_to});
        check_tool(
            &rt,
            "convert_currency",
            &Value::Object(plain),
            &received,
            || {
                rt.block_on(convert_currency(amount, from, to, round_to))
                    .map(returned)
                    .map_err(|err| err.to_string())
            },
        )
    });
}

#[test]
fn search_flights_calls_round_trip() {
    let rt = runtime();
    run(flight_search(), |args| {
        let search = args.value();
        check_tool(
            &rt,
            "search_flights",
            &args.plain(),
            &returned(&search),
            || Ok(returned(rt.block_on(search_flights(Args(search))))),
        )
    });
}

#[test]
fn book_hotel_calls_round_trip() {
    let rt = runtime();
    let strategy = (
        text(0, 40),
        guest(),
        date(),
        1u16..=30,
        prop::option::of(strings(5)),
    );
    run(strategy, |(hotel_id, guest, check_in, nights, requests)| {
        let mut plain = Map::new();
        plain.insert("hotel_id".into(), hotel_id.clone().into());
        plain.insert("guest".into(), guest_plain(&guest));
        plain.insert("check_in".into(), check_in.clone().into());
        plain.insert("nights".into(), nights.into());
        put(&mut plain, "requests", requests.clone());
        let requests = requests.unwrap_or_default();
        let received = json!({
            "hotel_id": hotel_id,
            "guest": guest,
            "check_in": check_in,
            "nights": nights,
            "requests": requests,
        });
        check_tool(&rt, "book_hotel", &Value::Object(plain), &received, || {
            Ok(returned(book_hotel(
                hotel_id, guest, check_in, nights, requests,
            )))
        })
    });
}

#[test]
fn plan_itinerary_calls_round_trip() {
    let rt = runtime();
    let strategy = (
        prop::collection::vec(stop(), 1..=10),
        prop::option::of(text(0, 20)),
    );
    run(strategy, |(stops, pace)| {
        let mut plain = Map::new();
        plain.insert(
            "stops".into(),
            Value::Array(stops.iter().map(StopArgs::plain).collect()),
        );
        put(&mut plain, "pace", pace.clone());
        let stops: Vec<Stop> = stops.iter().map(StopArgs::value).collect();
        let pace = pace.unwrap_or_else(|| "relaxed".to_owned());
        let received = json!({"stops": stops, "pace": pace});
        check_tool(
            &rt,
            "plan_itinerary",
            &Value::Object(plain),
            &received,
            || Ok(returned(plan_itinerary(stops, pace))),
        )
    });
}

#[test]
fn set_reminder_calls_round_trip() {
    let rt = runtime();
    let volume = prop_oneof![4 => 0.0f64..=1.0, 1 => Just(0.0), 1 => Just(1.0)];
    let strategy = (text(1, 200), schedule(), prop::option::of(volume));
    run(strategy, |(text, schedule, volume)| {
        let mut plain = Map::new();
        plain.insert("text".into(), text.clone().into());
        plain.insert("schedule".into(), returned(&schedule));
        put(&mut plain, "volume", volume);
        let volume = volume.unwrap_or(0.5);
        let received = json!({"text": text, "schedule": schedule, "volume": volume});
        check_tool(
            &rt,
            "set_reminder",
            &Value::Object(plain),
            &received,
            || Ok(returned(set_reminder(text, schedule, volume))),
        )
    });
}

#[test]
fn send_agent_message_calls_round_trip() {
    let rt = runtime();
    let strategy = (
        email(),
        text(1, 78),
        text(0, 200),
        prop::option::of(prop::bool::ANY),
    );
    run(strategy, |(to, subject, body, read_receipt)| {
        let mut plain = Map::new();
        plain.insert("to".into(), to.clone().into());
        plain.insert("subject".into(), subject.clone().into());
        plain.insert("body".into(), body.clone().into());
        put(&mut plain, "readReceipt", read_receipt);
        let read_receipt = read_receipt.unwrap_or(true);
        let received = json!({
            "to": to,
            "subject": subject,
            "body": body,
            "readReceipt": read_receipt,
        });
        check_tool(
            &rt,
            "send_agent_message",
            &Value::Object(plain),
            &received,
            || Ok(returned(send_message(to, subject, body, read_receipt))),
        )
    });
}

#[test]
fn cancel_booking_calls_round_trip() {
    let rt = runtime();
    let strategy = (
        regex("BK-[A-Za-z0-9-]{1,20}"),
        prop::option::of(text(0, 60)),
    );
    run(strategy, |(reference, reason)| {
        let mut plain = Map::new();
        plain.insert("reference".into(), reference.clone().into());
        put(&mut plain, "reason", reason.clone());
        let received = json!({"reference": reference, "reason": reason});
        check_tool(
            &rt,
            "cancel_booking",
            &Value::Object(plain),
            &received,
            || Ok(returned(cancel_booking(reference, reason))),
        )
    });
}
