//! `tooldef lint`: one verdict per tool and target, and a summary.

use std::fmt::Write as _;
use std::process::ExitCode;

use serde_json::Value;
use tooldef::Target;
use tooldef::convert::{Conversion, ConvertOptions, Strictness, convert, read_tools};

use crate::args::LintArgs;
use crate::convert_cmd::{not_tools, tool_label};
use crate::failure::Failure;
use crate::summary::Summary;
use crate::{input, output};

/// The width of the target column: the longest short name (`gemini-json`).
const COLUMN: usize = 11;

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
        ..ConvertOptions::default()
    };
    // The whole batch once per target: each tool's rendering and report, under the name it
    // gets beside the others.
    let batches = targets
        .iter()
        .map(|&target| convert(&input.value, target, &options))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| not_tools(&input.label, &err))?;

    let mut report = String::new();
    let mut counts = [0usize; 4];
    let mut rejected_by_target = vec![0usize; targets.len()];
    for (index, tool) in tools.iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str);
        let _ = writeln!(report, "{}", tool_label(name, index));
        for (t, (&target, batch)) in targets.iter().zip(&batches).enumerate() {
            let (status, line) = verdict(index, target, batch, &options);
            counts[status as usize] += 1;
            if status == Status::Rejected {
                rejected_by_target[t] += 1;
            }
            let _ = writeln!(report, "  {:<COLUMN$} {line}", target.short_name());
            if args.verbose
                && let Some(converted) = batch.tools.iter().find(|c| c.index == index)
            {
                for change in converted.rendering.report.changes() {
                    let _ = writeln!(report, "  {:<COLUMN$}   - {change}", "");
                }
            }
        }
    }
    // What concerns the batch rather than one tool: shared names, too many tools, no
    // descriptions (said once, not once per target).
    let mut notes: Vec<String> = Vec::new();
    for batch in &batches {
        for warning in &batch.warnings {
            let line = warning.to_string();
            if !notes.contains(&line) {
                notes.push(line);
            }
        }
    }
    for note in &notes {
        let _ = writeln!(report, "warning: {note}");
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
    if !notes.is_empty() {
        let _ = write!(report, "; {} warning{}", notes.len(), plural(notes.len()));
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

/// The verdict on the tool at `index` for `target`, and its line, from its rendering's report.
fn verdict(
    index: usize,
    target: Target,
    batch: &Conversion,
    options: &ConvertOptions,
) -> (Status, String) {
    if let Some(rejected) = batch.rejected.iter().find(|r| r.index == index) {
        return (
            Status::Rejected,
            format!("rejected: {}", rejected.reasons.join("; ")),
        );
    }
    let Some(converted) = batch.tools.iter().find(|c| c.index == index) else {
        return (
            Status::Rejected,
            "rejected: the library returned neither the tool nor why it was rejected".to_owned(),
        );
    };
    let summary = Summary::of(&converted.rendering.report);
    let rewrites = summary.rewrites();
    let strict_wanted = target.is_openai() && options.strict != Strictness::Off;
    let (status, mut line) = if strict_wanted && !converted.strict() {
        let mut line = format!("not strict: {}", summary.not_strict.join("; "));
        if let Some(rewrites) = &rewrites {
            let _ = write!(line, "; also rewritten: {rewrites}");
        }
        (Status::NotStrict, line)
    } else if let Some(rewrites) = rewrites {
        (Status::Rewritten, format!("rewritten: {rewrites}"))
    } else {
        (Status::AsIs, "accepted as is".to_owned())
    };
    for kept in &summary.kept {
        let _ = write!(line, "; note: {kept}");
    }
    (status, line)
}
