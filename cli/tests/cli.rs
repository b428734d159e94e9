//! The `tooldef` binary, run as a user runs it: on the corpora of `tests/fixtures/corpus`, on
//! stdin, on bad input, and against the project's MCP server example.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

mod support;
use support::{run, status, stderr, stdout};

const GITHUB: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/corpus/github-mcp-server.tools.json"
);
const FASTMCP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/corpus/fastmcp-metabolic.tools.json"
);
const TARGETS: [&str; 6] = [
    "mcp",
    "chat",
    "responses",
    "anthropic",
    "gemini",
    "gemini-json",
];

/// Runs `tooldef` with `args`, feeding `stdin` (empty when `None`).
fn tooldef(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tooldef"));
    command.args(args);
    run(command, stdin.unwrap_or_default())
}

/// Stdout as a JSON array: the whole of stdout must parse, so nothing else was printed there.
fn json_array(output: &Output) -> Vec<Value> {
    match serde_json::from_slice(&output.stdout) {
        Ok(Value::Array(tools)) => tools,
        other => panic!(
            "stdout is not a JSON array ({other:?}); stderr:\n{}",
            stderr(output)
        ),
    }
}

/// The names of the tools in a corpus file.
fn corpus_names(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("the corpus is readable");
    let value: Value = serde_json::from_str(&text).expect("the corpus is JSON");
    value["tools"]
        .as_array()
        .expect("the corpus is a tools/list result")
        .iter()
        .map(|t| {
            t["name"]
                .as_str()
                .expect("every tool has a name")
                .to_owned()
        })
        .collect()
}

/// A tool's name in a target's wire shape.
fn wire_name(tool: &Value) -> &str {
    tool.pointer("/function/name")
        .or_else(|| tool.get("name"))
        .and_then(Value::as_str)
        .expect("a converted tool has a name")
}

/// Every diagnostic line on stderr starts with the name of one of `names`, but the batch's
/// warnings, which start with `warning: ` and name every tool they concern.
fn assert_prefixed_by_tool_names(output: &Output, names: &[String]) {
    for line in stderr(output).lines() {
        if let Some(warning) = line.strip_prefix("warning: ") {
            let (named, _) = warning.split_once(": ").expect("a warning says what");
            for name in named.split(", ") {
                assert!(names.iter().any(|n| n == name), "{name} in {line}");
            }
            continue;
        }
        assert!(
            names.iter().any(|n| line.starts_with(&format!("{n}: "))),
            "a stderr line without a tool name in front: {line}"
        );
    }
}

/// A fresh path in Cargo's temporary directory for integration tests.
fn temp_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tooldef-cli");
    std::fs::create_dir_all(&dir).expect("the temporary directory can be made");
    dir.join(format!("{}-{name}", std::process::id()))
}

#[test]
fn converts_the_github_corpus_for_every_target() {
    let names = corpus_names(GITHUB);
    assert_eq!(names.len(), 117);
    for target in TARGETS {
        let output = tooldef(&["convert", "--to", target, GITHUB], None);
        assert_eq!(status(&output), 0, "{target}: {}", stderr(&output));
        let tools = json_array(&output);
        assert_eq!(tools.len(), names.len(), "{target}");
        assert!(
            stdout(&output).ends_with("]\n"),
            "pretty JSON ending a line"
        );
        assert_prefixed_by_tool_names(&output, &names);
        // GitHub's names are already valid everywhere: kept, in input order.
        let converted: Vec<&str> = tools.iter().map(wire_name).collect();
        assert_eq!(converted, names, "{target}");
    }
}

#[test]
fn defer_loading_marks_every_tool_where_the_target_takes_it() {
    let output = tooldef(
        &["convert", "--to", "responses", "--defer-loading", GITHUB],
        None,
    );
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        json_array(&output)
            .iter()
            .all(|t| t["defer_loading"] == true)
    );
    // Anthropic refuses a request whose tools are all deferred: the first stays loaded, and
    // its report says so.
    let output = tooldef(
        &["convert", "--to", "anthropic", "--defer-loading", GITHUB],
        None,
    );
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let tools = json_array(&output);
    assert!(tools[0].get("defer_loading").is_none());
    assert!(tools[1..].iter().all(|t| t["defer_loading"] == true));
    assert!(
        stderr(&output).contains("`defer_loading`"),
        "{}",
        stderr(&output)
    );
    // Without the flag, nothing is deferred.
    let output = tooldef(&["convert", "--to", "responses", GITHUB], None);
    assert!(!stdout(&output).contains("defer_loading"));
}

#[test]
fn a_model_chooses_the_target_and_its_profile() {
    // A reasoning model: Chat Completions, with `pattern` (github's `owner` names) in words.
    let output = tooldef(&["convert", "--model", "o3-mini", GITHUB], None);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let tools = json_array(&output);
    assert_eq!(tools.len(), 117);
    assert!(
        tools
            .iter()
            .all(|t| t["type"] == "function" && t["function"].is_object())
    );
    let text = stdout(&output);
    for keyword in ["\"pattern\"", "\"minimum\"", "\"maximum\"", "\"format\""] {
        assert!(
            !text.contains(keyword),
            "{keyword} left for a reasoning model"
        );
    }
    // Claude: the Anthropic shape.
    let output = tooldef(&["convert", "--model", "claude-sonnet-4-5", GITHUB], None);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert!(
        json_array(&output)
            .iter()
            .all(|t| t["input_schema"].is_object())
    );
    // --to wins the target; the model still gives the profile.
    let output = tooldef(
        &[
            "convert",
            "--to",
            "responses",
            "--model",
            "llama3.1:8b",
            GITHUB,
        ],
        None,
    );
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let tools = json_array(&output);
    assert!(
        tools
            .iter()
            .all(|t| t["name"].is_string() && t["strict"] == false)
    );
    // Neither: a usage error.
    let output = tooldef(&["convert", GITHUB], None);
    assert_eq!(status(&output), 2);
    assert!(stderr(&output).contains("--to"), "{}", stderr(&output));
}

#[test]
fn converts_the_fastmcp_corpus_for_every_target() {
    let names = corpus_names(FASTMCP);
    assert_eq!(names.len(), 27);
    for target in ["mcp", "chat", "responses", "anthropic"] {
        let output = tooldef(&["convert", "--to", target, FASTMCP], None);
        assert_eq!(status(&output), 0, "{target}: {}", stderr(&output));
        assert_eq!(json_array(&output).len(), 27, "{target}");
        assert_prefixed_by_tool_names(&output, &names);
    }
    // Where strict mode cannot be had, the diagnostics say why.
    let chat = tooldef(&["convert", "--to", "chat", FASTMCP], None);
    assert!(
        stderr(&chat)
            .lines()
            .any(|l| l.starts_with("set_objective: ")
                && l.contains("`/properties/coefficients`")
                && l.contains("strict")),
        "{}",
        stderr(&chat)
    );
    assert!(stderr(&chat).contains("build_model: rewritten: "));
}

#[test]
fn gemini_gets_the_recursive_fastmcp_tools_cut_and_described() {
    let output = tooldef(&["convert", "--to", "gemini", FASTMCP], None);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let tools = json_array(&output);
    assert_eq!(tools.len(), 27);
    let errors = stderr(&output);
    for tool in ["add_reaction", "set_gene_rule"] {
        let converted = tools.iter().find(|t| t["name"] == tool).expect("converted");
        assert!(!converted.to_string().contains("$ref"), "{converted}");
        assert!(
            errors
                .lines()
                .any(|l| l.starts_with(&format!("{tool}: ")) && l.contains("recursive")),
            "{errors}"
        );
    }
    assert_prefixed_by_tool_names(&output, &corpus_names(FASTMCP));
}

#[test]
fn strict_on_rejects_the_open_maps_of_the_fastmcp_corpus() {
    let open_maps = [
        "add_reaction",
        "pathway_enrichment",
        "community_fba",
        "set_objective",
    ];
    for target in ["chat", "responses"] {
        let output = tooldef(
            &["convert", "--to", target, "--strict", "on", FASTMCP],
            None,
        );
        assert_eq!(status(&output), 1, "{target}: {}", stderr(&output));
        assert!(output.stdout.is_empty());
        let errors = stderr(&output);
        let last = errors.lines().last().expect("a message");
        assert!(
            last.starts_with("tooldef: 4 tools cannot be converted"),
            "{last}"
        );
        for tool in open_maps {
            assert!(last.contains(tool), "{last}");
            let line = errors
                .lines()
                .find(|l| l.starts_with(&format!("{tool}: rejected: ")))
                .unwrap_or_else(|| panic!("{tool} is named: {errors}"));
            assert!(line.contains("open map"), "{line}");
            assert!(!line.contains("rendered with strict: false"), "{line}");
        }

        let lenient = tooldef(
            &[
                "convert",
                "--to",
                target,
                "--strict",
                "on",
                "--lenient",
                FASTMCP,
            ],
            None,
        );
        assert_eq!(status(&lenient), 0, "{}", stderr(&lenient));
        let tools = json_array(&lenient);
        assert_eq!(tools.len(), 23);
        for tool in &tools {
            let strict = tool
                .pointer("/function/strict")
                .or_else(|| tool.get("strict"));
            assert_eq!(strict, Some(&Value::Bool(true)), "{tool}");
        }
    }
    // Off: every tool, none strict.
    let off = tooldef(
        &["convert", "--to", "chat", "--strict", "off", FASTMCP],
        None,
    );
    assert_eq!(status(&off), 0);
    let tools = json_array(&off);
    assert_eq!(tools.len(), 27);
    assert!(tools.iter().all(|t| t["function"]["strict"] == false));
}

#[test]
fn lints_the_github_corpus() {
    let output = tooldef(&["lint", GITHUB], None);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    let summary = lines.last().expect("a summary");
    assert!(
        summary.starts_with(
            "summary: 117 tools, 6 targets (mcp, chat, responses, anthropic, gemini, gemini-json): "
        ),
        "{summary}"
    );
    // The verdicts the diff-based lint gave before the report existed, to the tool (and for
    // `gemini-json`, every tool rewritten: objects closed, as for Anthropic); and the
    // two limits of Anthropic's strict mode the corpus reaches in one request (at most 20 strict
    // tools, 24 optional parameters): the tools past them are sent non-strict.
    assert!(
        summary
            .ends_with(": 6 accepted as is, 694 rewritten, 2 not strict, 0 rejected; 2 warnings"),
        "{summary}"
    );
    let warnings = &lines[lines.len() - 3..lines.len() - 1];
    assert!(
        warnings[0].contains("at most 20 strict tools"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[1].contains("at most 24 optional parameters"),
        "{}",
        warnings[1]
    );
    // Grouped by tool: a name, then one indented line per target.
    let names = corpus_names(GITHUB);
    assert_eq!(lines.len(), names.len() * 7 + 3);
    for (name, block) in names.iter().zip(lines.chunks(7)) {
        assert_eq!(block[0], name);
        for (target, line) in TARGETS.iter().zip(&block[1..]) {
            let verdict = line
                .strip_prefix(&format!("  {target:<11} "))
                .unwrap_or_else(|| panic!("{line}"));
            assert!(
                verdict == "accepted as is"
                    || verdict.starts_with("rewritten: ")
                    || verdict.starts_with("not strict: ")
                    || verdict.starts_with("accepted as is; note: "),
                "{verdict}"
            );
        }
    }
    // The counts add up.
    let counted = |what: &str| -> usize {
        let at = summary.find(what).unwrap_or_else(|| panic!("{summary}"));
        let number = summary[..at]
            .trim_end()
            .rsplit(' ')
            .next()
            .unwrap_or_default();
        number.parse().unwrap_or_else(|_| panic!("{summary}"))
    };
    let total = counted(" accepted as is") + counted(" rewritten") + counted(" not strict");
    assert_eq!(total, 117 * 6, "{summary}");
    assert!(counted(" not strict") > 0, "{summary}");
}

#[test]
fn lints_the_fastmcp_corpus() {
    let output = tooldef(&["lint", FASTMCP], None);
    // Every tool reaches every target (recursion is cut and described for Gemini).
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    let summary = text.lines().last().expect("a summary");
    assert!(
        summary.starts_with("summary: 27 tools, 6 targets"),
        "{summary}"
    );
    // The verdicts the diff-based lint gave before the report existed.
    assert!(
        summary.ends_with(": 0 accepted as is, 154 rewritten, 8 not strict, 0 rejected"),
        "{summary}"
    );
    // The recursive type, described for Gemini where it recurs.
    let lines: Vec<&str> = text.lines().collect();
    for tool in ["add_reaction", "set_gene_rule"] {
        let at = lines
            .iter()
            .position(|l| *l == tool)
            .unwrap_or_else(|| panic!("{tool}: {text}"));
        let gemini = lines[at + 5];
        assert!(
            gemini.starts_with("  gemini      rewritten: ")
                && gemini.contains("described 1 recursive type where it recurs"),
            "{tool}: {gemini}"
        );
    }
    assert!(text.contains("\n  chat        not strict: `/properties/coefficients`"));

    // Without Gemini nothing is rejected.
    let output = tooldef(&["lint", "--to", "chat,responses,anthropic", FASTMCP], None);
    assert_eq!(status(&output), 0, "{}", stdout(&output));
    let text = stdout(&output);
    assert_eq!(text.lines().count(), 27 * 4 + 1);
    let summary = text.lines().last().expect("a summary");
    assert!(summary.starts_with("summary: 27 tools, 3 targets (chat, responses, anthropic): "));
    assert!(summary.ends_with(", 8 not strict, 0 rejected"), "{summary}");

    // Strict on: the open maps are rejected.
    let output = tooldef(&["lint", "--to", "chat", "--strict", "on", FASTMCP], None);
    assert_eq!(status(&output), 1);
    let summary = stdout(&output)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    assert!(
        summary.ends_with("0 not strict, 4 rejected (chat 4)"),
        "{summary}"
    );
}

#[test]
fn reads_stdin() {
    let input = std::fs::read(GITHUB).expect("the corpus is readable");
    let from_file = tooldef(&["convert", "--to", "anthropic", GITHUB], None);
    for args in [
        &["convert", "--to", "anthropic"][..],
        &["convert", "--to", "anthropic", "-"][..],
    ] {
        let from_stdin = tooldef(args, Some(&input));
        assert_eq!(status(&from_stdin), 0, "{}", stderr(&from_stdin));
        assert_eq!(from_stdin.stdout, from_file.stdout);
        assert_eq!(json_array(&from_stdin).len(), 117);
    }
    let lint = tooldef(&["lint", "--to", "gemini"], Some(&input));
    assert_eq!(status(&lint), 0);
    assert!(
        stdout(&lint)
            .lines()
            .last()
            .unwrap_or_default()
            .starts_with("summary: 117 tools, 1 target (gemini)")
    );

    // An array of tools and a single tool are MCP tools too.
    let one = br#"{"name": "fs.read_file", "description": "Read a file.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}"#;
    let output = tooldef(&["convert", "--to", "responses"], Some(one));
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let tools = json_array(&output);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "fs_read_file");
    assert_eq!(tools[0]["strict"], true);
    assert!(
        stderr(&output).contains("fs.read_file: rewritten: renamed to `fs_read_file`"),
        "{}",
        stderr(&output)
    );
    let mut array = b"[".to_vec();
    array.extend_from_slice(one);
    array.push(b']');
    let output = tooldef(&["convert", "--to", "mcp"], Some(&array));
    assert_eq!(json_array(&output)[0]["name"], "fs.read_file");
}

#[test]
fn malformed_json_is_an_input_error_with_line_and_column() {
    let output = tooldef(
        &["convert", "--to", "chat"],
        Some(b"{\n  \"tools\": [,]\n}\n"),
    );
    assert_eq!(status(&output), 2);
    assert!(output.stdout.is_empty());
    assert_eq!(
        stderr(&output),
        "tooldef: <stdin>: malformed JSON at line 2, column 13: expected value\n"
    );

    let path = temp_path("truncated.json");
    std::fs::write(&path, "[{\"name\": \"a\"").expect("the file is written");
    let path_text = path.to_str().expect("a UTF-8 path");
    let output = tooldef(&["lint", path_text], None);
    assert_eq!(status(&output), 2);
    assert!(output.stdout.is_empty());
    let message = stderr(&output);
    assert!(
        message.starts_with(&format!(
            "tooldef: {path_text}: malformed JSON at line 1, column 13: "
        )),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1);

    for (input, expected) in [
        (
            &b""[..],
            "tooldef: <stdin>: empty input: expected MCP tools as JSON\n",
        ),
        (
            &b"\"tools\""[..],
            "tooldef: <stdin>: the input is not MCP tools: expected {\"tools\": [...]}, an array of tools or one tool, got a string\n",
        ),
        (
            &b"{\"tools\": {}}"[..],
            "tooldef: <stdin>: the input is not MCP tools: `tools` is not an array\n",
        ),
    ] {
        for command in ["convert", "lint"] {
            let output = tooldef(&[command, "--to", "chat"], Some(input));
            assert_eq!(status(&output), 2);
            assert_eq!(stderr(&output), expected);
            assert!(output.stdout.is_empty());
        }
    }

    // Nesting deeper than the parser allows is an error, not a crash.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let output = tooldef(&["convert", "--to", "chat"], Some(deep.as_bytes()));
    assert_eq!(status(&output), 2);
    assert!(stderr(&output).starts_with("tooldef: <stdin>: malformed JSON at line 1, column "));
}

#[test]
fn a_missing_file_is_an_input_error() {
    for command in ["convert", "lint"] {
        let output = tooldef(&[command, "--to", "chat", "/nonexistent/tools.json"], None);
        assert_eq!(status(&output), 2);
        assert!(output.stdout.is_empty());
        assert_eq!(
            stderr(&output),
            "tooldef: cannot read /nonexistent/tools.json: no such file\n"
        );
    }
}

#[test]
fn usage_errors_are_clap_s_with_status_2() {
    for args in [
        &["convert", "--to", "openai", GITHUB][..],
        &["convert", GITHUB][..],
        &["lint", "--to", "chat,claude", GITHUB][..],
        &["convert", "--to", "chat", "--strict", "maybe", GITHUB][..],
        &["list", "--to", "chat"][..],
        &["frobnicate"][..],
    ] {
        let output = tooldef(args, None);
        assert_eq!(status(&output), 2, "{args:?}");
        assert!(
            stderr(&output).starts_with("error: "),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn every_command_has_help() {
    for (args, expected) in [
        (
            &["--help"][..],
            &["convert", "lint", "list", "Examples:"][..],
        ),
        (
            &["convert", "--help"][..],
            &[
                "--to <TARGET>",
                "--strict <MODE>",
                "--lenient",
                "--names <FILE>",
                "[FILE]",
                "Examples:",
                "gemini",
            ][..],
        ),
        (
            &["lint", "--help"][..],
            &[
                "--to <TARGETS>",
                "comma-separated",
                "accepted as is",
                "Examples:",
            ][..],
        ),
        (
            &["list", "--help"][..],
            &[
                "--to <TARGET>",
                "--server-stderr <MODE>",
                "inherit",
                "discard",
                "--timeout",
                "-- <COMMAND>",
                "Examples:",
            ][..],
        ),
    ] {
        let output = tooldef(args, None);
        assert_eq!(status(&output), 0, "{args:?}");
        for text in expected {
            assert!(
                stdout(&output).contains(text),
                "{args:?} lacks {text}:\n{}",
                stdout(&output)
            );
        }
    }
    // `-h` is the short form: one line per option.
    let short = tooldef(&["convert", "-h"], None);
    assert_eq!(status(&short), 0);
    assert!(
        stdout(&short).lines().count()
            < stdout(&tooldef(&["convert", "--help"], None))
                .lines()
                .count()
    );
}

#[test]
fn names_are_written_to_a_file() {
    let input = br#"[
        {"name": "fs.read_file", "description": "Read.", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "fs/read_file", "description": "Read too.", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "2fa", "description": "Codes.", "inputSchema": {"type": "object", "properties": {}}}
    ]"#;
    let path = temp_path("names.json");
    let path_text = path.to_str().expect("a UTF-8 path");
    let output = tooldef(
        &["convert", "--to", "gemini", "--names", path_text],
        Some(input),
    );
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let names: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the names were written"))
            .expect("the names are JSON");
    assert_eq!(
        names,
        serde_json::json!({"fs_read_file": "fs.read_file", "fs_read_file_2": "fs/read_file", "_2fa": "2fa"})
    );
    let tools = json_array(&output);
    let wire: Vec<&str> = tools.iter().map(wire_name).collect();
    assert_eq!(wire, ["fs_read_file", "fs_read_file_2", "_2fa"]);

    // The whole corpus: one entry per tool.
    let output = tooldef(
        &["convert", "--to", "chat", "--names", path_text, GITHUB],
        None,
    );
    assert_eq!(status(&output), 0);
    let names: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("JSON");
    assert_eq!(names.as_object().map(|m| m.len()), Some(117));
    assert_eq!(names["get_me"], "get_me");

    // Not written when the conversion fails.
    std::fs::remove_file(&path).expect("removed");
    let output = tooldef(
        &[
            "convert", "--to", "chat", "--strict", "on", "--names", path_text, FASTMCP,
        ],
        None,
    );
    assert_eq!(status(&output), 1);
    assert!(!path.exists());
}

#[test]
fn lists_and_converts_the_example_server_s_tools() {
    let server = tooldef_tests::mcp_server_example();
    let server = server.to_str().expect("a UTF-8 path");
    let output = tooldef(&["list", "--to", "chat", "--", server], None);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let tools = json_array(&output);
    let names: Vec<&str> = tools.iter().map(wire_name).collect();
    assert_eq!(
        names,
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
    for tool in &tools {
        assert_eq!(tool["type"], "function");
        assert_eq!(tool["function"]["strict"], true, "{tool}");
        assert_eq!(tool["function"]["parameters"]["type"], "object");
        assert_eq!(
            tool["function"]["parameters"]["additionalProperties"],
            false
        );
    }
    let days = &tools[1]["function"]["parameters"]["properties"]["days"];
    assert_eq!(days["type"], serde_json::json!(["integer", "null"]));
    assert!(
        days["description"]
            .as_str()
            .is_some_and(|d| d.contains("Default: 3.")),
        "{days}"
    );
    let log = stderr(&output);
    assert!(
        log.contains("tooldef: connected to tooldef-showcase"),
        "{log}"
    );
    assert!(log.contains(" listed 9 tools"), "{log}");
    // Inherited by default: the server's own line shows.
    assert!(
        log.contains("mcp_server: serving 9 tools over stdio"),
        "{log}"
    );

    // Discarded on request; the test tools come with an argument after the command.
    let output = tooldef(
        &[
            "list",
            "--to",
            "gemini",
            "--server-stderr",
            "discard",
            "--",
            server,
            "--test-tools",
        ],
        None,
    );
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(json_array(&output).len(), 11);
    assert!(
        !stderr(&output).contains("mcp_server:"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_server_that_does_not_start_is_an_error() {
    let output = tooldef(&["list", "--to", "chat", "--", "/nonexistent/server"], None);
    assert_eq!(status(&output), 2);
    assert!(output.stdout.is_empty());
    assert_eq!(
        stderr(&output),
        "tooldef: cannot start `/nonexistent/server`: no such file\n"
    );

    // A program that is not an MCP server: it exits at once.
    let output = tooldef(&["list", "--to", "chat", "--", "true"], None);
    assert_eq!(status(&output), 2);
    assert!(output.stdout.is_empty());
    let last = stderr(&output)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    assert!(
        last.starts_with("tooldef: `true` did not start as an MCP server: "),
        "{last}"
    );

    // One that never answers.
    let output = tooldef(
        &[
            "list",
            "--to",
            "chat",
            "--timeout",
            "1",
            "--",
            "sleep",
            "30",
        ],
        None,
    );
    assert_eq!(status(&output), 2);
    let last = stderr(&output)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        last,
        "tooldef: `sleep 30` did not answer `initialize` within 1 s (--timeout)"
    );
}

#[test]
fn duplicate_names_are_rejected() {
    let input = br#"[
        {"name": "a", "description": "One.", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "a", "description": "Two.", "inputSchema": {"type": "object", "properties": {}}}
    ]"#;
    // Calls are routed by name, so the second tool of a name cannot be reached: rejected.
    let output = tooldef(&["convert", "--to", "chat"], Some(input));
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("is named `a` too"),
        "{}",
        stderr(&output)
    );
    let lenient = tooldef(&["convert", "--to", "chat", "--lenient"], Some(input));
    assert_eq!(status(&lenient), 0);
    let tools: serde_json::Value = serde_json::from_slice(&lenient.stdout).unwrap();
    assert_eq!(tools.as_array().unwrap().len(), 1);
    // Lint reports the clash as a warning of its own, after the tools.
    let lint = tooldef(&["lint", "--to", "chat"], Some(input));
    let lines: Vec<&str> = stdout(&lint).lines().collect();
    assert!(
        lines.len() >= 2
            && lines[lines.len() - 2].starts_with("warning: a: 2 tools have this name"),
        "{}",
        stdout(&lint)
    );
    assert!(
        lines.last().unwrap_or(&"").ends_with("; 1 warning"),
        "{}",
        stdout(&lint)
    );
}

#[test]
fn lint_verbose_lists_every_change_under_its_verdict() {
    let one = br#"{"name": "fs.read_file", "description": "Read a file.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"},
        "limit": {"type": "integer", "default": 100}}, "required": ["path"]}}"#;
    let plain = tooldef(&["lint", "--to", "chat"], Some(one));
    let verbose = tooldef(&["lint", "--to", "chat", "--verbose"], Some(one));
    assert_eq!(status(&verbose), 0, "{}", stderr(&verbose));
    let plain: Vec<&str> = stdout(&plain).lines().collect();
    let verbose: Vec<&str> = stdout(&verbose).lines().collect();
    // The same verdicts and summary, with the changes listed after the verdict they explain.
    let (changes, rest): (Vec<&str>, Vec<&str>) = verbose
        .iter()
        .partition(|l| l.starts_with(&format!("  {:<11}   - ", "")));
    assert_eq!(rest, plain);
    assert_eq!(verbose[0], "fs.read_file");
    assert!(
        verbose[1].starts_with("  chat        rewritten: "),
        "{verbose:#?}"
    );
    // Renamed, `default` moved into the description, `limit` made required and nullable,
    // `additionalProperties` added.
    assert!(changes.len() >= 4, "{verbose:#?}");
    assert!(verbose[2..2 + changes.len()] == changes[..], "{verbose:#?}");
}

/// `--upstream` completes a configuration file that names none (the file alone is refused with
/// a message that says how); a wrong `--upstream-api` is named.
#[test]
fn the_command_line_completes_a_gateway_configuration() {
    let dir = std::env::temp_dir().join(format!("tooldef-gateway-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("gateway.toml");
    std::fs::write(&file, "listen = \"127.0.0.1:0\"\nmax_rounds = 3\n").unwrap();
    let file = file.to_str().unwrap();

    let alone = tooldef(&["gateway", "--config", file], None);
    assert_ne!(status(&alone), 0);
    assert!(
        stderr(&alone).contains("no upstream") && stderr(&alone).contains("--upstream"),
        "{}",
        stderr(&alone)
    );

    let wrong = tooldef(
        &[
            "gateway",
            "--config",
            file,
            "--upstream",
            "http://127.0.0.1:9/v1",
            "--upstream-api",
            "chat,grpc",
        ],
        None,
    );
    assert_ne!(status(&wrong), 0);
    assert!(stderr(&wrong).contains("`grpc`"), "{}", stderr(&wrong));

    // Completed, it starts: it says where it listens, and stops on SIGTERM.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args([
            "gateway",
            "--config",
            file,
            "--upstream",
            "http://127.0.0.1:9/v1",
            "--upstream-api",
            "chat",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stderr.take().unwrap()));
    let listening = lines.find_map(|line| {
        line.ok()
            .filter(|line| line.contains("listening on http://"))
    });
    // SAFETY: a plain signal to the child this test started, still running.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let _ = child.wait();
    assert!(listening.is_some(), "the gateway did not start");
}
