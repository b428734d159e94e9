//! `tooldef convert`, and the conversion and printing that `tooldef list` shares with it.

use std::process::ExitCode;

use serde_json::Value;
use tooldef::Target;
use tooldef::convert::{Conversion, ConvertError, ConvertOptions, Converted, Rejected, convert};

use crate::args::{ConversionArgs, ConvertArgs};
use crate::failure::Failure;
use crate::summary::Summary;
use crate::{input, output};

/// Runs `tooldef convert`.
pub fn run(args: &ConvertArgs) -> Result<ExitCode, Failure> {
    let input = input::read(args.input.file.as_deref())?;
    emit(&input.value, &input.label, &args.conversion)
}

/// Converts `value` (MCP tools read from `label`) as `args` say: the tools as a pretty JSON array
/// on stdout, what each rendering changed (from its report) on stderr, the name map to `--names`.
pub fn emit(value: &Value, label: &str, args: &ConversionArgs) -> Result<ExitCode, Failure> {
    let conversion = converted(value, label, args)?;
    if let Some(path) = &args.names {
        output::json_file(path, &conversion.names.to_json())?;
    }
    output::stdout(&output::pretty(&Value::Array(conversion.into_json())))?;
    Ok(ExitCode::SUCCESS)
}

/// Converts `value` as `args` say, saying on stderr what was rejected, what each tool's
/// rendering changed, and what concerns the batch; fails when a tool is rejected and the
/// conversion is not lenient.
pub fn converted(value: &Value, label: &str, args: &ConversionArgs) -> Result<Conversion, Failure> {
    let target = args.target();
    let conversion = convert_all(value, label, args)?;
    for rejected in &conversion.rejected {
        output::stderr_line(&format!(
            "{}: rejected: {}",
            tool_label(rejected.name.as_deref(), rejected.index),
            rejected.reasons.join("; ")
        ));
    }
    if !args.lenient && !conversion.rejected.is_empty() {
        return Err(rejected_failure(&conversion.rejected, target));
    }
    for converted in &conversion.tools {
        report(converted);
    }
    for warning in &conversion.warnings {
        output::stderr_line(&format!("warning: {warning}"));
    }
    Ok(conversion)
}

/// Converts `value` (MCP tools read from `label`) for the target `args` say, saying nothing:
/// the rejected tools are in the conversion's `rejected`, whatever --lenient says.
pub fn convert_all(
    value: &Value,
    label: &str,
    args: &ConversionArgs,
) -> Result<Conversion, Failure> {
    // Always lenient underneath: without --lenient every rejected tool is named, not only the
    // first, and nothing is printed.
    let options = ConvertOptions {
        lenient: true,
        ..args.options()
    };
    convert(value, args.target(), &options).map_err(|err| not_tools(label, &err))
}

/// Says on stderr what the rendering of one tool changed (from its report), one line each,
/// prefixed by the tool's original name: what was rewritten, why it is not strict, what was
/// kept although the target may ignore it.
pub fn report(converted: &Converted) {
    let name = &converted.original_name;
    let summary = Summary::of(&converted.rendering.report);
    if let Some(what) = summary.rewrites() {
        output::stderr_line(&format!("{name}: rewritten: {what}"));
    }
    for why in &summary.not_strict {
        output::stderr_line(&format!("{name}: not strict: {why}"));
    }
    for kept in &summary.kept {
        output::stderr_line(&format!("{name}: note: {kept}"));
    }
}

/// The failure for input that is not MCP tools.
pub fn not_tools(label: &str, err: &ConvertError) -> Failure {
    Failure::input(format!("{label}: {err}"))
}

/// `name` or, for a tool without one, `tool #index`.
pub fn tool_label(name: Option<&str>, index: usize) -> String {
    match name {
        Some(name) => name.to_owned(),
        None => format!("tool #{index}"),
    }
}

fn rejected_failure(rejected: &[Rejected], target: Target) -> Failure {
    match rejected {
        [one] => Failure::rejected(format!(
            "{} cannot be converted for {target}: {} (--lenient skips it)",
            tool_label(one.name.as_deref(), one.index),
            one.reasons.join("; ")
        )),
        many => Failure::rejected(format!(
            "{} tools cannot be converted for {target}: {} (see above; --lenient skips them)",
            many.len(),
            many.iter()
                .map(|r| tool_label(r.name.as_deref(), r.index))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
