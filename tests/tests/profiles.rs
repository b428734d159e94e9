//! Provider profiles: the showcase and the github corpus rendered for models that take less than
//! their API documents (OpenAI reasoning and fine-tuned models, models behind OpenAI-compatible
//! endpoints), checked from the published rules: nothing they refuse or ignore stays a keyword,
//! and what it said reaches the description; every target's own checks still hold.

use serde_json::Value;
use tooldef::convert::{ConvertOptions, convert};
use tooldef::{Profile, Target};
use tooldef_examples::showcase;
use tooldef_tests::accept::refusals;

const GITHUB: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/corpus/github-mcp-server.tools.json"
);

/// What OpenAI's fine-tuned models refuse (PROVIDERS.md), written here apart from the library.
const FINE_TUNED_REFUSE: &[&str] = &[
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// Every constraint an OpenAI-compatible endpoint may ignore.
const CONSTRAINTS: &[&str] = &[
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
];

/// The keywords of `forbidden` that appear as keywords (not as property names) in `schema`.
fn keywords_left(schema: &Value, forbidden: &[&str]) -> Vec<String> {
    tooldef_tests::walk(schema)
        .into_iter()
        .flat_map(|node| {
            node.schema
                .as_object()
                .into_iter()
                .flat_map(|map| map.keys())
                .filter(|key| forbidden.contains(&key.as_str()))
                .map(move |key| format!("{}/{key}", node.pointer))
        })
        .collect()
}

fn parameters(tool: &Value, target: Target) -> &Value {
    match target {
        Target::ChatCompletions => &tool["function"]["parameters"],
        _ => &tool["parameters"],
    }
}

fn strict(tool: &Value, target: Target) -> bool {
    match target {
        Target::ChatCompletions => tool["function"]["strict"] == true,
        _ => tool["strict"] == true,
    }
}

#[test]
fn reasoning_fine_tuned_and_compatible_models_get_constraints_in_words() {
    let tools = showcase::toolset();
    for (model, forbidden, strict_allowed) in [
        ("o3-mini", FINE_TUNED_REFUSE, true),
        (
            "ft:gpt-4o-mini-2024-07-18:acme::9x",
            FINE_TUNED_REFUSE,
            true,
        ),
        ("meta-llama/Llama-3.3-70B-Instruct", CONSTRAINTS, false),
    ] {
        let (target, listed) = tools.list_for_model(model).unwrap();
        assert_eq!(target, Target::ChatCompletions, "{model}");
        assert_eq!(listed.len(), tools.len());
        for tool in listed.iter() {
            let name = &tool["function"]["name"];
            let schema = parameters(tool, target);
            let left = keywords_left(schema, forbidden);
            assert!(left.is_empty(), "{model}: {name} keeps {left:?}");
            assert!(
                refusals(tool, target).is_empty(),
                "{model}: {name}: {:?}",
                refusals(tool, target)
            );
            if !strict_allowed {
                assert!(!strict(tool, target), "{model}: {name} is strict");
            }
        }
        // What the keywords said is in the words: `get_weather`'s `days` is 1 to 14.
        let weather = listed
            .iter()
            .find(|t| t["function"]["name"] == "get_weather")
            .unwrap();
        let days = &parameters(weather, target)["properties"]["days"];
        let words = days.to_string();
        assert!(words.contains("14"), "{model}: {days}");
    }
}

#[test]
fn documented_models_get_the_cached_listing() {
    let tools = showcase::toolset();
    for model in ["gpt-4.1", "claude-sonnet-4-5", "gemini-2.5-pro"] {
        let (target, listed) = tools.list_for_model(model).unwrap();
        assert_eq!(listed, tools.list(target).unwrap(), "{model}");
    }
    // A reasoning model keeps strict mode where the schema allows it: the profile only moves
    // constraints into words.
    let (target, listed) = tools.list_for_model("o4-mini").unwrap();
    assert!(listed.iter().any(|tool| strict(tool, target)));
}

#[test]
fn foreign_tools_converted_for_a_profile() {
    let corpus: Value = serde_json::from_str(&std::fs::read_to_string(GITHUB).unwrap()).unwrap();
    for (profile, forbidden) in [
        (Profile::OpenAiFineTuned, FINE_TUNED_REFUSE),
        (Profile::OpenAiCompatible, CONSTRAINTS),
    ] {
        for target in [Target::ChatCompletions, Target::Responses] {
            let options = ConvertOptions {
                lenient: true,
                profile,
                ..ConvertOptions::default()
            };
            let conversion = convert(&corpus, target, &options).unwrap();
            assert_eq!(conversion.tools.len(), 117);
            for tool in conversion.to_json() {
                let left = keywords_left(parameters(&tool, target), forbidden);
                assert!(left.is_empty(), "{profile:?} {target}: {left:?}");
                assert!(refusals(&tool, target).is_empty());
                if profile == Profile::OpenAiCompatible {
                    assert!(!strict(&tool, target));
                }
            }
        }
        // Other targets are as documented whatever the profile.
        let options = ConvertOptions {
            lenient: true,
            profile,
            ..ConvertOptions::default()
        };
        let lenient = ConvertOptions {
            lenient: true,
            ..ConvertOptions::default()
        };
        for target in [Target::Mcp, Target::Anthropic, Target::Gemini] {
            assert_eq!(
                convert(&corpus, target, &options).unwrap().to_json(),
                convert(&corpus, target, &lenient).unwrap().to_json()
            );
        }
    }
}
