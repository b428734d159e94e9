//! `tooldef lint`: one verdict per tool and target, and a summary.

use std::fmt::Write as _;
use std::process::ExitCode;

use serde_json::Value;
use tooldef::Target;
use tooldef::convert::{Conversion, ConvertOptions, Strictness, convert, read_tools};

use crate::args::LintArgs;
use crate::convert_cmd::{not_tools, reasons, tool_label};
use crate::failure::Failure;
use crate::{input, output, rewrites};

/// The ending of the library's notes on why a tool is not strict.
const NOT_STRICT: &str = "; rendered with strict: false";

/// How a target takes a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    AsIs,
    Rewritten,
    NotStrict,
    Rejected,
}

/// Runs `tooldef lint`.
pub fn run(args: &LintArgs) -> Result<ExitCode, Failure> {
    let input = input::read(args.input.file.as_deref())?;
    let tools = read_tools(&input.value).map_err(|err| not_tools(&input.label, &err))?;
    let targets = args.targets();
    let options = ConvertOptions {
        strict: args.strict.into(),
        lenient: true,
    };
    // The whole batch once per target, for the names (two tools may compete for one); then each
    // tool alone, for its own verdict and notes.
    let batches = targets
        .iter()
        .map(|&target| convert(&input.value, target, &options))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| not_tools(&input.label, &err))?;
    let duplicates = rewrites::duplicate_names(tools);

    let mut report = String::new();
    let mut counts = [0usize; 4];
    let mut rejected_by_target = vec![0usize; targets.len()];
    for (index, tool) in tools.iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str);
        let _ = writeln!(report, "{}", tool_label(name, index));
        for (t, (&target, batch)) in targets.iter().zip(&batches).enumerate() {
            let (status, line) = verdict(tool, target, batch, &options)
                .map_err(|message| Failure::input(format!("{}: {message}", input.label)))?;
            counts[status as usize] += 1;
            if status == Status::Rejected {
                rejected_by_target[t] += 1;
            }
            let _ = writeln!(report, "  {:<10} {line}", target.short_name());
        }
        if let Some(name) = name {
            let prefix = format!("{name}: ");
            for duplicate in duplicates.iter().filter_map(|d| d.strip_prefix(&prefix)) {
                let _ = writeln!(report, "  {duplicate}");
            }
        }
    }

    let rejected = counts[Status::Rejected as usize];
    let _ = write!(
        report,
        "summary: {} tool{}, {} target{} ({}): {} accepted as is, {} rewritten, {} not strict, {} rejected",
        tools.len(),
        plural(tools.len()),
        targets.len(),
        plural(targets.len()),
        targets
            .iter()
            .map(|t| t.short_name())
            .collect::<Vec<_>>()
            .join(", "),
        counts[Status::AsIs as usize],
        counts[Status::Rewritten as usize],
        counts[Status::NotStrict as usize],
        rejected,
    );
    if rejected > 0 {
        let by_target: Vec<String> = targets
            .iter()
            .zip(&rejected_by_target)
            .filter(|(_, n)| **n > 0)
            .map(|(t, n)| format!("{} {n}", t.short_name()))
            .collect();
        let _ = write!(report, " ({})", by_target.join(", "));
    }
    if !duplicates.is_empty() {
        let _ = write!(
            report,
            "; {} duplicate name{}",
            duplicates.len(),
            plural(duplicates.len())
        );
    }
    report.push('\n');
    output::stdout(&report)?;
    Ok(if rejected > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The verdict on `tool` for `target`, and its line.
fn verdict(
    tool: &Value,
    target: Target,
    batch: &Conversion,
    options: &ConvertOptions,
) -> Result<(Status, String), String> {
    let alone = convert(&Value::Array(vec![tool.clone()]), target, options)
        .map_err(|err| err.to_string())?;
    if let Some(rejected) = alone.rejected.first() {
        return Ok((
            Status::Rejected,
            format!("rejected: {}", reasons(rejected, options.strict).join("; ")),
        ));
    }
    let Some(converted) = alone.tools.first() else {
        return Err("the library returned neither the tool nor why it was rejected".to_owned());
    };

    let mut not_strict = Vec::new();
    let mut notes = Vec::new();
    for diagnostic in &alone.diagnostics {
        let message = diagnostic.message.as_str();
        if let Some(why) = message.strip_suffix(NOT_STRICT) {
            not_strict.push(why.to_owned());
        } else if !message.starts_with("renamed `") {
            notes.push(message.to_owned());
        }
    }
    // The batch's name: a tool alone is never renamed to avoid another's.
    let mut rewritten = Vec::new();
    let original = tool.get("name").and_then(Value::as_str).unwrap_or_default();
    let given = batch
        .names
        .target_name(original)
        .or_else(|| rewrites::converted_name(converted, target))
        .unwrap_or(original);
    if given != original {
        rewritten.push(format!("renamed to `{given}`"));
    }
    rewritten.extend(rewrites::describe(tool, converted, target));

    let strict_wanted = target.is_openai() && options.strict != Strictness::Off;
    let (status, mut line) = if strict_wanted && !rewrites::is_strict(converted, target) {
        let why = if not_strict.is_empty() {
            "the library gave no reason".to_owned()
        } else {
            not_strict.join("; ")
        };
        let mut line = format!("not strict: {why}");
        if !rewritten.is_empty() {
            let _ = write!(line, "; also rewritten: {}", rewritten.join("; "));
        }
        (Status::NotStrict, line)
    } else if !rewritten.is_empty() {
        (
            Status::Rewritten,
            format!("rewritten: {}", rewritten.join("; ")),
        )
    } else {
        (Status::AsIs, "accepted as is".to_owned())
    };
    for note in notes {
        let _ = write!(line, "; note: {note}");
    }
    Ok((status, line))
}
