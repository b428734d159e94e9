//! Two MCP servers tooldef did not write, `server-everything` (TypeScript, zod) and
//! `mcp-server-git` (Python, pydantic), called the way an OpenAI strict-mode model calls them
//! through a proxy built on tooldef: their tools listed over stdio and converted for Chat
//! Completions, every tool called with the arguments a strict model sends when it leaves every
//! optional field out (every property present, `null` for the optional ones), those calls read
//! from a Chat Completions reply and answered by [`Router`], which restores the arguments to
//! each server's own shape. Without the restore, both servers refuse the `null`s; the control
//! test shows it, so the others cannot pass by accident.

use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::process::Command;
use tooldef::calls::{Answer, Router, ToolCall, chat_tool_calls};
use tooldef::convert::{Conversion, ConvertOptions, convert};
use tooldef::{Content, Target, ToolOutput};
use tooldef_tests::foreign::{
    ALLOWED_ERRORS, ForeignServers, GIT_WRITES, Server as Kind, assert_png_base64, chosen,
    foreign_servers, null_refusal, strict_form_arguments,
};

/// How long each test may take, servers' start included (it takes a few seconds).
const TEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Starts a server and initialises rmcp's client with it. The git server commits as a fixed
/// identity, with the user's and the system's git configuration kept out.
async fn start(kind: Kind, servers: &ForeignServers) -> RunningService<RoleClient, ()> {
    let command = kind.command(servers);
    let (program, args) = command.split_first().expect("a command");
    let mut child = Command::new(program);
    child
        .args(args)
        .envs(kind.env().iter().copied())
        .kill_on_drop(true);
    let (transport, _) = TokioChildProcess::builder(child)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|err| panic!("starting {command:?}: {err}"));
    ().serve(transport)
        .await
        .unwrap_or_else(|err| panic!("initialising with {command:?}: {err}"))
}

/// The server's tools converted for Chat Completions, with the default options (strict where
/// the schema allows it), as a proxy would.
async fn chat_conversion(client: &RunningService<RoleClient, ()>) -> Conversion {
    let tools = client.list_all_tools().await.expect("tools/list");
    let listed = json!({"tools": tools});
    let conversion = convert(&listed, Target::ChatCompletions, &ConvertOptions::default())
        .expect("the tools convert");
    assert!(
        conversion.rejected.is_empty(),
        "rejected: {:?}",
        conversion.rejected
    );
    conversion
}

/// One strict-form call per converted tool: (the name the model sees, its arguments), in the
/// order they are to be made.
fn strict_calls(
    kind: Kind,
    conversion: &Conversion,
    servers: &ForeignServers,
) -> Vec<(String, Value)> {
    let mut calls: Vec<(String, Value)> = conversion
        .tools
        .iter()
        .map(|tool| {
            let wire = tool.to_json();
            let parameters = &wire["function"]["parameters"];
            let arguments =
                strict_form_arguments(parameters, &chosen(kind, &tool.original_name, servers));
            (tool.name().to_owned(), arguments)
        })
        .collect();
    if kind == Kind::Git {
        calls.sort_by_key(|(name, _)| GIT_WRITES.iter().position(|n| n == name));
    }
    calls
}

/// A Chat Completions reply asking for `calls`, as the API returns it.
fn completion(calls: &[(String, Value)]) -> Value {
    let tool_calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, arguments))| {
            json!({
                "id": format!("call_{i:02}"),
                "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()},
            })
        })
        .collect();
    json!({
        "id": "chatcmpl-foreign-e2e",
        "object": "chat.completion",
        "created": 1_767_225_600,
        "model": "gpt-4.1-2025-04-14",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "refusal": null,
                "annotations": [],
                "tool_calls": tool_calls,
            },
            "logprobs": null,
            "finish_reason": "tool_calls",
        }],
        "usage": {"prompt_tokens": 2048, "completion_tokens": 512, "total_tokens": 2560},
    })
}

/// A call and what the router answered.
struct Answered {
    call: ToolCall,
    output: ToolOutput,
    is_error: bool,
}

/// Starts the server, converts its tools, reads one strict-form call per tool from a Chat
/// Completions reply and answers them, in order, through a [`Router`]; closes the server.
async fn answer_every_tool(kind: Kind, servers: &ForeignServers) -> Vec<Answered> {
    let client = start(kind, servers).await;
    let conversion = chat_conversion(&client).await;
    let reply = completion(&strict_calls(kind, &conversion, servers));
    let calls = chat_tool_calls(&reply).expect("the reply's tool calls");
    assert_eq!(calls.len(), conversion.tools.len());
    let router = Router::new().mcp_server(client.peer().clone(), conversion);
    let mut answered = Vec::new();
    // One at a time: the git calls change the repository, in an order that matters.
    for call in calls {
        match router.answer(&call).await {
            Answer::Answered {
                output, is_error, ..
            } => answered.push(Answered {
                call,
                output,
                is_error,
            }),
            Answer::Caller => panic!("{}: handed back to the caller", call.name),
        }
    }
    client.cancel().await.expect("the client closes");
    answered
}

fn answer_for<'a>(answers: &'a [Answered], tool: &str) -> &'a Answered {
    answers
        .iter()
        .find(|a| a.call.name == tool)
        .unwrap_or_else(|| panic!("no answer for `{tool}`"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_of_both_servers_answers_a_strict_models_call_through_the_router() {
    // Installing (the first time) is blocking work: off the runtime's threads.
    let servers = tokio::task::spawn_blocking(foreign_servers)
        .await
        .expect("installing the servers");
    let both = async {
        tokio::join!(
            answer_every_tool(Kind::Everything, servers),
            answer_every_tool(Kind::Git, servers)
        )
    };
    let (everything, git) = tokio::time::timeout(TEST_TIMEOUT, both)
        .await
        .expect("both servers answer every call in time");
    assert!(
        everything.len() >= 10,
        "server-everything: {}",
        everything.len()
    );
    assert!(git.len() >= 10, "mcp-server-git: {}", git.len());

    let mut failures = Vec::new();
    for answer in everything.iter().chain(&git) {
        let text = answer.output.to_text();
        let name = &answer.call.name;
        let arguments = &answer.call.arguments;
        if let Some(marker) = null_refusal(&text) {
            failures.push(format!(
                "{name}: a null was refused ({marker:?}) for {arguments}: {text}"
            ));
        } else if answer.is_error {
            match ALLOWED_ERRORS.iter().find(|(tool, _)| tool == name) {
                Some((_, expected)) if text.contains(expected) => {}
                Some((_, expected)) => failures.push(format!(
                    "{name}: allowed to fail with {expected:?}, but failed otherwise for \
                     {arguments}: {text}"
                )),
                None => failures.push(format!("{name}: failed for {arguments}: {text}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Every git tool was called, in an order that lets each succeed.
    let called: Vec<&str> = git.iter().map(|a| a.call.name.as_str()).collect();
    let reads = [
        "git_status",
        "git_diff_unstaged",
        "git_diff_staged",
        "git_diff",
        "git_log",
        "git_show",
        "git_branch",
    ];
    for tool in reads.iter().chain(GIT_WRITES) {
        assert!(called.contains(tool), "{tool} not listed: {called:?}");
    }

    // Defaults the server applies to what the strict model left out (`null`, removed):
    // three links, the text resource with id 1, the default file name.
    let links = answer_for(&everything, "get-resource-links");
    let uris: Vec<&str> = links
        .output
        .content
        .iter()
        .filter_map(|c| match c {
            Content::ResourceLink(link) => link.get("uri").and_then(Value::as_str),
            _ => None,
        })
        .collect();
    assert_eq!(uris.len(), 3, "{:?}", links.output.content);
    assert!(uris.iter().all(|u| u.starts_with("demo://")), "{uris:?}");

    // Non-text content reaches the caller whole.
    let image = answer_for(&everything, "get-tiny-image");
    let (data, mime_type) = image
        .output
        .content
        .iter()
        .find_map(|c| match c {
            Content::Image { data, mime_type } => Some((data, mime_type)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no image in {:?}", image.output.content));
    assert_eq!(mime_type, "image/png");
    assert_png_base64(data);

    let reference = answer_for(&everything, "get-resource-reference");
    let resource = reference
        .output
        .content
        .iter()
        .find_map(|c| match c {
            Content::Resource(block) => block.get("resource"),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no resource in {:?}", reference.output.content));
    assert_eq!(resource["uri"], "demo://resource/dynamic/text/1");
    assert_eq!(resource["mimeType"], "text/plain");
    assert!(
        resource["text"]
            .as_str()
            .is_some_and(|t| t.contains("Resource 1")),
        "{resource}"
    );

    let gzip = answer_for(&everything, "gzip-file-as-resource");
    assert!(
        gzip.output.content.iter().any(|c| matches!(c, Content::ResourceLink(link)
            if link.get("uri").and_then(Value::as_str).is_some_and(|u| u.ends_with("/README.md.gz")))),
        "{:?}",
        gzip.output.content
    );

    let structured = answer_for(&everything, "get-structured-content");
    let value = structured
        .output
        .structured
        .as_ref()
        .expect("structuredContent");
    assert!(value["temperature"].is_number(), "{value}");
    assert!(value["conditions"].is_string(), "{value}");

    // The git server's defaults applied too: the log has both commits of the repository.
    let log = answer_for(&git, "git_log").output.to_text();
    assert!(
        log.contains("First commit") && log.contains("Second commit"),
        "{log}"
    );
    assert!(
        answer_for(&git, "git_commit")
            .output
            .to_text()
            .contains("committed"),
        "{}",
        answer_for(&git, "git_commit").output.to_text()
    );
}

/// The strict-form call for `tool` of the server behind `client`: (its arguments as the model
/// sends them, the conversion).
async fn strict_call(
    kind: Kind,
    tool: &str,
    client: &RunningService<RoleClient, ()>,
    servers: &ForeignServers,
) -> (Value, Conversion) {
    let conversion = chat_conversion(client).await;
    let (_, arguments) = strict_calls(kind, &conversion, servers)
        .into_iter()
        .find(|(name, _)| name == tool)
        .unwrap_or_else(|| panic!("{tool} is not listed"));
    (arguments, conversion)
}

/// The text of an MCP call's outcome: a result's content, or a JSON-RPC error's message; and
/// whether it is an error.
fn outcome_text(outcome: Result<rmcp::model::CallToolResult, ServiceError>) -> (String, bool) {
    match outcome {
        Ok(result) => {
            let json = serde_json::to_value(&result).expect("the result as JSON");
            (
                ToolOutput::from_mcp_result(&json).to_text(),
                result.is_error == Some(true),
            )
        }
        Err(error) => (error.to_string(), true),
    }
}

/// Control: the same strict-form arguments, sent straight to the servers without restoring
/// them, are refused for the `null`s; through the router they are answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_restoring_the_servers_refuse_a_strict_models_nulls() {
    let servers = tokio::task::spawn_blocking(foreign_servers)
        .await
        .expect("installing the servers");
    let cases = [
        (
            Kind::Everything,
            "get-annotated-message",
            "includeImage",
            "expected boolean, received null",
        ),
        (
            Kind::Git,
            "git_log",
            "max_count",
            "Input should be a valid integer",
        ),
    ];
    let check = |(kind, tool, field, refusal): (Kind, &'static str, &'static str, &'static str)| async move {
        let client = start(kind, servers).await;
        let (arguments, conversion) = strict_call(kind, tool, &client, servers).await;
        assert_eq!(arguments[field], Value::Null, "{tool}: {arguments}");

        let Value::Object(map) = arguments.clone() else {
            unreachable!("an object")
        };
        let direct = client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
            .await;
        let (text, is_error) = outcome_text(direct);
        assert!(is_error, "{tool} took {arguments} unrestored: {text}");
        assert!(text.contains(refusal), "{tool}: {text}");

        let router = Router::new().mcp_server(client.peer().clone(), conversion);
        let call = ToolCall {
            id: "call_control".into(),
            name: tool.into(),
            arguments: arguments.to_string(),
        };
        match router.answer(&call).await {
            Answer::Answered {
                output, is_error, ..
            } => {
                assert!(!is_error, "{tool} through the router: {}", output.to_text());
            }
            Answer::Caller => panic!("{tool}: handed back to the caller"),
        }
        client.cancel().await.expect("the client closes");
    };
    let [everything, git] = cases;
    tokio::time::timeout(TEST_TIMEOUT, async {
        tokio::join!(check(everything), check(git))
    })
    .await
    .expect("both servers answer in time");
}
