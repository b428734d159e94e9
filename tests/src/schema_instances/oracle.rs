//! What must happen to a call, and whether it did. An instance generated from the schema a
//! target shows is judged against the full constraints, the MCP rendering's `inputSchema`,
//! after removing the `null`s of the properties optional there (tooldef reads them as left out):
//!
//! - valid for both (and within the ranges of Rust's number types, which no rendering states:
//!   [`super::ranges`]): the call must be accepted and the function must get what the model
//!   meant ([`super::meaning`]);
//! - valid for the shown schema but breaking a rule the target could only describe in words:
//!   the call must be refused with `InvalidArguments` whose problems name the rule
//!   ([`super::messages`]);
//! - invalid for the shown schema (a mutation) and for the full constraints: likewise refused;
//! - invalid for the shown schema only (a strict target's `null`-able property left out, which
//!   the full constraints allow): either way, but if accepted, with its meaning.

use serde_json::Value;
use tooldef::ArgumentProblem;

use super::meaning;
use super::messages::{self, Expected};
use super::nulls::optional_nulls_removed;
use super::ranges;

/// The categories of findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// The generator made an instance its own schema refuses: a bug of the test, not of tooldef.
    Generator,
    /// A call valid for the schema shown and the full constraints was refused.
    RefusedValid,
    /// A call was accepted, but the function got something else than the model meant.
    ChangedMeaning,
    /// A call that breaks the constraints was accepted.
    AcceptedInvalid,
    /// A refused call's problems do not tell the model what to fix.
    PoorMessage,
    /// A call ended another way (a panic, an error of the tool set's own).
    Crashed,
    /// An instance of the MCP schema is invalid for a target's schema: that rendering is
    /// stricter than the canonical schema.
    StricterRendering,
    /// A schema shown to the model says something wrong (a widened default, say).
    Schema,
}

impl Category {
    /// The short name printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            Category::Generator => "generator-bug",
            Category::RefusedValid => "refused-valid",
            Category::ChangedMeaning => "changed-meaning",
            Category::AcceptedInvalid => "accepted-invalid",
            Category::PoorMessage => "poor-message",
            Category::Crashed => "crashed",
            Category::StricterRendering => "stricter-rendering",
            Category::Schema => "schema",
        }
    }
}

/// One finding: its category, a signature shared by findings of the same cause (what is
/// grouped on), and the details of this one.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The category.
    pub category: Category,
    /// What findings of the same cause share.
    pub signature: String,
    /// This finding in full.
    pub detail: String,
}

/// What a call must do.
#[derive(Debug, Clone)]
pub enum Expectation {
    /// Be accepted, and reach the function as `meant` (the instance with its optional `null`s
    /// removed).
    Accept {
        /// What the model meant.
        meant: Value,
    },
    /// Be refused, with problems matching `expected`.
    Refuse {
        /// The oracle's errors.
        expected: Vec<Expected>,
    },
    /// Either; if accepted, with this meaning.
    Either {
        /// What the model meant.
        meant: Value,
    },
}

/// How a call ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The function ran and echoed what it got.
    Accepted(Value),
    /// `ToolError::InvalidArguments`.
    Refused(Vec<ArgumentProblem>),
    /// Any other error, in words.
    Other(String),
}

/// The full constraints of one tool.
pub struct Constraints<'a> {
    /// The canonical input schema (defaults, `format: float`).
    pub canonical: &'a Value,
    /// The MCP rendering's `inputSchema`.
    pub full: &'a Value,
    /// Its validator.
    pub full_validator: &'a jsonschema::Validator,
    /// Whether the canonical schema has number types whose ranges no rendering states
    /// ([`ranges::has_unstated_ranges`]).
    pub unstated_ranges: bool,
}

impl Constraints<'_> {
    /// What a call with `instance` must do; `shown_valid` says whether the instance is valid
    /// for the schema the target showed.
    pub fn expectation(&self, instance: &Value, shown_valid: bool) -> Expectation {
        let meant = if instance.is_object() {
            optional_nulls_removed(self.full, instance, self.full)
        } else {
            instance.clone()
        };
        // tooldef reads `null` (or nothing) as `{}` for the arguments as a whole.
        let judged = if meant.is_null() {
            serde_json::json!({})
        } else {
            meant.clone()
        };
        let ranges = if self.unstated_ranges {
            ranges::range_errors(self.canonical, &judged)
        } else {
            Vec::new()
        };
        if self.full_validator.is_valid(&judged) && ranges.is_empty() {
            if shown_valid {
                Expectation::Accept { meant: judged }
            } else {
                Expectation::Either { meant: judged }
            }
        } else {
            let mut expected = messages::expected_errors(self.full_validator, &judged);
            expected.extend(ranges);
            Expectation::Refuse { expected }
        }
    }

    /// Whether `outcome` is what `expectation` asks; the finding when not.
    pub fn judge(&self, expectation: &Expectation, outcome: &Outcome) -> Result<(), Finding> {
        match (expectation, outcome) {
            (
                Expectation::Accept { meant } | Expectation::Either { meant },
                Outcome::Accepted(got),
            ) => meaning::compare(self.canonical, meant, got).map_err(|m| Finding {
                category: Category::ChangedMeaning,
                signature: format!(
                    "{} ({} sent, {} received)",
                    m.why,
                    m.meant.as_ref().map_or("nothing", super::node::json_type),
                    m.got.as_ref().map_or("nothing", super::node::json_type)
                ),
                detail: m.to_string(),
            }),
            (Expectation::Accept { .. }, Outcome::Refused(problems)) => Err(Finding {
                category: Category::RefusedValid,
                signature: refusal_signature(problems.first()),
                detail: problems_text(problems),
            }),
            (Expectation::Either { .. }, Outcome::Refused(_)) => Ok(()),
            (Expectation::Refuse { expected }, Outcome::Accepted(got)) => Err(Finding {
                category: Category::AcceptedInvalid,
                signature: mask(&expected.first().map(|e| e.text.clone()).unwrap_or_default()),
                detail: format!(
                    "accepted although {}; the function got {}",
                    expected
                        .first()
                        .map(|e| format!("at `{}`: {}", e.pointer, e.text))
                        .unwrap_or_default(),
                    shorten(&got.to_string(), 300)
                ),
            }),
            (Expectation::Refuse { expected }, Outcome::Refused(problems)) => {
                messages::judge(problems, expected).map_err(|poor| Finding {
                    // A problem where the schema allows the value is a refusal the schema does
                    // not explain, whatever else is wrong with the instance.
                    category: if poor.fault == messages::UNEXPLAINED {
                        Category::RefusedValid
                    } else {
                        Category::PoorMessage
                    },
                    signature: if poor.fault == messages::UNEXPLAINED {
                        refusal_signature(Some(&poor.problem))
                    } else {
                        format!("{}: {}", poor.fault, mask(&poor.problem.message))
                    },
                    detail: format!(
                        "{}\n      all problems: {}",
                        poor.detail,
                        problems_text(problems)
                    ),
                })
            }
            (_, Outcome::Other(error)) => Err(Finding {
                category: Category::Crashed,
                signature: mask(error),
                detail: error.clone(),
            }),
        }
    }
}

/// The signature of a refusal: its masked message, marked when the message states a range the
/// value sent lies within ("must be between -3.4028235e38 and 3.4028235e38 …, got
/// 3.4028235e38"), a refusal that contradicts itself.
fn refusal_signature(problem: Option<&ArgumentProblem>) -> String {
    let Some(problem) = problem else {
        return "refused without a problem".to_owned();
    };
    let message = &problem.message;
    let number_after = |marker: &str| -> Option<serde_json::Number> {
        let rest = &message[message.find(marker)? + marker.len()..];
        let token: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
            .collect();
        serde_json::from_str(&token).ok()
    };
    let within = match (
        number_after("between "),
        number_after(" and "),
        number_after("got "),
    ) {
        (Some(lo), Some(hi), Some(got)) => {
            use super::node::as_integer;
            match (as_integer(&lo), as_integer(&hi), as_integer(&got)) {
                (Some(lo), Some(hi), Some(got)) => lo <= got && got <= hi,
                _ => lo.as_f64() <= got.as_f64() && got.as_f64() <= hi.as_f64(),
            }
        }
        _ => false,
    };
    if within {
        format!(
            "the value sent is within the range the refusal states: {}",
            mask(message)
        )
    } else {
        mask(message)
    }
}

fn problems_text(problems: &[ArgumentProblem]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// `s` cut to `max` characters.
pub fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

/// A message with its particulars masked, so that messages of one cause group together:
/// quoted and back-ticked text → `…`, numbers → `N`.
pub fn mask(message: &str) -> String {
    let mut out = String::new();
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '`' => {
                out.push(c);
                out.push('…');
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
                out.push(c);
            }
            c if c.is_ascii_digit() => {
                out.push('N');
                while chars.peek().is_some_and(|d| {
                    d.is_ascii_digit() || *d == '.' || *d == 'e' || *d == '+' || *d == '-'
                }) {
                    chars.next();
                }
            }
            c => out.push(c),
        }
    }
    shorten(&out, 160)
}

#[cfg(test)]
mod tests {
    use super::mask;

    #[test]
    fn masks_particulars() {
        assert_eq!(
            mask("invalid type: floating point `3.0`, expected u8"),
            "invalid type: floating point `…`, expected uN"
        );
        assert_eq!(
            mask("must be at most 255, got 256"),
            "must be at most N, got N"
        );
    }
}
