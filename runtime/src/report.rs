//! What rendering a tool for a target changed.
//!
//! Every transform records each change it makes as it makes it, with the JSON Pointer of the
//! node it changed, the way serde_derive's `Ctxt` collects errors: nothing is worked out
//! afterwards by comparing schemas. A [`Rendering`](crate::targets::Rendering) is the target's
//! tool plus its [`Report`]. `tooldef lint` and `tooldef convert` print the report; calls to a
//! converted foreign tool are restored from it to the shape the original server expects (see
//! [`Converted::restore_arguments`](crate::convert::Converted::restore_arguments)).
//!
//! ```
//! use tooldef::report::{ChangeKind, Place};
//! use tooldef::{Target, Tool, tool};
//!
//! /// Count up to a number.
//! #[tool]
//! fn count(#[arg(default = 3)] to: u32) -> u32 {
//!     to
//! }
//!
//! // OpenAI strict mode has no `default` and wants every property required: `to` is made
//! // required and nullable (a `null` gives the default), and the default is said in words.
//! let rendering = Count.definition().render(Target::ChatCompletions).unwrap();
//! for change in rendering.report.changes() {
//!     println!("{change}"); // e.g. "`/properties/to`: `default` moved into the description: …"
//! }
//! let changes = rendering.report.changes();
//! assert!(changes.iter().any(|change| {
//!     matches!(&change.kind, ChangeKind::MadeRequired { property, nullable: true, .. } if property == "to")
//! }));
//! assert!(changes.iter().any(|change| {
//!     change.place == Place::Input
//!         && change.pointer == "/properties/to"
//!         && matches!(&change.kind, ChangeKind::Described { sentence, .. } if sentence == "Default: 3.")
//! }));
//! assert_eq!(rendering.report.not_strict().count(), 0);
//! ```

use std::fmt;

/// Which part of a tool a change is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// The tool itself: its name or its description.
    Tool,
    /// Its input schema (the arguments the model sends).
    Input,
    /// Its output schema (MCP `outputSchema`).
    Output,
}

/// One change a rendering made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The part of the tool changed.
    pub place: Place,
    /// Where, as a JSON Pointer into the rendered schema of `place` (`""` is its root, and
    /// always `""` for [`Place::Tool`]).
    pub pointer: String,
    /// What was done.
    pub kind: ChangeKind,
}

/// What a rendering did at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeKind {
    /// Keywords the target cannot carry were removed and said in the description instead.
    Described {
        /// The keywords, as they were spelled (`minimum`, `maximum`).
        keywords: Vec<String>,
        /// The sentence added to the description (`Must be between 1 and 14.`).
        sentence: String,
    },
    /// A keyword was kept and also said in the description (MCP keeps `default` and says it).
    Said {
        /// The keyword.
        keyword: String,
        /// The sentence added to the description.
        sentence: String,
    },
    /// A keyword was removed without being said in words.
    Removed {
        /// The keyword.
        keyword: String,
        /// Why that loses nothing a model needs, or why it had to go.
        why: String,
    },
    /// A keyword was replaced by an equivalent the target takes.
    Rewritten {
        /// What was there (`oneOf`, `const`, `anyOf [T, null]`).
        from: String,
        /// What is there now (`anyOf`, `enum`, `nullable`).
        to: String,
    },
    /// A keyword was added.
    Added {
        /// The keyword.
        keyword: String,
        /// Why.
        why: String,
    },
    /// An optional property was made required, as OpenAI strict mode requires of every one.
    MadeRequired {
        /// The property, a member of the object at the pointer.
        property: String,
        /// Whether its schema was made to accept `null` for it (it did not before): a `null`
        /// the model sends for it then means "left out", and is removed before a call reaches
        /// the tool.
        nullable: bool,
    },
    /// A `$ref` was replaced by the schema it points at.
    Inlined {
        /// The reference (`#/$defs/Point`).
        reference: String,
    },
    /// A type that contains itself was written out as far as it goes, and described in words
    /// where it recurs (for a target without `$ref`).
    RecursionCut {
        /// The reference that points back at an enclosing type.
        reference: String,
    },
    /// The tool was given another name, because the target refuses its own.
    Renamed {
        /// Its original name.
        from: String,
        /// The name the target sees.
        to: String,
    },
    /// The tool's description was shortened to the target's limit, at a sentence or paragraph
    /// boundary.
    DescriptionShortened {
        /// Its length before, in characters.
        from_chars: usize,
        /// Its length after, in characters.
        to_chars: usize,
        /// The target's limit, in characters.
        limit: usize,
    },
    /// The tool is not strict for this target (OpenAI), because of what is at the pointer.
    NotStrict {
        /// Why.
        why: String,
    },
    /// Something was kept although the target may ignore or refuse it.
    Kept {
        /// The keyword.
        keyword: String,
        /// Why it was kept, and what the target may do with it.
        why: String,
    },
}

/// Everything a rendering changed, in the order the transforms made the changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    changes: Vec<Change>,
}

impl Report {
    /// Every change, in the order made.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Whether the rendering changed nothing.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The changes that say why the tool is not strict.
    pub fn not_strict(&self) -> impl Iterator<Item = &Change> {
        self.changes
            .iter()
            .filter(|c| matches!(c.kind, ChangeKind::NotStrict { .. }))
    }

    /// The changes other than the reasons for not being strict.
    pub fn rewrites(&self) -> impl Iterator<Item = &Change> {
        self.changes
            .iter()
            .filter(|c| !matches!(c.kind, ChangeKind::NotStrict { .. }))
    }

    pub(crate) fn push(&mut self, change: Change) {
        self.changes.push(change);
    }

    pub(crate) fn extend(&mut self, changes: impl IntoIterator<Item = Change>) {
        self.changes.extend(changes);
    }

    /// A report that starts with `changes`.
    pub(crate) fn from_changes(changes: Vec<Change>) -> Report {
        Report { changes }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Place::Tool => "the tool",
            Place::Input => "the input schema",
            Place::Output => "the output schema",
        })
    }
}

/// `a`, `a` and `b`, `a`, `b` and `c`, each in backticks.
fn quoted_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|k| format!("`{k}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChangeKind::Described { keywords, sentence } => write!(
                f,
                "{} moved into the description: \"{sentence}\"",
                quoted_list(keywords)
            ),
            ChangeKind::Said { keyword, sentence } => {
                write!(
                    f,
                    "`{keyword}` kept and said in the description: \"{sentence}\""
                )
            }
            ChangeKind::Removed { keyword, why } => write!(f, "`{keyword}` removed: {why}"),
            ChangeKind::Rewritten { from, to } => write!(f, "{from} rewritten as {to}"),
            ChangeKind::Added { keyword, why } => write!(f, "`{keyword}` added: {why}"),
            ChangeKind::MadeRequired {
                property,
                nullable: true,
            } => write!(
                f,
                "optional property `{property}` made required and nullable (a `null` for it is \
                 removed before the call)"
            ),
            ChangeKind::MadeRequired {
                property,
                nullable: false,
            } => write!(
                f,
                "optional property `{property}` made required (it already accepted `null`)"
            ),
            ChangeKind::Inlined { reference } => write!(f, "`$ref` to `{reference}` inlined"),
            ChangeKind::RecursionCut { reference } => write!(
                f,
                "the recursive type at `{reference}` written out as far as it goes and described \
                 in words beyond"
            ),
            ChangeKind::Renamed { from, to } => {
                write!(
                    f,
                    "renamed `{from}` to `{to}`: the target does not accept the original"
                )
            }
            ChangeKind::DescriptionShortened {
                from_chars,
                to_chars,
                limit,
            } => write!(
                f,
                "description shortened from {from_chars} to {to_chars} characters (the limit is \
                 {limit}); the MCP rendering keeps the whole text"
            ),
            ChangeKind::NotStrict { why } => write!(f, "not strict: {why}"),
            ChangeKind::Kept { keyword, why } => write!(f, "`{keyword}` kept: {why}"),
        }
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.place, self.pointer.as_str()) {
            (Place::Tool, _) => write!(f, "{}", self.kind),
            (Place::Input, "") => write!(f, "the root: {}", self.kind),
            (Place::Input, pointer) => write!(f, "`{pointer}`: {}", self.kind),
            (Place::Output, "") => write!(f, "output schema, the root: {}", self.kind),
            (Place::Output, pointer) => write!(f, "output schema `{pointer}`: {}", self.kind),
        }
    }
}

/// Collects the changes one transform makes, with the pointer of the node it is visiting.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recorder {
    /// The JSON Pointer of the node being visited.
    pub(crate) pointer: String,
    changes: Vec<Change>,
    /// Nodes the transform moved, `(from, to)`: changes recorded earlier about what is now
    /// elsewhere follow it, so every pointer names a node of the final schema.
    moves: Vec<(String, String)>,
}

impl Recorder {
    /// Records `kind` at the node being visited.
    pub(crate) fn record(&mut self, kind: ChangeKind) {
        self.changes.push(Change {
            place: Place::Input,
            pointer: self.pointer.clone(),
            kind,
        });
    }

    /// Records `kind` at `pointer` (for changes found away from the node being visited).
    pub(crate) fn record_at(&mut self, pointer: String, kind: ChangeKind) {
        self.changes.push(Change {
            place: Place::Input,
            pointer,
            kind,
        });
    }

    /// Records that the node at `from` (and everything under it) is now at `to`, and moves what
    /// was recorded about it.
    pub(crate) fn moved(&mut self, from: String, to: String) {
        rebase(&mut self.changes, &from, &to);
        self.moves.push((from, to));
    }

    /// The moves recorded so far; the list is left empty.
    pub(crate) fn take_moves(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.moves)
    }

    /// The changes recorded so far, for `place`; the recorder is left empty.
    pub(crate) fn take(&mut self, place: Place) -> Vec<Change> {
        let mut changes = std::mem::take(&mut self.changes);
        for change in &mut changes {
            change.place = place;
        }
        changes
    }

    /// The changes recorded so far (tests).
    #[cfg(test)]
    pub(crate) fn changes(&self) -> &[Change] {
        &self.changes
    }
}

/// Moves the pointers of `changes` that name `from` or a node under it to `to`.
pub(crate) fn rebase(changes: &mut [Change], from: &str, to: &str) {
    for change in changes {
        let rest = match change.pointer.strip_prefix(from) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
            _ => continue,
        };
        change.pointer = format!("{to}{rest}");
    }
}
