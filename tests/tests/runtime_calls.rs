//! Calling tools through a `ToolSet`: the strict-mode round trip of every showcase tool, the
//! argument forms, typed calls, outputs, injected context, listing, leniency, time limits and
//! many concurrent calls on one set.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tooldef::{
    Args, BuildError, CallContext, CancellationToken, Content, Leniency, State, Target, Tool,
    ToolError, ToolOutput, ToolSet, tool,
};
use tooldef_examples::showcase::{self, Cabin, FlightSearch, Schedule, Stop, Units};

// ---------------------------------------------------------------------------------------------
// Local tools
// ---------------------------------------------------------------------------------------------

#[derive(Clone)]
struct Greeting(String);

/// Greet someone, with the server's greeting and the call's id.
#[tool]
fn greet(
    /// Who to greet.
    name: String,
    State(greeting): State<Greeting>,
    call: CallContext,
) -> String {
    format!(
        "{}, {name}! (call {})",
        greeting.0,
        call.call_id().unwrap_or("without id")
    )
}

/// Show a picture with a caption.
#[tool]
fn gallery(
    /// The caption.
    caption: String,
) -> ToolOutput {
    ToolOutput::blocks([
        Content::Text(caption),
        Content::Image {
            data: "iVBORw0KGgo=".to_owned(),
            mime_type: "image/png".to_owned(),
        },
    ])
}

/// The tokens the `sleepy` tool was given, in call order.
#[derive(Clone, Default)]
struct Tokens(Arc<Mutex<Vec<CancellationToken>>>);

impl Tokens {
    fn last(&self) -> CancellationToken {
        self.0.lock().unwrap().last().cloned().expect("a token")
    }
}

/// Sleep, then answer.
#[tool]
async fn sleepy(
    /// How long to sleep.
    millis: u64,
    cancel: CancellationToken,
    State(tokens): State<Tokens>,
) -> String {
    tokens.0.lock().unwrap().push(cancel);
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("slept {millis} ms")
}

/// Always panics.
#[tool]
fn explode() -> String {
    panic!("boom")
}

/// Keeps the expected panics of `explode` out of the test output; other panics are reported as
/// usual.
fn quiet_booms() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<&str>() != Some(&"boom") {
                default(info);
            }
        }));
    });
}

/// Look something up (one of two tools with this name).
#[tool(name = "lookup")]
fn lookup_first() -> String {
    "first".to_owned()
}

/// Look something up (the other one).
#[tool(name = "lookup")]
fn lookup_second() -> String {
    "second".to_owned()
}

// `ToolSet` is shared between tasks and cloned into them.
const _: fn() = || {
    fn shareable<T: Send + Sync + Clone + 'static>() {}
    shareable::<ToolSet>();
};

// ---------------------------------------------------------------------------------------------
// Strict mode: what an OpenAI model sends
// ---------------------------------------------------------------------------------------------

/// The parameters schema the model is shown in Chat Completions strict mode.
fn chat_parameters(tools: &ToolSet, name: &str) -> Value {
    let rendered = tools
        .definition(name)
        .unwrap_or_else(|| panic!("no tool `{name}`"))
        .to_json(Target::ChatCompletions)
        .unwrap();
    assert_eq!(rendered["function"]["strict"], true, "{name}");
    rendered["function"]["parameters"].clone()
}

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

/// The arguments a strict-mode model sends: every property present at every level, `null` for
/// each one whose type allows it, otherwise the sample given for its pointer (objects and arrays
/// of objects are filled property by property; an array gets one item).
fn strict_arguments(tool: &str, parameters: &Value, samples: &[(&str, Value)]) -> Value {
    let mut used = Vec::new();
    let value = fill(tool, parameters, "", samples, &mut used);
    for (pointer, _) in samples {
        assert!(
            used.contains(pointer),
            "{tool}: the sample for `{pointer}` was not needed: the schema changed?"
        );
    }
    value
}

fn fill<'s>(
    tool: &str,
    schema: &Value,
    pointer: &str,
    samples: &[(&'s str, Value)],
    used: &mut Vec<&'s str>,
) -> Value {
    let types = types_of(schema);
    if types.contains(&"null") {
        return Value::Null;
    }
    if let Some((at, sample)) = samples.iter().find(|(at, _)| *at == pointer) {
        used.push(at);
        return sample.clone();
    }
    match types.as_slice() {
        ["object"] => {
            let properties = schema["properties"].as_object().unwrap();
            // Strict mode: closed objects whose every property is required.
            assert_eq!(
                schema["additionalProperties"], false,
                "{tool} {pointer}: {schema}"
            );
            let required: Vec<&str> = schema["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            let names: Vec<&str> = properties.keys().map(String::as_str).collect();
            assert_eq!(required, names, "{tool} {pointer}: every property required");
            properties
                .iter()
                .map(|(name, property)| {
                    let at = format!("{pointer}/{name}");
                    (name.clone(), fill(tool, property, &at, samples, used))
                })
                .collect::<serde_json::Map<_, _>>()
                .into()
        }
        ["array"] => {
            let at = format!("{pointer}/0");
            json!([fill(tool, &schema["items"], &at, samples, used)])
        }
        _ => panic!("{tool}: no sample for the required `{pointer}`: {schema}"),
    }
}

/// The pointers of every `null` in `value`.
fn null_pointers(value: &Value, pointer: &str, out: &mut Vec<String>) {
    match value {
        Value::Null => out.push(pointer.to_owned()),
        Value::Object(map) => {
            for (key, value) in map {
                null_pointers(value, &format!("{pointer}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, value) in items.iter().enumerate() {
                null_pointers(value, &format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

struct StrictCase {
    tool: &'static str,
    /// Values for the properties that cannot be `null`.
    samples: Vec<(&'static str, Value)>,
    /// Where the strict arguments hold `null`.
    nulls: &'static [&'static str],
    /// The output with every default applied.
    expected: ToolOutput,
}

fn structured(value: Value) -> ToolOutput {
    ToolOutput {
        content: vec![Content::Text(value.to_string())],
        structured: Some(value),
    }
}

fn strict_cases() -> Vec<StrictCase> {
    vec![
        StrictCase {
            tool: "get_server_time",
            samples: vec![],
            nulls: &[],
            expected: string_output("2026-11-22T09:30:00Z"),
        },
        StrictCase {
            tool: "get_weather",
            samples: vec![("/city", json!("Lisbon"))],
            nulls: &["/days", "/units", "/include_hourly"],
            // Three days, metric.
            expected: structured(json!({
                "city": "Lisbon",
                "units": "metric",
                "days": [
                    {"high": 20.0, "low": 12.0, "rain_chance": 0.0},
                    {"high": 21.0, "low": 13.0, "rain_chance": 0.25},
                    {"high": 22.0, "low": 14.0, "rain_chance": 0.5}
                ]
            })),
        },
        StrictCase {
            tool: "convert_currency",
            samples: vec![
                ("/amount", json!(1)),
                ("/from", json!("USD")),
                ("/to", json!("EUR")),
            ],
            nulls: &["/round_to"],
            // Unrounded.
            expected: ToolOutput::json(json!(1.0 / 1.08), true),
        },
        StrictCase {
            tool: "search_flights",
            samples: vec![
                ("/origin", json!("LIS")),
                ("/destination", json!("CDG")),
                ("/departureDate", json!("2026-12-01")),
            ],
            nulls: &["/returnDate", "/passengers", "/cabin", "/nonstopOnly"],
            // One passenger, economy (90 €), one way, with stops allowed.
            expected: structured(json!({
                "offers": [
                    {"flight": "XX42", "price_eur": 90.0 * 0.7 * 1.0 * 1.0, "stops": 1},
                    {"flight": "LI71", "price_eur": 90.0, "stops": 0}
                ]
            })),
        },
        StrictCase {
            tool: "book_hotel",
            samples: vec![
                ("/hotel_id", json!("h123")),
                ("/guest/name", json!("Ada Lovelace")),
                ("/guest/email", json!("ada@example.com")),
                ("/check_in", json!("2026-12-01")),
                ("/nights", json!(3)),
            ],
            nulls: &["/guest/phone", "/requests"],
            expected: structured(json!({"reference": "BK-h123-3", "total_eur": 285.0})),
        },
        StrictCase {
            tool: "plan_itinerary",
            samples: vec![
                ("/stops/0/city", json!("Lisbon")),
                ("/stops/0/nights", json!(2)),
            ],
            nulls: &["/stops/0/activities", "/pace"],
            expected: structured(json!({
                "total_nights": 2,
                "summary": "Lisbon (2 nights), at a relaxed pace"
            })),
        },
        StrictCase {
            tool: "set_reminder",
            samples: vec![
                ("/text", json!("Check in online")),
                (
                    "/schedule",
                    json!({"kind": "daily", "hour": 8, "minute": 5}),
                ),
            ],
            nulls: &["/volume"],
            expected: string_output("Reminder \"Check in online\" set daily at 08:05 UTC"),
        },
        StrictCase {
            tool: "send_agent_message",
            samples: vec![
                ("/to", json!("agent@example.com")),
                ("/subject", json!("Late arrival")),
                ("/body", json!("I will arrive after midnight.")),
            ],
            nulls: &["/readReceipt"],
            // A read receipt by default.
            expected: string_output(
                "Sent \"Late arrival\" to agent@example.com with read receipt (29 characters)",
            ),
        },
        StrictCase {
            tool: "cancel_booking",
            samples: vec![("/reference", json!("BK-h123-3"))],
            nulls: &["/reason"],
            expected: string_output("Cancelled BK-h123-3"),
        },
    ]
}

#[tokio::test]
async fn strict_mode_arguments_with_nulls_are_accepted_by_every_showcase_tool() {
    let tools = showcase::toolset();
    let cases = strict_cases();
    let covered: Vec<&str> = cases.iter().map(|c| c.tool).collect();
    let all: Vec<&str> = tools.definitions().map(|d| d.name()).collect();
    assert_eq!(covered, all, "every showcase tool has a strict case");

    for case in cases {
        let parameters = chat_parameters(&tools, case.tool);
        let arguments = strict_arguments(case.tool, &parameters, &case.samples);
        // The arguments are what the schema shown to the model allows...
        let validator = jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&parameters)
            .unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&arguments)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {arguments}: {errors:?}", case.tool);
        // ... with `null` exactly where expected, nested ones included.
        let mut nulls = Vec::new();
        null_pointers(&arguments, "", &mut nulls);
        assert_eq!(nulls, case.nulls, "{}: {arguments}", case.tool);

        // As text (Chat Completions' `function.arguments`) and as a parsed value.
        let from_text = tools.call(case.tool, arguments.to_string()).await;
        assert_eq!(
            from_text.as_ref(),
            Ok(&case.expected),
            "{} with {arguments}",
            case.tool
        );
        let from_value = tools.call(case.tool, &arguments).await;
        assert_eq!(
            from_value,
            Ok(case.expected),
            "{} with {arguments}",
            case.tool
        );
    }
}

#[tokio::test]
async fn strict_nulls_inside_nested_objects_take_their_defaults() {
    let tools = showcase::toolset();
    // Two stops, one with activities and one with `null`, and the guest's phone both ways.
    let output = tools
        .call(
            "plan_itinerary",
            r#"{"stops": [{"city": "Lisbon", "nights": 2, "activities": ["tram 28"]},
                          {"city": "Porto", "nights": 1, "activities": null}],
                "pace": null}"#,
        )
        .await
        .unwrap();
    assert_eq!(
        output.structured,
        Some(json!({
            "total_nights": 3,
            "summary": "Lisbon (2 nights) → Porto (1 nights), at a relaxed pace"
        }))
    );
    let output = tools
        .call(
            "book_hotel",
            json!({
                "hotel_id": "h9",
                "guest": {"name": "Ada", "email": "ada@example.com", "phone": "+351912345678"},
                "check_in": "2026-12-01",
                "nights": 1,
                "requests": null
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        output.structured,
        Some(json!({"reference": "BK-h9-1", "total_eur": 95.0}))
    );
    // Values given instead of `null` are used, not the defaults.
    let output = tools
        .call(
            "search_flights",
            r#"{"origin": "LIS", "destination": "CDG", "departureDate": "2026-12-01",
                "returnDate": "2026-12-08", "passengers": 2, "cabin": "business",
                "nonstopOnly": true}"#,
        )
        .await
        .unwrap();
    assert_eq!(
        output.structured,
        Some(json!({"offers": [{"flight": "LI71", "price_eur": 1680.0, "stops": 0}]}))
    );
}

// ---------------------------------------------------------------------------------------------
// Argument forms, typed calls, outputs
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn arguments_as_str_string_bytes_and_value_give_the_same_output() {
    let tools = showcase::toolset();
    let text = r#"{"city": "Oslo", "days": 2, "units": "imperial"}"#;
    let value: Value = serde_json::from_str(text).unwrap();
    let expected = tools.call("get_weather", text).await.unwrap();
    assert_eq!(
        expected.structured.as_ref().unwrap()["days"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(expected.structured.as_ref().unwrap()["units"], "imperial");
    let outputs = [
        tools.call("get_weather", text.to_owned()).await,
        tools.call("get_weather", text.as_bytes()).await,
        tools.call("get_weather", text.as_bytes().to_vec()).await,
        tools.call("get_weather", &value).await,
        tools.call("get_weather", value.clone()).await,
        // Whitespace around the object, as text and as bytes.
        tools.call("get_weather", format!("\n  {text}  \n")).await,
        tools
            .call("get_weather", format!("\t{text}\r\n").into_bytes())
            .await,
    ];
    for (i, output) in outputs.into_iter().enumerate() {
        assert_eq!(output.as_ref(), Ok(&expected), "form {i}");
    }
}

#[tokio::test]
async fn the_tool_without_parameters_takes_nothing_null_or_an_empty_object() {
    let tools = showcase::toolset();
    let expected = string_output("2026-11-22T09:30:00Z");
    for arguments in ["", "   ", "null", " null ", "{}", "{ }"] {
        assert_eq!(
            tools.call("get_server_time", arguments).await.as_ref(),
            Ok(&expected),
            "{arguments:?}"
        );
    }
    assert_eq!(
        tools
            .call("get_server_time", Vec::<u8>::new())
            .await
            .as_ref(),
        Ok(&expected)
    );
    assert_eq!(
        tools.call("get_server_time", Value::Null).await.as_ref(),
        Ok(&expected)
    );
    assert_eq!(
        tools.call("get_server_time", json!({})).await.as_ref(),
        Ok(&expected)
    );
}

#[tokio::test]
async fn typed_calls_skip_parsing_and_keep_the_output_handling() {
    let tools = showcase::toolset();
    let output = tools
        .call_typed(
            &showcase::GetWeather,
            showcase::GetWeatherArgs {
                city: "Oslo".to_owned(),
                days: 2,
                units: Units::Imperial,
                include_hourly: true,
            },
            CallContext::new(),
        )
        .await
        .unwrap();
    let forecast = output.structured.clone().unwrap();
    assert_eq!(forecast["city"], "Oslo");
    assert_eq!(forecast["units"], "imperial");
    assert_eq!(forecast["days"].as_array().unwrap().len(), 2);
    assert_eq!(output.to_text(), forecast.to_string());

    // The whole-struct form, typed.
    let search = FlightSearch {
        origin: "OPO".to_owned(),
        destination: "LHR".to_owned(),
        departure_date: "2026-12-01".to_owned(),
        return_date: None,
        passengers: 3,
        cabin: Cabin::PremiumEconomy,
        nonstop_only: true,
    };
    let output = tools
        .call_typed(&showcase::SearchFlights, search, CallContext::new())
        .await
        .unwrap();
    assert_eq!(
        output.structured,
        Some(json!({"offers": [{"flight": "OP71", "price_eur": 480.0, "stops": 0}]}))
    );

    // A tool that is not in the set, with the set's state.
    let tools = ToolSet::builder()
        .state(Greeting("Hello".to_owned()))
        .build()
        .unwrap();
    let output = tools
        .call_typed(
            &Greet,
            GreetArgs {
                name: "Ada".to_owned(),
            },
            CallContext::new().with_call_id("typed-1"),
        )
        .await
        .unwrap();
    assert_eq!(output, string_output("Hello, Ada! (call typed-1)"));
    // Its errors too.
    let error = tools
        .call_typed(
            &showcase::ConvertCurrency,
            showcase::ConvertCurrencyArgs {
                amount: 1.0,
                from: "XYZ".to_owned(),
                to: "EUR".to_owned(),
                round_to: None,
            },
            CallContext::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::Failed { .. }), "{error:?}");
}

#[tokio::test]
async fn a_tool_with_an_output_schema_gives_structured_content_and_the_same_json_as_text() {
    let tools = showcase::toolset();
    assert!(
        tools
            .definition("book_hotel")
            .unwrap()
            .output_schema()
            .is_some()
    );
    let output = tools
        .call(
            "book_hotel",
            r#"{"hotel_id": "h7", "guest": {"name": "Ada", "email": "ada@example.com"},
                "check_in": "2026-12-01", "nights": 2}"#,
        )
        .await
        .unwrap();
    let expected = json!({"reference": "BK-h7-2", "total_eur": 190.0});
    assert_eq!(output.structured.as_ref(), Some(&expected));
    assert_eq!(output.content.len(), 1);
    let Content::Text(text) = &output.content[0] else {
        panic!("{output:?}");
    };
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), expected);
    assert_eq!(text, &expected.to_string());
}

#[tokio::test]
async fn a_string_result_is_its_text_unquoted_and_a_number_its_json() {
    let tools = showcase::toolset();
    // A `String` has an output schema like any other type: structured content for MCP.
    let schema = tools
        .definition("cancel_booking")
        .unwrap()
        .output_schema()
        .expect("a string's schema");
    assert_eq!(schema.get("type"), Some(&json!("string")));
    let output = tools
        .call(
            "cancel_booking",
            r#"{"reference": "BK-h1-2", "reason": "plans changed"}"#,
        )
        .await
        .unwrap();
    // The model reads the string itself, not its JSON spelling with quotes.
    assert_eq!(
        output,
        ToolOutput {
            content: vec![Content::Text("Cancelled BK-h1-2: plans changed".to_owned())],
            structured: Some(json!("Cancelled BK-h1-2: plans changed")),
        }
    );
    assert!(output.repeats_structured(&output.content[0]));
    let output = tools
        .call(
            "convert_currency",
            r#"{"amount": 100, "from": "EUR", "to": "GBP", "round_to": 1}"#,
        )
        .await
        .unwrap();
    assert_eq!(
        output,
        ToolOutput {
            content: vec![Content::Text("85.0".to_owned())],
            structured: Some(json!(85.0)),
        }
    );
}

#[tokio::test]
async fn a_tool_returning_tool_output_passes_its_blocks_through() {
    let tools = ToolSet::builder().tool(Gallery).build().unwrap();
    assert!(Gallery.definition().output_schema().is_none());
    let output = tools
        .call("gallery", r#"{"caption": "The harbour"}"#)
        .await
        .unwrap();
    assert_eq!(
        output,
        ToolOutput {
            content: vec![
                Content::Text("The harbour".to_owned()),
                Content::Image {
                    data: "iVBORw0KGgo=".to_owned(),
                    mime_type: "image/png".to_owned(),
                },
            ],
            structured: None,
        }
    );
    assert_eq!(output.to_text(), "The harbour\n\n[image: image/png]");
}

#[tokio::test]
async fn an_err_result_is_a_failure_with_the_tools_message() {
    let tools = showcase::toolset();
    let error = tools
        .call(
            "convert_currency",
            r#"{"amount": 5, "from": "EUR", "to": "CHF"}"#,
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ToolError::Failed {
            tool: "convert_currency".to_owned(),
            message: "no exchange rate for `CHF`; try EUR, USD, GBP or JPY".to_owned(),
        }
    );
    assert_eq!(
        error.to_string(),
        "`convert_currency` failed: no exchange rate for `CHF`; try EUR, USD, GBP or JPY"
    );
}

// ---------------------------------------------------------------------------------------------
// Context
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn state_and_call_id_reach_the_tool() {
    let tools = ToolSet::builder()
        .tool(Greet)
        .state(Greeting("Bonjour".to_owned()))
        .build()
        .unwrap();
    let output = tools
        .call_with(
            "greet",
            r#"{"name": "Ada"}"#,
            CallContext::new().with_call_id("c1"),
        )
        .await
        .unwrap();
    assert_eq!(output, string_output("Bonjour, Ada! (call c1)"));
    // Without a call id.
    let output = tools.call("greet", r#"{"name": "Alan"}"#).await.unwrap();
    assert_eq!(output, string_output("Bonjour, Alan! (call without id)"));
    // State given with the call wins over the set's.
    let output = tools
        .call_with(
            "greet",
            r#"{"name": "Grace"}"#,
            CallContext::new()
                .with_state(Greeting("Olá".to_owned()))
                .with_call_id("c2"),
        )
        .await
        .unwrap();
    assert_eq!(output, string_output("Olá, Grace! (call c2)"));
    // Context parameters are not arguments.
    let error = tools
        .call("greet", r#"{"name": "Ada", "greeting": "Hi"}"#)
        .await
        .unwrap_err();
    assert!(
        matches!(error, ToolError::InvalidArguments { .. }),
        "{error:?}"
    );
}

#[test]
fn missing_state_is_refused_when_the_set_is_built() {
    let Err(error) = ToolSet::builder().tool(Greet).build() else {
        panic!("built without the state it needs");
    };
    let BuildError::MissingState { kind, name, state } = &error else {
        panic!("expected MissingState, got {error:?}");
    };
    assert_eq!((*kind, name.as_str()), ("tool", "greet"));
    assert!(state.ends_with("Greeting"), "{state}");
    let message = error.to_string();
    assert!(
        message.starts_with("the tool `greet` takes `State<")
            && message.contains("add `.state(…)` with one to the builder")
            && message.contains(".state_per_call::<"),
        "{message}"
    );
    // Given after the tool is as good as before it.
    ToolSet::builder()
        .tool(Greet)
        .state(Greeting("Hi".to_owned()))
        .build()
        .unwrap();
}

#[tokio::test]
async fn state_declared_per_call_is_the_calls_to_give() {
    let tools = ToolSet::builder()
        .tool(Greet)
        .state_per_call::<Greeting>()
        .build()
        .unwrap();
    let error = tools.call("greet", r#"{"name": "Ada"}"#).await.unwrap_err();
    let ToolError::Unavailable { tool, reason } = &error else {
        panic!("expected Unavailable, got {error:?}");
    };
    assert_eq!(tool, "greet");
    assert!(reason.contains("Greeting"), "{reason}");
    assert!(!error.is_model_error());
    assert_eq!(
        error.to_string(),
        "`greet` is unavailable because of a server error; this was not caused by your call"
    );
    // State given with the call is enough.
    let output = tools
        .call_with(
            "greet",
            r#"{"name": "Ada"}"#,
            CallContext::new().with_state(Greeting("Hi".to_owned())),
        )
        .await
        .unwrap();
    assert_eq!(output, string_output("Hi, Ada! (call without id)"));
}

// ---------------------------------------------------------------------------------------------
// Listing and building
// ---------------------------------------------------------------------------------------------

fn listed_name(target: Target, tool: &Value) -> &str {
    let name = match target {
        Target::ChatCompletions => &tool["function"]["name"],
        _ => &tool["name"],
    };
    name.as_str()
        .unwrap_or_else(|| panic!("no name for {target}: {tool}"))
}

#[test]
fn listings_are_computed_once_per_target_in_insertion_order() {
    // Not the showcase's order.
    let tools = ToolSet::builder()
        .tool(showcase::CancelBooking)
        .tool(Gallery)
        .tool(showcase::GetWeather)
        .tool(showcase::SetReminder)
        .tool(showcase::GetServerTime)
        .build()
        .unwrap();
    let order = [
        "cancel_booking",
        "gallery",
        "get_weather",
        "set_reminder",
        "get_server_time",
    ];
    let names: Vec<&str> = tools.definitions().map(|d| d.name()).collect();
    assert_eq!(names, order);
    assert_eq!(tools.len(), 5);
    assert!(!tools.is_empty());
    for target in Target::ALL {
        let first = tools.list(target).unwrap();
        let second = tools.list(target).unwrap();
        assert!(Arc::ptr_eq(&first, &second), "{target}: listed twice");
        // A clone of the set shares the listing.
        let third = tools.clone().list(target).unwrap();
        assert!(Arc::ptr_eq(&first, &third), "{target}: listed by a clone");
        let names: Vec<&str> = first.iter().map(|t| listed_name(target, t)).collect();
        assert_eq!(names, order, "{target}");
        // Each entry is the definition's own rendering.
        for (listed, name) in first.iter().zip(order) {
            let rendered = tools.definition(name).unwrap().to_json(target).unwrap();
            assert_eq!(listed, &rendered, "{target} {name}");
        }
    }
    let empty = ToolSet::builder().build().unwrap();
    assert!(empty.is_empty());
    for target in Target::ALL {
        assert!(empty.list(target).unwrap().is_empty());
    }
}

#[test]
fn duplicate_names_are_refused_naming_both_types() {
    let error = ToolSet::builder()
        .tool(showcase::GetWeather)
        .tool(LookupFirst)
        .tool(LookupSecond)
        .build()
        .err()
        .expect("two tools named `lookup`");
    assert_eq!(
        error,
        BuildError::DuplicateName {
            name: "lookup".to_owned(),
            first: "runtime_calls::LookupFirst",
            second: "runtime_calls::LookupSecond",
        }
    );
    let message = error.to_string();
    assert!(message.contains("`lookup`"), "{message}");
    assert!(message.contains("runtime_calls::LookupFirst"), "{message}");
    assert!(message.contains("runtime_calls::LookupSecond"), "{message}");
    // The same tool twice is refused too.
    let error = ToolSet::builder()
        .tool(showcase::GetWeather)
        .tool(showcase::GetWeather)
        .build()
        .err()
        .expect("the same tool twice");
    assert!(
        matches!(&error, BuildError::DuplicateName { name, first, second }
            if name == "get_weather" && first == second && first.ends_with("::GetWeather")),
        "{error:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Leniency
// ---------------------------------------------------------------------------------------------

const DOUBLE_ENCODED: &str = r#""{\"city\": \"Paris\", \"days\": 5}""#;
const STRINGLY_TYPED: &str = r#"{"city": "Paris", "days": "5", "include_hourly": "true"}"#;

fn days_of(output: &ToolOutput) -> usize {
    output.structured.as_ref().unwrap()["days"]
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn leniency_is_off_by_default() {
    let tools = showcase::toolset();
    let error = tools.call("get_weather", DOUBLE_ENCODED).await.unwrap_err();
    let ToolError::InvalidArguments { problems, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].pointer, "");
    assert!(
        problems[0]
            .message
            .contains("must be a JSON object of named arguments, not a string"),
        "{problems:?}"
    );
    let error = tools.call("get_weather", STRINGLY_TYPED).await.unwrap_err();
    let ToolError::InvalidArguments { problems, .. } = &error else {
        panic!("{error:?}");
    };
    let pointers: Vec<&str> = problems.iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(pointers, ["/days", "/include_hourly"], "{problems:?}");
    assert!(
        problems[0]
            .message
            .contains("expected `integer`, got a string (\"5\")"),
        "{problems:?}"
    );
    assert!(
        problems[1].message.contains("expected `boolean`"),
        "{problems:?}"
    );
    // Explicitly off is the same.
    let tools = ToolSet::builder()
        .tool(showcase::GetWeather)
        .leniency(Leniency::default())
        .build()
        .unwrap();
    assert!(tools.call("get_weather", DOUBLE_ENCODED).await.is_err());
}

#[tokio::test]
async fn leniency_forgives_what_it_is_set_to_forgive() {
    let both = ToolSet::builder()
        .tool(showcase::GetWeather)
        .tool(showcase::GetServerTime)
        .tool(showcase::PlanItinerary)
        .leniency(Leniency {
            double_encoded: true,
            stringly_typed: true,
        })
        .build()
        .unwrap();
    let output = both.call("get_weather", DOUBLE_ENCODED).await.unwrap();
    assert_eq!(days_of(&output), 5);
    assert_eq!(output.structured.as_ref().unwrap()["city"], "Paris");
    let output = both.call("get_weather", STRINGLY_TYPED).await.unwrap();
    assert_eq!(days_of(&output), 5);
    // Double-encoded and stringly typed at once, as a value.
    let output = both
        .call("get_weather", json!(r#"{"city": "Rome", "days": "4"}"#))
        .await
        .unwrap();
    assert_eq!(days_of(&output), 4);
    assert_eq!(output.structured.as_ref().unwrap()["city"], "Rome");
    // Nested, in an array item.
    let output = both
        .call(
            "plan_itinerary",
            r#"{"stops": [{"city": "Lisbon", "nights": "2"}]}"#,
        )
        .await
        .unwrap();
    assert_eq!(output.structured.as_ref().unwrap()["total_nights"], 2);
    // For the tool without parameters.
    let output = both.call("get_server_time", r#""{}""#).await.unwrap();
    assert_eq!(output, string_output("2026-11-22T09:30:00Z"));
    // What is not a number stays refused, and the range still applies.
    let error = both
        .call("get_weather", r#"{"city": "Paris", "days": "five"}"#)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ToolError::InvalidArguments { problems, .. }
            if problems[0].pointer == "/days" && problems[0].message.contains("\"five\"")),
        "{error:?}"
    );
    let error = both
        .call("get_weather", r#"{"city": "Paris", "days": "15"}"#)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ToolError::InvalidArguments { problems, .. }
            if problems[0].pointer == "/days" && problems[0].message.contains("at most 14")),
        "{error:?}"
    );

    // Each alone.
    let double_only = ToolSet::builder()
        .tool(showcase::GetWeather)
        .leniency(Leniency {
            double_encoded: true,
            stringly_typed: false,
        })
        .build()
        .unwrap();
    assert_eq!(
        days_of(
            &double_only
                .call("get_weather", DOUBLE_ENCODED)
                .await
                .unwrap()
        ),
        5
    );
    assert!(matches!(
        double_only.call("get_weather", STRINGLY_TYPED).await,
        Err(ToolError::InvalidArguments { .. })
    ));
    let stringly_only = ToolSet::builder()
        .tool(showcase::GetWeather)
        .leniency(Leniency {
            double_encoded: false,
            stringly_typed: true,
        })
        .build()
        .unwrap();
    assert_eq!(
        days_of(
            &stringly_only
                .call("get_weather", STRINGLY_TYPED)
                .await
                .unwrap()
        ),
        5
    );
    assert!(matches!(
        stringly_only.call("get_weather", DOUBLE_ENCODED).await,
        Err(ToolError::InvalidArguments { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Time limits
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_sets_timeout_stops_a_slow_tool_and_cancels_its_token() {
    let tokens = Tokens::default();
    let tools = ToolSet::builder()
        .tool(Sleepy)
        .state(tokens.clone())
        .timeout(Duration::from_millis(50))
        .build()
        .unwrap();
    let started = Instant::now();
    let error = tools
        .call("sleepy", r#"{"millis": 30000}"#)
        .await
        .unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!(
        error,
        ToolError::TimedOut {
            tool: "sleepy".to_owned(),
            after: Duration::from_millis(50),
        }
    );
    assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
    assert_eq!(
        error.to_string(),
        "`sleepy` did not finish within 50 ms and was stopped. Try a smaller request, or go on \
         without this result"
    );
    let token = tokens.last();
    assert!(token.is_cancelled(), "the tool's token is cancelled");
    // Anything waiting on it hears it.
    tokio::time::timeout(Duration::from_secs(1), token.cancelled())
        .await
        .unwrap();

    // A quick call finishes, and its token is left alone.
    let output = tools.call("sleepy", r#"{"millis": 1}"#).await.unwrap();
    assert_eq!(output, string_output("slept 1 ms"));
    assert!(!tokens.last().is_cancelled());

    // Typed calls have the same limit.
    let error = tools
        .call_typed(&Sleepy, SleepyArgs { millis: 30_000 }, CallContext::new())
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::TimedOut { .. }), "{error:?}");
    assert!(tokens.last().is_cancelled());
}

#[tokio::test]
async fn a_tools_own_timeout_overrides_the_sets() {
    let tokens = Tokens::default();
    // Shorter than the set's.
    let tools = ToolSet::builder()
        .tool_with_timeout(Sleepy, Duration::from_millis(30))
        .state(tokens.clone())
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let started = Instant::now();
    let error = tools
        .call("sleepy", r#"{"millis": 30000}"#)
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ToolError::TimedOut {
            tool: "sleepy".to_owned(),
            after: Duration::from_millis(30),
        }
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(tokens.last().is_cancelled());

    // Longer than the set's.
    let tools = ToolSet::builder()
        .tool_with_timeout(Sleepy, Duration::from_secs(10))
        .tool(showcase::GetServerTime)
        .state(tokens.clone())
        .timeout(Duration::from_millis(5))
        .build()
        .unwrap();
    let output = tools.call("sleepy", r#"{"millis": 60}"#).await.unwrap();
    assert_eq!(output, string_output("slept 60 ms"));
    assert!(!tokens.last().is_cancelled());

    // A token given by the caller is the one cancelled.
    let tools = ToolSet::builder()
        .tool_with_timeout(Sleepy, Duration::from_millis(20))
        .state(tokens.clone())
        .build()
        .unwrap();
    let mine = CancellationToken::new();
    let error = tools
        .call_with(
            "sleepy",
            r#"{"millis": 30000}"#,
            CallContext::new().with_cancellation(mine.clone()),
        )
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::TimedOut { .. }), "{error:?}");
    assert!(mine.is_cancelled());
}

// ---------------------------------------------------------------------------------------------
// Many calls at once
// ---------------------------------------------------------------------------------------------

/// What one call of the concurrency test must give.
#[derive(Debug)]
enum Expect {
    Output(ToolOutput),
    Invalid { pointer: &'static str, says: String },
    Panicked,
    Failed(String),
    Unknown { suggestion: &'static str },
}

struct Request {
    tool: &'static str,
    arguments: Value,
    as_text: bool,
    expect: Expect,
}

/// What a tool returning a `String` gives: the string as its text (unquoted), and as its
/// structured content (its output schema is `{"type": "string"}`).
fn string_output(text: &str) -> ToolOutput {
    ToolOutput::json(Value::String(text.to_owned()), true)
}

/// What a showcase tool gives for `value`: every one of them has an output schema.
fn to_output<T: serde::Serialize>(value: T) -> ToolOutput {
    ToolOutput::json(serde_json::to_value(value).unwrap(), true)
}

/// The `i`th request, and what it must give, computed by calling the showcase's functions
/// directly.
async fn request(i: usize) -> Request {
    let as_text = !i.is_multiple_of(3);
    let n = u32::try_from(i).unwrap();
    let (tool, arguments, expect) = match i % 12 {
        0 => {
            let days = n % 14 + 1;
            let units = if i.is_multiple_of(2) {
                Units::Metric
            } else {
                Units::Imperial
            };
            let city = format!("City {i}");
            let arguments =
                json!({"city": city, "days": days, "units": units, "include_hourly": null});
            let expected = showcase::get_weather(city, days, units, false);
            (
                "get_weather",
                arguments,
                Expect::Output(to_output(expected)),
            )
        }
        1 => {
            let to = ["USD", "GBP", "JPY"][i % 3];
            let amount = f64::from(n) + 0.25;
            let arguments = json!({"amount": amount, "from": "EUR", "to": to, "round_to": 2});
            let expected = showcase::convert_currency(amount, "EUR".into(), to.into(), Some(2))
                .await
                .unwrap();
            (
                "convert_currency",
                arguments,
                Expect::Output(to_output(expected)),
            )
        }
        2 => {
            let stops: Vec<Stop> = (0..i % 4 + 1)
                .map(|k| Stop {
                    city: format!("Stop {i}.{k}"),
                    nights: u32::try_from(k).unwrap() + 1,
                    activities: vec![],
                })
                .collect();
            // `null` (the default, "relaxed") or a pace.
            let pace = (!i.is_multiple_of(2)).then_some("brisk");
            let arguments = json!({"stops": stops, "pace": pace});
            let pace = pace.unwrap_or("relaxed");
            let expected = showcase::plan_itinerary(stops, pace.to_owned());
            (
                "plan_itinerary",
                arguments,
                Expect::Output(to_output(expected)),
            )
        }
        3 => {
            let schedule = match i % 3 {
                0 => Schedule::Once {
                    at: format!("2026-12-{:02}T08:00:00Z", i % 28 + 1),
                },
                1 => Schedule::Daily {
                    hour: u8::try_from(i % 24).unwrap(),
                    minute: u8::try_from(i % 60).unwrap(),
                },
                _ => Schedule::BeforeDeparture {
                    hours: u8::try_from(i % 72 + 1).unwrap(),
                },
            };
            let text = format!("Reminder {i}");
            let arguments = json!({"text": text, "schedule": schedule, "volume": null});
            let expected = showcase::set_reminder(text, schedule, 0.5);
            (
                "set_reminder",
                arguments,
                Expect::Output(to_output(expected)),
            )
        }
        4 => {
            let reference = format!("BK-h{i}-2");
            let reason = i.is_multiple_of(2).then(|| format!("reason {i}"));
            let arguments = json!({"reference": reference, "reason": reason});
            let expected = showcase::cancel_booking(reference, reason);
            (
                "cancel_booking",
                arguments,
                Expect::Output(to_output(expected)),
            )
        }
        5 => {
            let search = FlightSearch {
                origin: format!("A{:02}", i % 100),
                destination: "CDG".to_owned(),
                departure_date: "2026-12-01".to_owned(),
                return_date: i.is_multiple_of(2).then(|| "2026-12-09".to_owned()),
                passengers: u8::try_from(i % 9 + 1).unwrap(),
                cabin: [Cabin::Economy, Cabin::PremiumEconomy, Cabin::Business][i % 3],
                nonstop_only: i % 4 == 1,
            };
            let arguments = serde_json::to_value(&search).unwrap();
            let expected = showcase::search_flights(Args(search)).await;
            (
                "search_flights",
                arguments,
                Expect::Output(to_output(expected)),
            )
        }
        6 => {
            let nights = u16::try_from(i % 30 + 1).unwrap();
            let arguments = json!({
                "hotel_id": format!("h{i}"),
                "guest": {
                    "name": format!("Guest {i}"),
                    "email": "guest@example.com",
                    "phone": null
                },
                "check_in": "2026-12-01",
                "nights": nights,
                "requests": [format!("request {i}")]
            });
            let guest = showcase::Guest {
                name: format!("Guest {i}"),
                email: "guest@example.com".to_owned(),
                phone: None,
            };
            let expected = showcase::book_hotel(
                format!("h{i}"),
                guest,
                "2026-12-01".to_owned(),
                nights,
                vec![],
            );
            ("book_hotel", arguments, Expect::Output(to_output(expected)))
        }
        7 => {
            let subject = format!("Subject {i}");
            let body = "x".repeat(i % 50);
            let receipt = i.is_multiple_of(2);
            let arguments = json!({
                "to": "agent@example.com",
                "subject": subject,
                "body": body,
                "readReceipt": receipt
            });
            let expected =
                showcase::send_message("agent@example.com".to_owned(), subject, body, receipt);
            (
                "send_agent_message",
                arguments,
                Expect::Output(to_output(expected)),
            )
        }
        8 => {
            // Invalid: out of range, where the value differs from call to call.
            let days = 15 + n;
            (
                "get_weather",
                json!({"city": "Paris", "days": days}),
                Expect::Invalid {
                    pointer: "/days",
                    says: format!("must be at most 14, got {days}"),
                },
            )
        }
        9 => ("explode", json!({}), Expect::Panicked),
        10 => {
            if i % 4 == 2 {
                (
                    "get_wether",
                    json!({"city": "Paris"}),
                    Expect::Unknown {
                        suggestion: "get_weather",
                    },
                )
            } else {
                // `Q` and two letters: never a known currency.
                let letter = |k: usize| char::from(b'A' + u8::try_from(k % 26).unwrap());
                let code = format!("Q{}{}", letter(i / 26), letter(i));
                let message = format!("no exchange rate for `{code}`; try EUR, USD, GBP or JPY");
                (
                    "convert_currency",
                    json!({"amount": 1, "from": "EUR", "to": code}),
                    Expect::Failed(message),
                )
            }
        }
        _ => {
            // Invalid: malformed text, always sent as text below.
            (
                "get_weather",
                json!(format!("{{\"city\": \"Paris {i}\",}}")),
                Expect::Invalid {
                    pointer: "",
                    says: "trailing comma".to_owned(),
                },
            )
        }
    };
    Request {
        tool,
        arguments,
        as_text,
        expect,
    }
}

fn check(
    i: usize,
    request: &Request,
    result: &Result<ToolOutput, ToolError>,
) -> Result<(), String> {
    let ok = match (&request.expect, result) {
        (Expect::Output(expected), Ok(output)) => output == expected,
        (
            Expect::Invalid { pointer, says },
            Err(ToolError::InvalidArguments { tool, problems }),
        ) => {
            tool == request.tool
                && problems.len() == 1
                && problems[0].pointer == *pointer
                && problems[0].message.contains(says.as_str())
        }
        (Expect::Panicked, Err(ToolError::Panicked { tool, message })) => {
            tool == "explode" && message == "boom"
        }
        (Expect::Failed(expected), Err(ToolError::Failed { tool, message })) => {
            tool == request.tool && message == expected
        }
        (
            Expect::Unknown { suggestion },
            Err(ToolError::UnknownTool {
                name, suggestions, ..
            }),
        ) => name == request.tool && suggestions == &[suggestion.to_string()],
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "call {i} ({} with {}): expected {:?}, got {result:?}",
            request.tool, request.arguments, request.expect
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_on_one_set_each_get_their_own_result() {
    const CALLS: usize = 1000;
    quiet_booms();
    // A fresh set, so that the first calls also race to prepare each tool's checks.
    let tools = ToolSet::builder()
        .tool(showcase::GetServerTime)
        .tool(showcase::GetWeather)
        .tool(showcase::ConvertCurrency)
        .tool(showcase::SearchFlights)
        .tool(showcase::BookHotel)
        .tool(showcase::PlanItinerary)
        .tool(showcase::SetReminder)
        .tool(showcase::SendMessage)
        .tool(showcase::CancelBooking)
        .tool(Explode)
        .build()
        .unwrap();
    let mut requests = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        requests.push(Arc::new(request(i).await));
    }
    let barrier = Arc::new(tokio::sync::Barrier::new(CALLS));
    let listed = Arc::new(AtomicUsize::new(0));
    let mut handles = Vec::with_capacity(CALLS);
    for (i, request) in requests.iter().enumerate() {
        let tools = tools.clone();
        let request = Arc::clone(request);
        let barrier = Arc::clone(&barrier);
        let listed = Arc::clone(&listed);
        handles.push(tokio::spawn(async move {
            barrier.wait().await;
            // Some tasks list the tools meanwhile.
            if i.is_multiple_of(50) {
                let list = tools.list(Target::ALL[i / 50 % 5]).unwrap();
                assert_eq!(list.len(), 10);
                listed.fetch_add(1, Ordering::Relaxed);
            }
            let result = match (&request.arguments, request.as_text) {
                // Malformed text can only be sent as text.
                (Value::String(text), _) => tools.call(request.tool, text.as_str()).await,
                (arguments, true) => tools.call(request.tool, arguments.to_string()).await,
                (arguments, false) => tools.call(request.tool, arguments).await,
            };
            (i, result)
        }));
    }
    let mut failures = Vec::new();
    // Calls answered, by kind (`i % 12`).
    let mut seen = BTreeMap::<usize, usize>::new();
    let mut answered = vec![false; CALLS];
    for handle in handles {
        let (i, result) = handle.await.expect("no task panics");
        let request = &requests[i];
        answered[i] = true;
        *seen.entry(i % 12).or_default() += 1;
        if let Err(failure) = check(i, request, &result) {
            failures.push(failure);
        }
    }
    assert!(answered.iter().all(|a| *a));
    assert!(
        failures.is_empty(),
        "{} of {CALLS} calls went wrong:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    assert_eq!(listed.load(Ordering::Relaxed), CALLS / 50);
    // Every kind of call was made many times.
    assert_eq!(seen.len(), 12, "{seen:?}");
    assert!(seen.values().all(|&n| n >= 80), "{seen:?}");

    // The set is as good as new afterwards.
    let output = tools
        .call("cancel_booking", r#"{"reference": "BK-after"}"#)
        .await
        .unwrap();
    assert_eq!(output, string_output("Cancelled BK-after"));
}
