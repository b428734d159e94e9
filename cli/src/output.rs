//! Writing to stdout, stderr and files without panicking on a closed pipe.

use std::io::Write;
use std::path::Path;

use crate::failure::Failure;
use crate::input::io_reason;

/// Writes `text` to stdout. A closed pipe (`tooldef … | head`) is not an error: the reader has
/// what it wanted.
pub fn stdout(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(Failure::input(format!(
            "cannot write to stdout: {}",
            io_reason(&err)
        ))),
    }
}

/// Writes one line to stderr; a failure to write it is ignored (there is nowhere to report it).
pub fn stderr_line(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Pretty JSON with a final newline.
pub fn pretty(value: &serde_json::Value) -> String {
    // Serialising a `Value` to a string cannot fail: its map keys are strings.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes `value` as pretty JSON to the file at `path`.
pub fn json_file(path: &Path, value: &serde_json::Value) -> Result<(), Failure> {
    std::fs::write(path, pretty(value)).map_err(|err| {
        Failure::input(format!(
            "cannot write {}: {}",
            path.display(),
            io_reason(&err)
        ))
    })
}
