//! Tool names a target accepts, and the way back: `fs.read_file` is `fs_read_file` to OpenAI,
//! and a call to `fs_read_file` goes to `fs.read_file`.
//!
//! ```
//! use tooldef::Target;
//! use tooldef::names::{NameMap, closest, sanitize};
//!
//! assert_eq!(sanitize("fs.read_file", Target::ChatCompletions), "fs_read_file");
//! assert_eq!(sanitize("fs.read_file", Target::Mcp), "fs.read_file"); // MCP takes it
//!
//! let mut names = NameMap::default();
//! assert_eq!(names.assign("fs.read_file", Target::ChatCompletions), "fs_read_file");
//! assert_eq!(names.assign("fs/read_file", Target::ChatCompletions), "fs_read_file_2");
//! assert_eq!(names.original("fs_read_file_2"), Some("fs/read_file"));
//!
//! assert_eq!(closest("read-file", ["read_file", "write_file", "list"]), ["read_file"]);
//! ```

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::Target;
use crate::target::MAX_NAME;

/// Target names and the original names they stand for, in both directions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameMap {
    to_original: HashMap<String, String>,
    to_target: HashMap<String, String>,
}

impl NameMap {
    /// The original name behind a name the model called.
    pub fn original(&self, target_name: &str) -> Option<&str> {
        self.to_original.get(target_name).map(String::as_str)
    }

    /// The name a tool was given for the target.
    pub fn target_name(&self, original: &str) -> Option<&str> {
        self.to_target.get(original).map(String::as_str)
    }

    /// Every pair, as a JSON object from target name to original name.
    pub fn to_json(&self) -> Value {
        let mut pairs: Vec<(&String, &String)> = self.to_original.iter().collect();
        pairs.sort();
        Value::Object(
            pairs
                .into_iter()
                .map(|(t, o)| (t.clone(), Value::String(o.clone())))
                .collect::<Map<String, Value>>(),
        )
    }

    /// A name `target` accepts for `original`, distinct from every name given so far; it is
    /// given to `original` from now on.
    pub fn assign(&mut self, original: &str, target: Target) -> String {
        let name = self.candidate(original, target);
        self.insert(original, &name);
        name
    }

    /// The name [`assign`](Self::assign) would give `original`, without giving it.
    pub(crate) fn candidate(&self, original: &str, target: Target) -> String {
        if let Some(given) = self.to_target.get(original) {
            return given.clone();
        }
        let base = sanitize(original, target);
        let mut candidate = base.clone();
        let mut n = 2;
        while self.to_original.contains_key(&candidate) {
            let suffix = format!("_{n}");
            candidate = format!("{}{suffix}", truncate(&base, MAX_NAME - suffix.len()));
            n += 1;
        }
        candidate
    }

    /// Records that `original` is `name` to the target.
    pub(crate) fn insert(&mut self, original: &str, name: &str) {
        self.to_original
            .insert(name.to_owned(), original.to_owned());
        self.to_target.insert(original.to_owned(), name.to_owned());
    }
}

/// `fs.read_file` → `fs_read_file`; a name that starts with a digit gets `_` in front (Gemini);
/// an over-long name is cut and given a short hash of the original, so that two long names that
/// share a beginning stay apart. A name the target accepts is kept as it is.
pub fn sanitize(original: &str, target: Target) -> String {
    if target.accepts_name(original) {
        return original.to_owned();
    }
    let mut name: String = original
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    if name.len() > MAX_NAME {
        let hash = format!("{:08x}", fnv1a(original.as_bytes()) as u32);
        name = format!("{}_{hash}", truncate(&name, MAX_NAME - 9));
    }
    name
}

/// Up to three of `names` close to `wanted`, closest first: a few edits away once case and
/// separators (`-`, `.`, `/`, space, `_`) are ignored, or containing it (or contained in it).
/// What "did you mean" suggests, wherever a tool is not found.
pub fn closest<'n>(wanted: &str, names: impl IntoIterator<Item = &'n str>) -> Vec<&'n str> {
    let normalise = |s: &str| s.to_lowercase().replace(['-', '.', ' ', '/'], "_");
    let wanted = normalise(wanted);
    let limit = (wanted.chars().count() / 3).max(2);
    let mut scored: Vec<((usize, usize), &str)> = names
        .into_iter()
        .filter_map(|name| {
            let normal = normalise(name);
            let distance = strsim::levenshtein(&wanted, &normal);
            let contains =
                !wanted.is_empty() && (normal.contains(&wanted) || wanted.contains(&normal));
            // A name containing the one wanted scores as if close enough; ties go to edits.
            let score = if contains {
                distance.min(limit)
            } else {
                distance
            };
            (score <= limit).then_some(((score, distance), name))
        })
        .collect();
    scored.sort_by_key(|&(score, _)| score);
    let mut out: Vec<&str> = Vec::new();
    for (_, name) in scored {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out.truncate(3);
    out
}

fn truncate(s: &str, max: usize) -> &str {
    // ASCII only by now, so any byte index is a character boundary.
    &s[..s.len().min(max)]
}

/// FNV-1a: a small, stable hash (the same name gets the same suffix in every run and version).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_by_edits_case_separators_or_containment() {
        let names = [
            "git_log",
            "git_show",
            "git_status",
            "get-sum",
            "get-env",
            "echo",
        ];
        assert_eq!(closest("git-lgo", names), ["git_log"]);
        assert_eq!(closest("GIT_SHOW", names), ["git_show"]);
        assert_eq!(closest("sum", names), ["get-sum"]);
        assert_eq!(closest("get", names), ["get-sum", "get-env"]);
        assert!(closest("translate", names).is_empty());
        assert_eq!(closest("fs.readfile", ["fs_read_file"]), ["fs_read_file"]);
    }

    #[test]
    fn names_are_sanitised_distinct_and_reversible() {
        let mut names = NameMap::default();
        assert_eq!(
            names.assign("fs.read_file", Target::Responses),
            "fs_read_file"
        );
        assert_eq!(
            names.assign("fs/read_file", Target::Responses),
            "fs_read_file_2"
        );
        assert_eq!(names.assign("2fa", Target::Gemini), "_2fa");
        let long = "a".repeat(100);
        let cut = names.assign(&long, Target::Anthropic);
        assert_eq!(cut.len(), 64);
        assert_eq!(names.original(&cut), Some(long.as_str()));
        assert_eq!(names.original("fs_read_file_2"), Some("fs/read_file"));
        assert_eq!(
            names.assign("fs.read_file", Target::Mcp),
            "fs_read_file",
            "already assigned"
        );
        let mut mcp = NameMap::default();
        assert_eq!(mcp.assign("fs.read_file", Target::Mcp), "fs.read_file");
        assert_eq!(mcp.assign("2fa", Target::ChatCompletions), "2fa");
    }
}
