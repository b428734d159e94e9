//! `tooldef convert`, and the conversion and printing that `tooldef list` shares with it.

use std::process::ExitCode;

use serde_json::Value;
use tooldef::Target;
use tooldef::convert::{ConvertError, ConvertOptions, Rejected, Strictness, convert, read_tools};

use crate::args::{ConversionArgs, ConvertArgs};
use crate::failure::Failure;
use crate::{input, output, rewrites};

/// Runs `tooldef convert`.
pub fn run(args: &ConvertArgs) -> Result<ExitCode, Failure> {
    let input = input::read(args.input.file.as_deref())?;
    emit(&input.value, &input.label, &args.conversion)
}

/// Converts `value` (MCP tools read from `label`) as `args` say: the tools as a pretty JSON array
/// on stdout, diagnostics on stderr, the name map to `--names`.
pub fn emit(value: &Value, label: &str, args: &ConversionArgs) -> Result<ExitCode, Failure> {
    let target = Target::from(args.to);
    // Always lenient underneath: without --lenient every rejected tool is named, not only the
    // first, and nothing is printed.
    let options = ConvertOptions {
        lenient: true,
        ..args.options()
    };
    let originals = read_tools(value).map_err(|err| not_tools(label, &err))?;
    let conversion = convert(value, target, &options).map_err(|err| not_tools(label, &err))?;

    for rejected in &conversion.rejected {
        output::stderr_line(&format!(
            "{}: rejected: {}",
            tool_label(rejected.name.as_deref(), rejected.index),
            reasons(rejected, options.strict).join("; ")
        ));
    }
    if !args.lenient && !conversion.rejected.is_empty() {
        return Err(rejected_failure(
            &conversion.rejected,
            target,
            options.strict,
        ));
    }

    let accepted = originals
        .iter()
        .enumerate()
        .filter(|(index, _)| !conversion.rejected.iter().any(|r| r.index == *index))
        .map(|(_, tool)| tool);
    // Per tool, in input order: what was rewritten, then the library's diagnostics, which come
    // grouped by tool in input order.
    let mut diagnostics = conversion.diagnostics.iter().peekable();
    for (original, converted) in accepted.zip(&conversion.tools) {
        let name = original
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(what) = rewrites::describe(original, converted, target) {
            output::stderr_line(&format!("{name}: rewritten: {what}"));
        }
        while let Some(diagnostic) = diagnostics.next_if(|d| d.tool == name) {
            output::stderr_line(&format!("{name}: {}", diagnostic.message));
        }
    }
    for diagnostic in diagnostics {
        output::stderr_line(&format!("{}: {}", diagnostic.tool, diagnostic.message));
    }
    for duplicate in rewrites::duplicate_names(originals) {
        output::stderr_line(&duplicate);
    }

    if let Some(path) = &args.names {
        output::json_file(path, &conversion.names.to_json())?;
    }
    output::stdout(&output::pretty(&Value::Array(conversion.tools)))?;
    Ok(ExitCode::SUCCESS)
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

/// Why a tool was rejected. With `--strict on`, a tool that cannot be strict is rejected with
/// every note of its rendering; only the notes on strictness are reasons, and they lose their
/// "rendered with strict: false" ending, since it was not rendered at all.
pub fn reasons(rejected: &Rejected, strict: Strictness) -> Vec<String> {
    const NOT_STRICT: &str = "; rendered with strict: false";
    let strict_reasons: Vec<String> = rejected
        .reasons
        .iter()
        .filter_map(|r| r.strip_suffix(NOT_STRICT))
        .map(str::to_owned)
        .collect();
    if strict == Strictness::On && !strict_reasons.is_empty() {
        strict_reasons
    } else {
        rejected.reasons.clone()
    }
}

fn rejected_failure(rejected: &[Rejected], target: Target, strict: Strictness) -> Failure {
    match rejected {
        [one] => Failure::rejected(format!(
            "{} cannot be converted for {target}: {} (--lenient skips it)",
            tool_label(one.name.as_deref(), one.index),
            reasons(one, strict).join("; ")
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
