//! The regression corpus (`tests/fixtures/regressions`, each file a shape a public report says a
//! provider refused, with its source): every tool converts for every target, every output is
//! one the provider takes (`tooldef_tests::accept`), no parameter is lost, and each shape is
//! handled the way its report asks, said in the rendering's report.

use std::path::PathBuf;

use serde_json::Value;
use tooldef::Target;
use tooldef::convert::{Conversion, ConvertOptions, Converted, convert};
use tooldef::report::{ChangeKind, Place};
use tooldef_tests::accept::refusals;
use tooldef_tests::walk;

fn fixtures() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/regressions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 14, "the regression corpus is missing files");
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable fixture");
            let value = serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, value)
        })
        .collect()
}

fn fixture(name: &str) -> Value {
    fixtures()
        .into_iter()
        .find(|(file, _)| file == name)
        .unwrap_or_else(|| panic!("no fixture {name}"))
        .1
}

fn converted(input: &Value, target: Target) -> Conversion {
    convert(input, target, &ConvertOptions::default())
        .unwrap_or_else(|err| panic!("{target}: {err}"))
}

fn tool<'c>(conversion: &'c Conversion, original: &str) -> &'c Converted {
    conversion
        .tools
        .iter()
        .find(|t| t.original_name == original)
        .unwrap_or_else(|| panic!("{original} was not converted"))
}

fn schema_of(tool: &Value, target: Target) -> Option<&Value> {
    tooldef_tests::input_schema_in(tool, target)
}

fn description_of(tool: &Value, target: Target) -> &str {
    let at = match target {
        Target::ChatCompletions => "/function/description",
        _ => "/description",
    };
    tool.pointer(at).and_then(Value::as_str).unwrap_or_default()
}

/// Every property name declared anywhere a value can go: under `properties` of any node that
/// may be an object (properties on a node whose type rules objects out never constrained
/// anything), in `$defs` too.
fn declared_parameters(schema: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for node in walk(schema) {
        let may_be_object = match node.schema.get("type") {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            _ => true,
        };
        if !may_be_object {
            continue;
        }
        for name in tooldef_tests::property_names(node.schema) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

#[test]
fn every_fixture_converts_for_every_target_into_what_the_provider_takes() {
    let (mut checked, mut expected) = (0, 0);
    for (file, input) in fixtures() {
        expected += input["tools"].as_array().map_or(0, Vec::len) * Target::ALL.len();
        for target in Target::ALL {
            let conversion = converted(&input, target);
            assert!(conversion.rejected.is_empty(), "{file} {target}");
            for converted in &conversion.tools {
                let json = converted.to_json();
                let refused = refusals(&json, target);
                assert!(
                    refused.is_empty(),
                    "{file}: {} for {target} would be refused:\n{}\n{json:#}",
                    converted.original_name,
                    refused.join("\n")
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, expected);
}

#[test]
fn no_parameter_is_lost() {
    for (file, input) in fixtures() {
        let originals = input["tools"].as_array().expect("tools");
        for target in Target::ALL {
            let conversion = converted(&input, target);
            for original in originals {
                let name = original["name"].as_str().expect("a name");
                let out = tool(&conversion, name).to_json();
                let before = declared_parameters(&original["inputSchema"]);
                let text = serde_json::to_string(&out).expect("JSON");
                let after = schema_of(&out, target)
                    .map(declared_parameters)
                    .unwrap_or_default();
                for parameter in before {
                    assert!(
                        after.contains(&parameter) || text.contains(&format!("`{parameter}`")),
                        "{file}: `{parameter}` of {name} is lost for {target}:\n{out:#}"
                    );
                }
            }
        }
    }
}

/// Each change in the report names a node the rendered schema has, so a reader (or the
/// argument restorer) finds it.
#[test]
fn report_pointers_name_nodes_of_the_rendering() {
    for (file, input) in fixtures() {
        for target in Target::ALL {
            let conversion = converted(&input, target);
            for converted in &conversion.tools {
                let json = converted.to_json();
                let Some(schema) = schema_of(&json, target) else {
                    continue;
                };
                for change in converted.rendering.report.changes() {
                    if change.place != Place::Input {
                        continue;
                    }
                    // What was removed from a node, or cut where the types recur, names the
                    // node that held it.
                    assert!(
                        schema.pointer(&change.pointer).is_some(),
                        "{file}: {} for {target}: `{}` is not in the rendering ({change})\n{schema:#}",
                        converted.original_name,
                        change.pointer
                    );
                }
            }
        }
    }
}

fn kinds(converted: &Converted) -> Vec<&ChangeKind> {
    converted
        .rendering
        .report
        .changes()
        .iter()
        .map(|c| &c.kind)
        .collect()
}

#[test]
fn root_combinators_are_folded_for_anthropic_openai_and_gemini_and_kept_for_mcp() {
    for file in ["root_any_of.json", "root_one_of_objects.json"] {
        let input = fixture(file);
        for target in [
            Target::Anthropic,
            Target::ChatCompletions,
            Target::Responses,
            Target::Gemini,
        ] {
            let conversion = converted(&input, target);
            for converted in &conversion.tools {
                let json = converted.to_json();
                let schema = schema_of(&json, target).expect("parameters");
                for combinator in ["anyOf", "oneOf", "allOf"] {
                    assert!(schema.get(combinator).is_none(), "{file} {target}");
                }
                assert!(
                    kinds(converted).iter().any(|k| matches!(
                        k,
                        ChangeKind::Rewritten { from, .. } if from.starts_with("a root")
                    )),
                    "{file} {target}: {:?}",
                    kinds(converted)
                );
            }
        }
        let mcp = converted(&input, Target::Mcp);
        let originals = input["tools"].as_array().expect("tools");
        for original in originals {
            let name = original["name"].as_str().unwrap();
            let out = tool(&mcp, name).to_json();
            for combinator in ["anyOf", "oneOf", "allOf"] {
                assert_eq!(
                    original["inputSchema"].get(combinator).is_some(),
                    out["inputSchema"].get(combinator).is_some(),
                    "{file}: MCP keeps `{combinator}` of {name}"
                );
            }
            assert_eq!(out["inputSchema"]["type"], "object", "{name}");
        }
    }
}

#[test]
fn a_discriminated_union_for_gemini_keeps_every_branch_and_says_the_forms() {
    let input = fixture("root_one_of_objects.json");
    let gemini = converted(&input, Target::Gemini);
    let inquiry = tool(&gemini, "inquiry").to_json();
    let description = inquiry["parameters"]["description"].as_str().unwrap();
    assert!(
        description.contains("Give the arguments in exactly one of these forms"),
        "{description}"
    );
    let kind = &inquiry["parameters"]["properties"]["kind"];
    assert_eq!(kind["type"], "string", "{kind}");
    assert!(kind["enum"].as_array().unwrap().len() >= 2, "{kind}");
}

#[test]
fn lookaround_patterns_are_described_for_openai_and_kept_elsewhere() {
    let input = fixture("pattern_lookaround.json");
    for target in [Target::ChatCompletions, Target::Responses] {
        let conversion = converted(&input, target);
        for converted in &conversion.tools {
            assert!(converted.strict(), "{}", converted.original_name);
            assert!(
                kinds(converted).iter().any(|k| matches!(
                    k,
                    ChangeKind::Described { keywords, .. } if keywords == &["pattern"]
                )),
                "{}",
                converted.original_name
            );
        }
    }
    let anthropic = converted(&input, Target::Anthropic);
    let text = serde_json::to_string(&anthropic.to_json()).unwrap();
    assert!(
        text.contains(r#""pattern":"#),
        "Anthropic takes any pattern non-strict"
    );
}

#[test]
fn long_descriptions_are_shortened_for_openai_only_and_the_cut_is_reported() {
    let input = fixture("long_description.json");
    for target in Target::ALL {
        let conversion = converted(&input, target);
        for original in input["tools"].as_array().unwrap() {
            let name = original["name"].as_str().unwrap();
            let converted = tool(&conversion, name);
            let full = original["description"].as_str().unwrap();
            let sent = description_of(&converted.to_json(), target).to_owned();
            if target.is_openai() {
                assert!(sent.chars().count() <= 1024, "{name} {target}");
                assert!(
                    full.starts_with(sent.trim_end_matches('…')),
                    "{name}: {sent}"
                );
                assert!(
                    kinds(converted)
                        .iter()
                        .any(|k| matches!(k, ChangeKind::DescriptionShortened { limit: 1024, .. })),
                    "{name}"
                );
            } else {
                assert_eq!(sent, full, "{name} {target}: the whole text");
            }
        }
    }
}

#[test]
fn ref_siblings_are_intersected_not_replaced() {
    every_required_name_is_declared("ref_with_siblings.json", false);
}

/// A `required` naming an undeclared property, in a schema tooldef closes (MCP, Anthropic, OpenAI
/// strict): the name must be declared, or the closed object refuses the key it requires and no
/// call is valid (the MCP rendering of Playwright's `browser_type` was such). An object left
/// open (one without `properties`, which is not closed) may require any key.
#[test]
fn undeclared_required_names_are_declared_in_every_target() {
    every_required_name_is_declared("required_undefined.json", true);
}

/// In every target's rendering of the fixture's tools, every name a `required` lists is a
/// property its object declares (`open_may_require`: unless the object is open to other keys).
fn every_required_name_is_declared(name: &str, open_may_require: bool) {
    let input = fixture(name);
    for target in Target::ALL {
        let conversion = converted(&input, target);
        for converted in &conversion.tools {
            let json = converted.to_json();
            let schema = schema_of(&json, target).expect("parameters");
            // Every `required` names a property its object declares.
            for node in walk(schema) {
                let declared = tooldef_tests::property_names(node.schema);
                let open = node.schema.get("additionalProperties") != Some(&Value::Bool(false));
                if open && open_may_require {
                    continue;
                }
                if let Some(Value::Array(required)) = node.schema.get("required") {
                    for name in required.iter().filter_map(Value::as_str) {
                        assert!(
                            declared.contains(&name),
                            "{} {target}: `{name}` required at `{}` but not declared",
                            converted.original_name,
                            node.pointer
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn too_many_tools_are_said_per_target() {
    let one = fixture("nullable_array.json")["tools"][0].clone();
    let many: Vec<Value> = (0..600)
        .map(|i| {
            let mut tool = one.clone();
            tool["name"] = Value::from(format!("tool_{i}"));
            tool
        })
        .collect();
    let input = Value::Array(many);
    for target in Target::ALL {
        let conversion = converted(&input, target);
        let warned = conversion.warnings.iter().any(|w| {
            matches!(w, tooldef::convert::Warning::TooManyTools { count: 600, limit, .. }
                if Some(*limit) == target.max_tools())
        });
        assert_eq!(warned, target.max_tools().is_some(), "{target}");
    }
}
