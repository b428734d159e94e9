//! Prints every showcase tool's definition for a target.
//!
//! ```text
//! cargo run -p tooldef-examples --example showcase -- --target gemini   # a JSON array on stdout, nothing else
//! cargo run -p tooldef-examples --example showcase                      # a readable overview
//! ```

use std::process::ExitCode;

use serde_json::Value;
use tooldef::{Target, ToolDefinition};
use tooldef_examples::showcase;

const USAGE: &str = "usage: showcase [--target mcp|chat|responses|anthropic|gemini|gemini-json]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => {
            print_overview();
            ExitCode::SUCCESS
        }
        ["--target", target] | [target] if !target.starts_with('-') || args.len() == 2 => {
            match target.parse::<Target>() {
                Ok(target) => print_target(target),
                Err(err) => fail(&err.to_string()),
            }
        }
        ["-h" | "--help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => fail(&format!("unexpected arguments {args:?}")),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("showcase: {message}\n{USAGE}");
    ExitCode::from(2)
}

fn print_target(target: Target) -> ExitCode {
    let mut rendered = Vec::new();
    for definition in showcase::definitions() {
        match definition.to_json(target) {
            Ok(json) => rendered.push(json),
            Err(err) => {
                eprintln!(
                    "showcase: `{}` cannot be rendered: {err}",
                    definition.name()
                );
                return ExitCode::FAILURE;
            }
        }
    }
    match serde_json::to_string_pretty(&rendered) {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(err) => fail(&err.to_string()),
    }
}

fn print_overview() {
    let definitions = showcase::definitions();
    println!("tooldef showcase: {} tools\n", definitions.len());
    for definition in definitions {
        print_tool(definition);
    }
    println!("Print every definition for one target with:");
    println!(
        "  cargo run -p tooldef-examples --example showcase -- --target mcp|chat|responses|anthropic|gemini|gemini-json"
    );
}

fn print_tool(definition: &ToolDefinition) {
    let hints = hints(definition);
    println!("{}{}", definition.name(), hints);
    if let Some(title) = definition.title() {
        println!("  title: {title}");
    }
    if let Some(description) = definition.description() {
        for line in description.lines() {
            println!("{}", format!("  {line}").trim_end());
        }
    }
    let schema = definition.input_schema();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    match properties {
        Some(properties) if !properties.is_empty() => {
            println!("  parameters:");
            for (name, property) in properties {
                let necessity = if required.contains(&name.as_str()) {
                    "required".to_owned()
                } else if let Some(default) = property.get("default") {
                    format!("default {default}")
                } else {
                    "optional".to_owned()
                };
                println!("    {name:<16} {:<20} {necessity}", type_name(property));
            }
        }
        _ => println!("  parameters: none"),
    }
    if definition.output_schema().is_some() {
        println!("  output: structured (has an output schema)");
    }
    let targets: Vec<String> = Target::ALL
        .iter()
        .map(|&target| match definition.render(target) {
            Ok(rendering) => {
                let strict = match rendering.to_json().pointer(strict_pointer(target)) {
                    Some(Value::Bool(true)) => " strict",
                    Some(Value::Bool(false)) => " non-strict",
                    _ => "",
                };
                format!("{} ok{strict}", target.short_name())
            }
            Err(err) => format!("{} refused ({err})", target.short_name()),
        })
        .collect();
    println!("  targets: {}\n", targets.join(", "));
}

fn strict_pointer(target: Target) -> &'static str {
    match target {
        Target::ChatCompletions => "/function/strict",
        Target::Responses => "/strict",
        _ => "/-",
    }
}

fn hints(definition: &ToolDefinition) -> String {
    let a = definition.annotations();
    let mut hints = Vec::new();
    for (value, yes, no) in [
        (a.read_only_hint, "read-only", "writes"),
        (a.destructive_hint, "destructive", "not destructive"),
        (a.idempotent_hint, "idempotent", "not idempotent"),
        (a.open_world_hint, "open world", "closed world"),
    ] {
        match value {
            Some(true) => hints.push(yes),
            Some(false) => hints.push(no),
            None => {}
        }
    }
    if hints.is_empty() {
        String::new()
    } else {
        format!("  [{}]", hints.join(", "))
    }
}

/// A short type name for the overview: `string`, `integer`, `array of Stop`, `Units`…
fn type_name(schema: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return reference.rsplit('/').next().unwrap_or(reference).to_owned();
    }
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        let names: Vec<String> = branches
            .iter()
            .map(type_name)
            .filter(|n| n != "null")
            .collect();
        return names.join(" | ");
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            format!(
                "array of {}",
                schema.get("items").map_or("any".into(), type_name)
            )
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "any".to_owned(),
    }
}
