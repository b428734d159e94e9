//! `tooldef list --url` and `tooldef call --url`: MCP servers over Streamable HTTP. The
//! `mcp_server` example (with and without a bearer token), the misbehaving servers of
//! `tests/hostile/servers/` in their HTTP mode (the listing limits and checks hold over HTTP
//! too), and what cannot be connected to: one line on stderr and exit status 2, never a panic
//! or a hang. Every server is a child process killed when its test ends, passed or failed.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;
use tooldef_tests::served::Served;

mod support;
use support::{run, status, stderr, stdout};

const SERVERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/hostile/servers");

/// `tooldef ARGS` with `env` added to its environment.
fn tooldef(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tooldef"));
    // The token of whoever runs the tests must not reach the servers here.
    command
        .args(args)
        .env_remove("TOOLDEF_BEARER_TOKEN")
        .envs(env.iter().copied());
    run(command, b"")
}

/// The last line of stderr.
fn last_line(output: &Output) -> &str {
    stderr(output).lines().last().unwrap_or_default()
}

/// A failure as the CLI reports one: exit status 2, nothing on stdout, one error line last,
/// no panic; the line.
fn failed(output: &Output) -> &str {
    assert_eq!(status(output), 2, "{}", stderr(output));
    assert!(output.stdout.is_empty(), "{}", stdout(output));
    assert!(!stderr(output).contains("panicked"), "{}", stderr(output));
    let line = last_line(output);
    assert!(line.starts_with("tooldef: "), "{}", stderr(output));
    line
}

fn names(output: &Output) -> Vec<String> {
    let tools: Vec<Value> = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("stdout is not JSON ({err}); stderr:\n{}", stderr(output)));
    tools
        .iter()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn list_url_converts_the_example_server_s_tools() {
    let server = Served::example(&[]);
    let output = tooldef(&["list", "--to", "chat", "--url", server.url()], &[]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(
        names(&output),
        [
            "get_server_time",
            "get_weather",
            "convert_currency",
            "search_flights",
            "book_hotel",
            "plan_itinerary",
            "set_reminder",
            "send_agent_message",
            "cancel_booking"
        ]
    );
    let log = stderr(&output);
    assert!(
        log.starts_with(&format!(
            "tooldef: connecting to {}; initialising\ntooldef: connected to tooldef-showcase",
            server.url()
        )),
        "{log}"
    );
    assert!(
        log.contains(&format!("tooldef: `{}` listed 9 tools", server.url())),
        "{log}"
    );
}

#[test]
fn call_url_restores_the_arguments_and_prints_the_result() {
    let server = Served::example(&["--test-tools"]);
    let arguments = r#"{"city": "Lisbon", "days": null, "units": null}"#;
    let call = |tool: &str, arguments: &str| {
        tooldef(
            &[
                "call",
                "--to",
                "chat",
                "--tool",
                tool,
                "--arguments",
                arguments,
                "--url",
                server.url(),
            ],
            &[],
        )
    };
    let output = call("get_weather", arguments);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        stderr(&output).contains(r#"tooldef: calling get_weather with {"city":"Lisbon"}"#),
        "{}",
        stderr(&output)
    );
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["structuredContent"]["city"], "Lisbon");
    assert_eq!(result["isError"], false);

    // A tool's error: printed, exit status 1.
    let output = call("crash", r#"{"message": "boom"}"#);
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["isError"], true);
}

#[test]
fn call_reports_only_the_called_tool_and_quiet_only_the_result() {
    let server = Served::example(&["--test-tools"]);
    let call = |tool: &str, arguments: &str, quiet: bool| {
        let mut args = vec![
            "call",
            "--to",
            "chat",
            "--tool",
            tool,
            "--arguments",
            arguments,
        ];
        if quiet {
            args.push("--quiet");
        }
        args.extend_from_slice(&["--url", server.url()]);
        tooldef(&args, &[])
    };
    let arguments = r#"{"city": "Lisbon", "days": null, "units": null}"#;

    // Every tool of the server is rewritten for chat (`tooldef list` reports each), but the
    // call reports the one it calls: its lines, the progress lines and the arguments sent.
    let output = call("get_weather", arguments, false);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let log = stderr(&output);
    assert!(
        log.contains(
            "\nget_weather: rewritten: moved into descriptions: `examples`; made 3 optional \
             properties required"
        ),
        "{log}"
    );
    for line in log.lines() {
        assert!(
            line.starts_with("tooldef: ") || line.starts_with("get_weather: "),
            "a line about another tool: {line}\n{log}"
        );
    }
    assert!(
        log.ends_with("tooldef: calling get_weather with {\"city\":\"Lisbon\"}\n"),
        "{log}"
    );
    let reported: Value = serde_json::from_slice(&output.stdout).unwrap();

    // --quiet: the same result and exit status, and nothing on stderr.
    let output = call("get_weather", arguments, true);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
    let quiet: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(quiet, reported);
    let output = call("crash", r#"{"message": "boom"}"#, true);
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["isError"], true);
    // A failure is still said, in one line.
    let output = call("get_wether", "{}", true);
    let line = failed(&output);
    assert_eq!(stderr(&output).lines().count(), 1, "{}", stderr(&output));
    assert!(line.contains("did you mean `get_weather`?"), "{line}");
}

#[test]
fn a_bearer_token_is_sent_from_the_flag_or_the_environment() {
    let server = Served::example(&["--bearer-token", "s3cret"]);
    let url = server.url();
    let call = [
        "call",
        "--to",
        "chat",
        "--tool",
        "get_server_time",
        "--url",
        url,
    ];
    let with_flag = [&call[..], &["--bearer-token", "s3cret"]].concat();
    let output = tooldef(&with_flag, &[]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let output = tooldef(&call, &[("TOOLDEF_BEARER_TOKEN", "s3cret")]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let output = tooldef(
        &["list", "--to", "chat", "--url", url],
        &[("TOOLDEF_BEARER_TOKEN", "s3cret")],
    );
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(names(&output).len(), 9);

    // Without it, or with another.
    let output = tooldef(&["list", "--to", "chat", "--url", url], &[]);
    assert_eq!(
        failed(&output),
        format!(
            "tooldef: `{url}` needs authorisation (HTTP 401, `WWW-Authenticate: Bearer`): give \
             its bearer token with --bearer-token TOKEN or TOOLDEF_BEARER_TOKEN (or another \
             credential with --header)"
        )
    );
    let output = tooldef(&call, &[("TOOLDEF_BEARER_TOKEN", "wrong")]);
    assert_eq!(
        failed(&output),
        format!(
            "tooldef: `{url}` refused the bearer token (HTTP 401): give the server's token with \
             --bearer-token TOKEN or TOOLDEF_BEARER_TOKEN"
        )
    );
    // Both a token and an `Authorization` header: one too many.
    let output = tooldef(
        &[
            "list",
            "--to",
            "chat",
            "--url",
            url,
            "--bearer-token",
            "s3cret",
            "--header",
            "Authorization: Bearer s3cret",
        ],
        &[],
    );
    assert!(failed(&output).contains("give one"), "{}", stderr(&output));
}

#[test]
fn headers_are_sent_with_every_request() {
    // The example accepts browser origins it is told to: the `Origin` header decides.
    let server = Served::example(&["--allowed-origin", "http://app.example:3000"]);
    // `tooldef list --to chat --url SERVER` with these `--header`s.
    let list_with = |headers: &[&str]| {
        let mut args = vec!["list", "--to", "chat", "--url", server.url()];
        for header in headers {
            args.extend(["--header", header]);
        }
        tooldef(&args, &[])
    };
    let list = |origin: &str| list_with(&[&format!("Origin: {origin}"), "X-Trace: 1"]);
    let output = list("http://app.example:3000");
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let output = list("http://evil.example");
    let line = failed(&output);
    assert!(
        line.starts_with(&format!(
            "tooldef: `{}` refused the connection (HTTP 403: Forbidden: Origin header is not \
             allowed.",
            server.url()
        )),
        "{line}"
    );
    // A header HTTP cannot carry, or one the MCP client sets itself: usage errors.
    let refused = |header: &str, why: &str| {
        let output = list_with(&[header]);
        assert_eq!(status(&output), 2);
        assert!(stderr(&output).contains(why), "{}", stderr(&output));
    };
    refused("no colon", "give it as `Name: value`");
    refused("Mcp-Session-Id: x", "set by the MCP client itself");
}

/// A TCP server on a free port, answering each connection with `answer` after reading the
/// request's head (or never, for `None`), until the test ends. Not an MCP server: what
/// `--url` may point at by mistake.
fn not_mcp(answer: Option<&'static str>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let address = listener.local_addr().expect("an address");
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut head = [0_u8; 4096];
            let _ = stream.read(&mut head);
            match answer {
                Some(answer) => {
                    let _ = stream.write_all(answer.as_bytes());
                }
                // Kept open, never answered.
                None => held.push(stream),
            }
        }
    });
    format!("http://{address}/mcp")
}

#[test]
fn what_cannot_be_connected_to_is_one_line_and_exit_status_2() {
    let list = |url: &str, extra: &[&str]| {
        let args = [&["list", "--to", "chat", "--url", url][..], extra].concat();
        tooldef(&args, &[])
    };

    // Nothing listening.
    let free = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let url = format!("http://{free}/mcp");
    let output = list(&url, &[]);
    let line = failed(&output);
    assert!(
        line.starts_with(&format!("tooldef: cannot connect to `{url}`: "))
            && line.ends_with(": is the server running, at this address and port?"),
        "{line}"
    );

    // The wrong path.
    let server = Served::example(&[]);
    let url = format!("{}/wrong", server.origin());
    let line = failed(&list(&url, &[])).to_owned();
    assert_eq!(
        line,
        format!(
            "tooldef: `{url}` has no MCP endpoint at this path (HTTP 404: Not Found: `/wrong` is \
             not this server's MCP endpoint; connect to `/mcp`): check the path in --url"
        )
    );

    // A web page, not an MCP server.
    let page = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\
                Connection: close\r\n\r\n<html></html>";
    let url = not_mcp(Some(page));
    assert_eq!(
        failed(&list(&url, &[])),
        format!(
            "tooldef: `{url}` is not an MCP server: it answered with `text/html` instead of JSON \
             or an event stream"
        )
    );

    // Never answering: --timeout ends it.
    let url = not_mcp(None);
    let started = Instant::now();
    let output = list(&url, &["--timeout", "1"]);
    assert_eq!(
        failed(&output),
        format!("tooldef: `{url}` did not answer `initialize` within 1 s (--timeout)")
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );

    // Not a URL.
    let output = list("127.0.0.1:8000/mcp", &[]);
    assert!(
        failed(&output).starts_with("tooldef: --url: `127.0.0.1:8000/mcp` is not a URL"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn exactly_one_of_url_and_command_is_given() {
    let output = tooldef(&["list", "--to", "chat"], &[]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("the following required arguments were not provided")
            && stderr(&output).contains("<COMMAND|--url <URL>>"),
        "{}",
        stderr(&output)
    );
    let output = tooldef(
        &[
            "list",
            "--to",
            "chat",
            "--url",
            "http://127.0.0.1:1/mcp",
            "--",
            "true",
        ],
        &[],
    );
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("the argument '--url <URL>' cannot be used with '[COMMAND]...'"),
        "{}",
        stderr(&output)
    );
    // HTTP options are for --url.
    let output = tooldef(
        &[
            "call",
            "--to",
            "chat",
            "--tool",
            "t",
            "--bearer-token",
            "x",
            "--",
            "true",
        ],
        &[],
    );
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("cannot be used with"),
        "{}",
        stderr(&output)
    );
}

/// A misbehaving server of `tests/hostile/servers/` over HTTP.
fn hostile(script: &str) -> Served {
    let mut command = Command::new("python3");
    command.args(["-B", &format!("{SERVERS}/{script}"), "--http"]);
    Served::start(command)
}

#[test]
fn the_listing_limits_and_checks_hold_over_http() {
    let list = |server: &Served, extra: &[&str]| {
        let args = [&["list", "--to", "chat", "--url", server.url()][..], extra].concat();
        tooldef(&args, &[])
    };

    let pages = hostile("pages_forever.py");
    let url = pages.url();
    assert_eq!(
        failed(&list(&pages, &["--max-pages", "3"])),
        format!(
            "tooldef: `{url}` did not list its tools: it was still paging after 3 pages of \
             `tools/list` (--max-pages 3): raise --max-pages if the server really has that many \
             pages; otherwise its pagination never ends, which is a bug in the server"
        )
    );
    assert_eq!(
        failed(&list(&pages, &["--max-tools", "12"])),
        format!(
            "tooldef: `{url}` did not list its tools: it listed more than 12 tools by page 3 \
             (--max-tools 12): raise --max-tools if the server really has that many"
        )
    );
    let line = failed(&list(&pages, &["--max-list-mib", "1"])).to_owned();
    assert!(
        line.contains("its `tools/list` results came to more than 1 MiB of JSON by page "),
        "{line}"
    );

    let looping = hostile("cursor_loop.py");
    assert_eq!(
        failed(&list(&looping, &[])),
        format!(
            "tooldef: `{}` did not list its tools: page 4 of its `tools/list` gave the cursor \
             `a` that page 1 gave already: its pagination loops, which is a bug in the server",
            looping.url()
        )
    );

    let not_array = hostile("tools_not_array.py");
    let line = failed(&list(&not_array, &[])).to_owned();
    assert!(
        line.ends_with(
            "did not list its tools: its `tools/list` result (page 1) has a `tools` that is not \
             an array (got an object); an MCP server answers `{\"tools\": [...]}`"
        ),
        "{line}"
    );

    // Invalid tools among valid ones: named, and skipped with --lenient.
    let invalid = hostile("invalid_tools.py");
    let output = list(&invalid, &[]);
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    let output = list(&invalid, &["--lenient"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        names(&output).contains(&"echo".to_owned()),
        "{}",
        stdout(&output)
    );
}

#[test]
fn the_servers_questions_are_answered_from_elicit_or_declined() {
    let server = Served::example(&["--mcp-features"]);
    let call = |extra: &[&str]| {
        let mut args = vec![
            "call",
            "--to",
            "mcp",
            "--tool",
            "delete_files",
            "--arguments",
            r#"{"folder": "logs", "count": 2}"#,
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--url", server.url()]);
        let output = tooldef(&args, &[]);
        assert_eq!(status(&output), 0, "{}", stderr(&output));
        let result: Value = serde_json::from_slice(&output.stdout).unwrap();
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (text, stderr(&output).to_owned())
    };
    let (text, _) = call(&["--elicit", r#"{"confirm": true}"#]);
    assert_eq!(text, "deleted 2 files in logs");
    let (text, _) = call(&["--elicit", r#"{"confirm": false}"#]);
    assert_eq!(text, "kept the files in logs: the user said no");
    let (text, _) = call(&["--elicit", "decline"]);
    assert_eq!(text, "kept the files in logs: the user declined");
    let (text, _) = call(&["--elicit", "cancel"]);
    assert_eq!(text, "kept the files in logs: the user cancelled");
    // An answer the form does not take is declined, saying why.
    let (text, log) = call(&["--elicit", r#"{"confirm": "yes"}"#]);
    assert_eq!(text, "kept the files in logs: the user declined");
    assert!(
        log.contains("tooldef: --elicit does not answer \"Delete 2 files in logs?\": `confirm` takes true or false"),
        "{log}"
    );
    // Without --elicit or a terminal, tooldef does not say it can answer, so it is not asked.
    let (text, _) = call(&[]);
    assert!(text.contains("cannot be asked here"), "{text}");
}

#[test]
fn elicit_must_be_an_answer() {
    let output = tooldef(
        &[
            "call",
            "--to",
            "mcp",
            "--tool",
            "x",
            "--elicit",
            "yes",
            "--url",
            "http://127.0.0.1:1/mcp",
        ],
        &[],
    );
    let line = failed(&output);
    assert!(
        line.starts_with("tooldef: --elicit: malformed JSON"),
        "{line}"
    );
    let output = tooldef(
        &[
            "call",
            "--to",
            "mcp",
            "--tool",
            "x",
            "--elicit",
            "[true]",
            "--url",
            "http://127.0.0.1:1/mcp",
        ],
        &[],
    );
    assert_eq!(
        failed(&output),
        "tooldef: --elicit takes `decline`, `cancel` or the JSON object of the answer, not an array"
    );
}

#[test]
fn oauth_flags_that_cannot_work_are_named_before_anything_is_sent() {
    let url = "http://127.0.0.1:1/mcp";
    let cases: [(&[&str], &str); 3] = [
        (
            &["--oauth-grant", "enterprise", "--client-id", "c"],
            "tooldef: --oauth-grant enterprise needs --idp-issuer URL",
        ),
        (
            &[
                "--oauth-grant",
                "enterprise",
                "--client-id",
                "c",
                "--idp-issuer",
                "http://127.0.0.1:1",
                "--idp-client-id",
                "i",
            ],
            "tooldef: --oauth-grant enterprise needs --idp-id-token TOKEN (or TOOLDEF_IDP_ID_TOKEN)",
        ),
        (
            &["--client-metadata-url", "http://example.com/client.json"],
            "tooldef: --url: the client metadata URL `http://example.com/client.json` must be https:// with a path (it is the client's id)",
        ),
    ];
    for (flags, said) in cases {
        let mut args = vec!["list", "--to", "mcp", "--url", url];
        args.extend_from_slice(flags);
        let output = tooldef(&args, &[("TOOLDEF_IDP_ID_TOKEN", "")]);
        assert_eq!(failed(&output), said, "{flags:?}");
    }
    // A client secret is for a client id.
    let output = tooldef(
        &["list", "--to", "mcp", "--url", url, "--client-secret", "s"],
        &[],
    );
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("--client-id"),
        "{}",
        stderr(&output)
    );
}
