//! `tooldef call` against two MCP servers tooldef did not write, `server-everything` (npm) and
//! `mcp-server-git` (PyPI): every tool called with the arguments an OpenAI strict-mode model
//! sends for the Chat Completions schema `tooldef list --to chat` prints (every property
//! present, `null` for the optional ones), restored by `call` to what each server accepts; the
//! exit statuses of a tool's error and of usage errors; content blocks printed whole.

use std::collections::HashMap;
use std::process::{Command, Output};

use serde_json::{Value, json};

mod support;
use support::{run, status, stderr, stdout};
use tooldef_tests::foreign::{
    ALLOWED_ERRORS, ForeignServers, GIT_WRITES, Server as Kind, assert_png_base64, chosen,
    foreign_servers, null_refusal, strict_form_arguments,
};

/// Seconds `tooldef` waits for a server, passed as `--timeout`.
const TIMEOUT: &str = "60";

/// Installs the servers (once per process) and makes the throwaway repository.
fn servers() -> &'static ForeignServers {
    foreign_servers()
}

/// `tooldef` with `args`, then `-- <the server's command>`; the git server commits as a fixed
/// identity, with the user's and the system's git configuration kept out.
fn tooldef_for(kind: Kind, args: &[&str]) -> Command {
    let servers = servers();
    let mut command = Command::new(env!("CARGO_BIN_EXE_tooldef"));
    command
        .args(args)
        .arg("--")
        .args(kind.command(servers))
        .envs(kind.env().iter().copied());
    command
}

/// `tooldef call --to chat --tool TOOL --arguments ARGUMENTS` on the server, its stderr
/// discarded; `stdin` is fed to `tooldef`.
fn call(kind: Kind, tool: &str, arguments: &str, stdin: &[u8]) -> Output {
    let command = tooldef_for(
        kind,
        &[
            "call",
            "--to",
            "chat",
            "--tool",
            tool,
            "--arguments",
            arguments,
            "--server-stderr",
            "discard",
            "--timeout",
            TIMEOUT,
        ],
    );
    run(command, stdin)
}

/// Stdout as one JSON value: the whole of it must parse, so nothing else was printed there.
fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "stdout is not JSON ({err}):\n{}\nstderr:\n{}",
            stdout(output),
            stderr(output)
        )
    })
}

/// The text blocks of a printed `CallToolResult`, joined.
fn result_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The tools `tooldef list --to chat` prints for the server: what the model is shown.
fn chat_tools(kind: Kind) -> Vec<Value> {
    let command = tooldef_for(
        kind,
        &[
            "list",
            "--to",
            "chat",
            "--server-stderr",
            "discard",
            "--timeout",
            TIMEOUT,
        ],
    );
    let output = run(command, b"");
    assert_eq!(status(&output), 0, "list: {}", stderr(&output));
    match stdout_json(&output) {
        Value::Array(tools) => tools,
        other => panic!("list printed {other}"),
    }
}

/// One strict-form call: the server, the tool's name as the model sees it, its arguments.
#[derive(Debug, Clone)]
struct StrictCall {
    kind: Kind,
    tool: String,
    arguments: Value,
}

fn strict_calls(kind: Kind, tools: &[Value]) -> Vec<StrictCall> {
    tools
        .iter()
        .map(|tool| {
            let function = &tool["function"];
            let name = function["name"].as_str().expect("a name").to_owned();
            let arguments =
                strict_form_arguments(&function["parameters"], &chosen(kind, &name, servers()));
            StrictCall {
                kind,
                tool: name,
                arguments,
            }
        })
        .collect()
}

/// What is wrong with the outcome of a strict-form call, if anything.
fn problem(call: &StrictCall, output: &Output) -> Option<String> {
    let StrictCall {
        tool, arguments, ..
    } = call;
    let (out, err) = (stdout(output), stderr(output));
    if let Some(marker) = null_refusal(out) {
        return Some(format!(
            "{tool}: a null was refused ({marker:?}) for {arguments}:\n{out}"
        ));
    }
    let code = status(output);
    let allowed = ALLOWED_ERRORS.iter().find(|(name, _)| name == tool);
    match (code, allowed) {
        (0, _) => {}
        (1, Some((_, expected))) if out.contains(expected) => {}
        _ => {
            return Some(format!(
                "{tool}: exit status {code} for {arguments}\nstdout:\n{out}\nstderr:\n{err}"
            ));
        }
    }
    let Ok(result) = serde_json::from_str::<Value>(out) else {
        return Some(format!(
            "{tool}: stdout is not JSON:\n{out}\nstderr:\n{err}"
        ));
    };
    if !result["content"].is_array() {
        return Some(format!("{tool}: no content array in\n{out}"));
    }
    if (result["isError"] == Value::Bool(true)) != (code == 1) {
        return Some(format!("{tool}: exit status {code} but\n{out}"));
    }
    // The arguments sent, shown on stderr: the model's, with a `null` the server does not
    // take removed.
    let prefix = format!("tooldef: calling {tool} with ");
    let Some(sent) = err.lines().find_map(|l| l.strip_prefix(prefix.as_str())) else {
        return Some(format!("{tool}: no `{prefix}…` line on stderr:\n{err}"));
    };
    match serde_json::from_str::<Value>(sent) {
        Ok(Value::Object(sent)) => {
            let model = arguments.as_object().expect("an object");
            let kept_or_dropped_null = sent.keys().all(|k| model.contains_key(k))
                && model
                    .iter()
                    .all(|(k, v)| sent.get(k) == Some(v) || (v.is_null() && !sent.contains_key(k)));
            (!kept_or_dropped_null).then(|| {
                format!(
                    "{tool}: sent {} for the model's {arguments}",
                    Value::Object(sent)
                )
            })
        }
        _ => Some(format!(
            "{tool}: the arguments shown are not an object: {sent}"
        )),
    }
}

#[test]
fn every_tool_of_both_servers_answers_a_strict_models_call() {
    servers();
    // What each model is shown, from both servers at once.
    let (everything, git) = std::thread::scope(|s| {
        let everything = s.spawn(|| chat_tools(Kind::Everything));
        let git = s.spawn(|| chat_tools(Kind::Git));
        (
            everything.join().expect("listing server-everything"),
            git.join().expect("listing mcp-server-git"),
        )
    });
    assert!(everything.len() >= 10, "server-everything: {everything:?}");
    assert!(git.len() >= 10, "mcp-server-git: {git:?}");
    let git_calls = strict_calls(Kind::Git, &git);
    for tool in GIT_WRITES {
        assert!(
            git_calls.iter().any(|c| c.tool == *tool),
            "{tool} is not listed"
        );
    }

    // Four queues, each run in order, side by side: the git writes in their order, the git
    // reads, and server-everything's tools in two halves.
    let (writes, reads): (Vec<StrictCall>, Vec<StrictCall>) = git_calls
        .into_iter()
        .partition(|c| GIT_WRITES.contains(&c.tool.as_str()));
    let mut writes = writes;
    writes.sort_by_key(|c| GIT_WRITES.iter().position(|t| *t == c.tool));
    let mut first = strict_calls(Kind::Everything, &everything);
    let second = first.split_off(first.len() / 2);
    let queues = [writes, reads, first, second];
    let outputs: Vec<(StrictCall, Output)> = std::thread::scope(|s| {
        let handles: Vec<_> = queues
            .iter()
            .map(|queue| {
                s.spawn(move || {
                    queue
                        .iter()
                        .map(|c| {
                            let output = call(c.kind, &c.tool, &c.arguments.to_string(), b"");
                            (c.clone(), output)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a queue of calls"))
            .collect()
    });
    assert_eq!(outputs.len(), everything.len() + git.len());

    let failures: Vec<String> = outputs
        .iter()
        .filter_map(|(c, output)| problem(c, output))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    // Content blocks of every type, printed as the server sent them.
    let results: HashMap<&str, Value> = outputs
        .iter()
        .map(|(c, output)| (c.tool.as_str(), stdout_json(output)))
        .collect();
    let blocks = |tool: &str, kind: &str| -> Vec<Value> {
        results[tool]["content"]
            .as_array()
            .expect("content")
            .iter()
            .filter(|b| b["type"] == kind)
            .cloned()
            .collect()
    };
    let links = blocks("get-resource-links", "resource_link");
    // Three: the server's default for the `count` the model sent as null.
    assert_eq!(links.len(), 3, "{}", results["get-resource-links"]);
    for link in &links {
        assert!(
            link["uri"]
                .as_str()
                .is_some_and(|u| u.starts_with("demo://")),
            "{link}"
        );
        assert!(link["name"].is_string(), "{link}");
    }
    let resources = blocks("get-resource-reference", "resource");
    assert_eq!(resources.len(), 1, "{}", results["get-resource-reference"]);
    assert_eq!(
        resources[0]["resource"]["uri"],
        "demo://resource/dynamic/text/1"
    );
    assert!(resources[0]["resource"]["text"].is_string());
    let structured = &results["get-structured-content"]["structuredContent"];
    assert!(structured["temperature"].is_number(), "{structured}");
    let annotated = blocks("get-annotated-message", "text");
    assert!(
        annotated.iter().any(|b| b["annotations"].is_object()),
        "annotations kept: {annotated:?}"
    );
    assert!(
        result_text(&results["git_log"]).contains("First commit"),
        "{}",
        results["git_log"]
    );
}

#[test]
fn a_tool_error_exits_1_with_the_whole_result() {
    let repo = servers().git_repo.to_str().expect("a UTF-8 path");
    let arguments = json!({"repo_path": repo, "revision": "no-such-revision"}).to_string();
    let output = call(Kind::Git, "git_show", &arguments, b"");
    assert_eq!(status(&output), 1, "stderr:\n{}", stderr(&output));
    let result = stdout_json(&output);
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        result_text(&result).contains("no-such-revision"),
        "{result}"
    );
    assert!(
        stderr(&output).contains(&format!("tooldef: calling git_show with {arguments}")),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_unknown_tool_exits_2_naming_the_closest_tools() {
    let output = call(Kind::Everything, "get_summ", "{}", b"");
    assert_eq!(status(&output), 2, "stderr:\n{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    let last = stderr(&output).lines().last().unwrap_or_default();
    assert!(
        last.starts_with("tooldef: ") && last.contains("no tool named `get_summ`"),
        "{last}"
    );
    assert!(last.contains("`get-sum`"), "{last}");
    assert!(
        !stderr(&output).contains("tooldef: calling"),
        "nothing was called"
    );
}

#[test]
fn arguments_that_are_not_an_object_exit_2_before_any_server_starts() {
    for (arguments, stdin, says) in [
        ("[1, 2]", "", "must be a JSON object"),
        ("\"text\"", "", "not a string"),
        ("42", "", "not a number"),
        ("null", "", "not null"),
        ("{\"a\": ", "", "malformed JSON"),
        ("-", "[\"from stdin\"]", "not an array"),
    ] {
        let output = call(Kind::Everything, "get-sum", arguments, stdin.as_bytes());
        let err = stderr(&output);
        assert_eq!(status(&output), 2, "{arguments}: {err}");
        assert_eq!(stdout(&output), "", "{arguments}");
        assert!(err.contains(says), "{arguments}: {err}");
        assert!(
            !err.contains("started"),
            "{arguments}: no server is started: {err}"
        );
    }
}

#[test]
fn arguments_are_read_from_stdin_with_a_dash() {
    let output = call(Kind::Everything, "get-sum", "-", b"{\"a\": 2, \"b\": 40}");
    assert_eq!(status(&output), 0, "stderr:\n{}", stderr(&output));
    assert_eq!(
        result_text(&stdout_json(&output)),
        "The sum of 2 and 40 is 42."
    );
}

#[test]
fn the_image_block_is_printed_whole() {
    // No `--arguments`: the tool takes none.
    let command = tooldef_for(
        Kind::Everything,
        &[
            "call",
            "--to",
            "chat",
            "--tool",
            "get-tiny-image",
            "--server-stderr",
            "discard",
        ],
    );
    let output = run(command, b"");
    assert_eq!(status(&output), 0, "stderr:\n{}", stderr(&output));
    assert!(stderr(&output).contains("tooldef: calling get-tiny-image with {}"));
    let result = stdout_json(&output);
    let images: Vec<&Value> = result["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter(|b| b["type"] == "image")
        .collect();
    assert_eq!(images.len(), 1, "{result}");
    let image = images[0];
    assert_eq!(image["mimeType"], "image/png");
    let data = image["data"].as_str().expect("base64 data");
    assert_png_base64(data);
    assert_eq!(result.get("isError"), None, "{result}");
}

#[test]
fn a_model_id_chooses_the_target_the_call_is_read_for() {
    // Gemini's `parametersJsonSchema`, chosen from the model's id; the name is Gemini's too.
    let command = tooldef_for(
        Kind::Everything,
        &[
            "call",
            "--model",
            "gemini-2.5-flash",
            "--tool",
            "get-sum",
            "--arguments",
            r#"{"a": 2, "b": 40}"#,
            "--server-stderr",
            "discard",
            "--timeout",
            TIMEOUT,
        ],
    );
    let output = run(command, b"");
    assert_eq!(status(&output), 0, "stderr:\n{}", stderr(&output));
    assert_eq!(
        result_text(&stdout_json(&output)),
        "The sum of 2 and 40 is 42."
    );
    // Neither a target nor a model: clap says what is missing.
    let command = tooldef_for(Kind::Everything, &["call", "--tool", "get-sum"]);
    let output = run(command, b"");
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("--to <TARGET>"),
        "{}",
        stderr(&output)
    );
}
