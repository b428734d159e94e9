//! `tooldef call`: start an MCP server over stdio (or reach one over HTTP), convert its tools
//! for a target as `list` does, and call one of them with the arguments that target's model
//! sent, restored to the server's own shape; print the whole result. What the called tool's
//! conversion changed is said on stderr (not the other tools': a server of a hundred tools
//! buried the one report that matters under a hundred), and nothing but failures with --quiet.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Map, Value};
use tooldef::convert::{Conversion, Converted, Warning};

use crate::args::CallArgs;
use crate::convert_cmd;
use crate::elicit::Answer;
use crate::failure::Failure;
use crate::output;
use crate::server::{self, Server};

/// Runs `tooldef call`.
pub fn run(args: &CallArgs) -> Result<ExitCode, Failure> {
    // Bad arguments are found before any server is started.
    let arguments = arguments(&read_arguments(args.arguments.as_deref().unwrap_or(""))?)?;
    let answer = Answer::from_flag(args.elicit.as_deref()).map_err(Failure::input)?;
    let runtime = server::runtime()?;
    let result = runtime.block_on(call(args, arguments, answer))?;
    let json = serde_json::to_value(&result)
        .map_err(|err| Failure::input(format!("the result as JSON: {err}")))?;
    output::stdout(&output::pretty(&json))?;
    Ok(if result.is_error == Some(true) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The text of `--arguments`: as given, or stdin for `-`.
fn read_arguments(given: &str) -> Result<String, Failure> {
    if given != "-" {
        return Ok(given.to_owned());
    }
    let mut stdin = std::io::stdin().lock();
    if stdin.is_terminal() {
        return Err(Failure::input(
            "--arguments - reads the arguments from stdin: pipe them in",
        ));
    }
    let mut text = String::new();
    stdin.read_to_string(&mut text).map_err(|err| {
        Failure::input(format!(
            "cannot read the arguments from stdin: {}",
            crate::input::io_reason(&err)
        ))
    })?;
    Ok(text)
}

/// The arguments as a JSON object; empty text is `{}`.
fn arguments(text: &str) -> Result<Map<String, Value>, Failure> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match crate::input::parse(text.as_bytes()) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(Failure::input(format!(
            "--arguments must be a JSON object (a model's tool call arguments are one), not {}",
            crate::input::kind_of(&other)
        ))),
        Err(reason) => Err(Failure::input(format!("--arguments: {reason}"))),
    }
}

/// Starts the server, makes the call and shuts the server down, whatever the call gave.
async fn call(
    args: &CallArgs,
    arguments: Map<String, Value>,
    answer: Answer,
) -> Result<CallToolResult, Failure> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(args.server.timeout);
    let server = Server::start(&args.server, answer, deadline, !args.quiet).await?;
    let outcome = call_on(&server, args, arguments, deadline).await;
    server.shutdown().await;
    outcome
}

async fn call_on(
    server: &Server,
    args: &CallArgs,
    arguments: Map<String, Value>,
    deadline: tokio::time::Instant,
) -> Result<CallToolResult, Failure> {
    let tools = server.list_tools(deadline).await?;
    let label = format!("the tools of `{}`", server.shown());
    let conversion = convert_cmd::convert_all(&tools, &label, &args.conversion())?;
    let converted = find(&conversion, &args.tool, server.shown())?;
    if !args.quiet {
        convert_cmd::report(converted);
        for warning in conversion
            .warnings
            .iter()
            .filter(|warning| concerns(warning, &converted.original_name))
        {
            output::stderr_line(&format!("warning: {warning}"));
        }
    }
    let mut arguments = Value::Object(arguments);
    converted.restore_arguments(&mut arguments);
    if !args.quiet {
        output::stderr_line(&format!(
            "tooldef: calling {} with {arguments}",
            converted.original_name
        ));
    }
    let mut request = CallToolRequestParams::new(converted.original_name.clone());
    if let Value::Object(arguments) = arguments {
        request = request.with_arguments(arguments);
    }
    server.call_tool(request).await
}

/// Whether `warning` is about the tool originally named `name`: its missing description, a name
/// other tools share with it, its strictness given up to a limit of the target's. Warnings about
/// the whole batch (more tools than one request takes) are not.
fn concerns(warning: &Warning, name: &str) -> bool {
    match warning {
        Warning::NoDescription { tool } => tool == name,
        Warning::DuplicateName { name: shared, .. } => shared == name,
        Warning::PastStrictLimit { tools, .. } => tools.iter().any(|tool| tool == name),
        _ => false,
    }
}

/// The converted tool called `name`: by the name the target sees, else by its original name.
fn find<'c>(conversion: &'c Conversion, name: &str, shown: &str) -> Result<&'c Converted, Failure> {
    if let Some(converted) = conversion
        .get(name)
        .or_else(|| conversion.tools.iter().find(|t| t.original_name == name))
    {
        return Ok(converted);
    }
    let target = conversion.target;
    if let Some(rejected) = conversion
        .rejected
        .iter()
        .find(|r| r.name.as_deref() == Some(name))
    {
        return Err(Failure::input(format!(
            "`{name}` cannot be converted for {target}, so its model cannot call it: {}",
            rejected.reasons.join("; ")
        )));
    }
    // Each tool by the name its model sees, matched by that name or by its original one.
    let names: Vec<[&str; 2]> = conversion
        .tools
        .iter()
        .map(|t| [t.name(), t.original_name.as_str()])
        .collect();
    let close = closest(name, &names);
    let hint = match close.as_slice() {
        [] if names.is_empty() => " and has no tools".to_owned(),
        [] => format!(
            "; its tools for {target}: {}",
            shorten_list(conversion.tools.iter().map(Converted::name))
        ),
        [one] => format!("; did you mean `{one}`?"),
        many => format!(
            "; did you mean one of: {}?",
            many.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Err(Failure::input(format!(
        "`{shown}` has no tool named `{name}`{hint}"
    )))
}

/// Up to three tools close to `wanted` by the name their model sees or by their original one
/// (`tooldef::names::closest`), each shown by the name its model sees.
fn closest<'n>(wanted: &str, names: &[[&'n str; 2]]) -> Vec<&'n str> {
    let mut shown: Vec<&str> = Vec::new();
    for matched in tooldef::names::closest(wanted, names.iter().flatten().copied()) {
        if let Some([name, _]) = names.iter().find(|pair| pair.contains(&matched))
            && !shown.contains(name)
        {
            shown.push(name);
        }
    }
    shown
}

/// Names in backquotes, comma-separated; past 20, how many more.
fn shorten_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    let mut text = names
        .iter()
        .take(20)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 20 {
        text.push_str(&format!(" and {} more", names.len() - 20));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use tooldef::Target;
    use tooldef::convert::{ConvertOptions, convert};

    #[test]
    fn arguments_are_an_object_or_nothing() {
        assert_eq!(arguments("").unwrap(), Map::new());
        assert_eq!(arguments("  \n").unwrap(), Map::new());
        assert_eq!(arguments(r#"{"a": null}"#).unwrap()["a"], Value::Null);
        let err = arguments("[1]").unwrap_err();
        assert_eq!(err.status, 2);
        assert!(err.message.contains("not an array"), "{}", err.message);
        assert!(arguments("null").unwrap_err().message.contains("not null"));
        let err = arguments("{\"a\": ").unwrap_err();
        assert!(
            err.message.starts_with("--arguments: malformed JSON"),
            "{}",
            err.message
        );
    }

    #[test]
    fn close_tools_are_shown_by_the_name_their_model_sees() {
        // Matched by the original name, shown by the target's.
        let names = [["fs_read_file", "fs.read_file"], ["git_log", "git_log"]];
        assert_eq!(closest("fs.readfile", &names), ["fs_read_file"]);
        assert_eq!(closest("git-lgo", &names), ["git_log"]);
        assert!(closest("translate", &names).is_empty());
    }

    #[test]
    fn only_the_warnings_about_the_called_tool_concern_it() {
        let listed = serde_json::json!([
            {"name": "undescribed", "inputSchema": {"type": "object"}},
            {"name": "twice", "description": "First.", "inputSchema": {"type": "object"}},
            {"name": "twice", "description": "Second.", "inputSchema": {"type": "object"}},
            {"name": "fine", "description": "Fine.", "inputSchema": {"type": "object"}}
        ]);
        // Lenient, as `call` converts.
        let options = ConvertOptions {
            lenient: true,
            ..ConvertOptions::default()
        };
        let chat = convert(&listed, Target::ChatCompletions, &options).unwrap();
        let about = |name: &str| -> Vec<String> {
            chat.warnings
                .iter()
                .filter(|warning| concerns(warning, name))
                .map(ToString::to_string)
                .collect()
        };
        let undescribed = about("undescribed");
        assert_eq!(undescribed.len(), 1, "{undescribed:?}");
        assert!(undescribed[0].starts_with("undescribed: has no description"));
        let twice = about("twice");
        assert_eq!(twice.len(), 1, "{twice:?}");
        assert!(twice[0].starts_with("twice: 2 tools have this name"));
        assert_eq!(about("fine"), Vec::<String>::new());
        // The batch's warnings concern no one tool.
        let many: Vec<Value> = (0..130)
            .map(|i| {
                serde_json::json!({"name": format!("t{i}"), "description": "T.",
                "inputSchema": {"type": "object"}})
            })
            .collect();
        let chat = convert(&Value::Array(many), Target::ChatCompletions, &options).unwrap();
        assert!(
            chat.warnings
                .iter()
                .any(|warning| matches!(warning, Warning::TooManyTools { .. })),
            "{:?}",
            chat.warnings
        );
        assert!(!chat.warnings.iter().any(|warning| concerns(warning, "t0")));
    }

    #[test]
    fn tools_are_found_by_the_targets_name_or_the_original() {
        let listed = serde_json::json!([
            {"name": "fs.read_file", "description": "Read a file.",
             "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
            {"name": "fs.write_file", "description": "Write a file.",
             "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
            {"name": "fs read!", "inputSchema": {"type": "object"}}
        ]);
        let options = ConvertOptions {
            lenient: true,
            ..ConvertOptions::default()
        };
        let chat = convert(&listed, Target::ChatCompletions, &options).unwrap();
        let by_wire = find(&chat, "fs_read_file", "server").unwrap();
        assert_eq!(by_wire.original_name, "fs.read_file");
        let by_original = find(&chat, "fs.read_file", "server").unwrap();
        assert_eq!(by_original.name(), "fs_read_file");
        let rejected = find(&chat, "fs read!", "server").unwrap_err();
        assert_eq!(rejected.status, 2);
        assert!(
            rejected
                .message
                .starts_with("`fs read!` cannot be converted for OpenAI Chat Completions"),
            "{}",
            rejected.message
        );
        let unknown = find(&chat, "fs_read_fil", "server").unwrap_err();
        assert_eq!(unknown.status, 2);
        assert_eq!(
            unknown.message,
            "`server` has no tool named `fs_read_fil`; did you mean `fs_read_file`?"
        );
    }
}
