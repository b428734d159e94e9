//! The `format` checks the validator is given beyond the `jsonschema` crate's own: the formats
//! schemars gives chrono's types and `IpAddr`, which it does not know, and domain names read as
//! their RFCs read them.
//!
//! Domain names are case-insensitive (RFC 4343): `z@example.XN--55QW42G` is as valid as
//! `z@example.xn--55qw42g`, but the crate (0.61) recognises an A-label only by a lower-case
//! `xn--`, so it refuses the upper-case spelling of a valid internationalised domain. The checks
//! here read the domain in lower case and leave every other rule to the crate.
//!
//! `idn-hostname` and `idn-email` (RFC 5890, RFC 6531) are unknown to the crate without its
//! `idna` feature, whose Unicode tables would weigh on every server's build and binary; unknown,
//! any string would pass. They are checked here as the RFCs' structure has them (labels, dots,
//! hyphens, the local part), with every non-ASCII letter, mark and digit allowed, so that no
//! internationalised name is refused; what is left unchecked is IDNA's per-code-point table
//! (a disallowed symbol inside a label passes).

use std::sync::LazyLock;

use serde_json::Value;

/// Adds the checks of this module to a validator's options for schemas of `draft`.
pub(super) fn with_formats(
    options: jsonschema::ValidationOptions,
    draft: jsonschema::Draft,
) -> jsonschema::ValidationOptions {
    let options = options
        .with_format("partial-time", is_partial_time)
        .with_format("ip", |s: &str| s.parse::<std::net::IpAddr>().is_ok())
        .with_format("partial-date-time", |s: &str| {
            s.split_once('T')
                .is_some_and(|(date, time)| is_date(date) && is_partial_time(time))
        })
        .with_format("email", is_email)
        .with_format("idn-email", is_idn_email);
    // Drafts 4 and 6 read `hostname` as RFC 1034 has it (the crate's check for them takes any
    // case already), and have no `idn-hostname`.
    if matches!(draft, jsonschema::Draft::Draft4 | jsonschema::Draft::Draft6) {
        options
    } else {
        options
            .with_format("hostname", is_hostname)
            .with_format("idn-hostname", is_idn_hostname)
    }
}

/// The crate's own check of one format, on a string.
struct Builtin(jsonschema::Validator);

impl Builtin {
    fn of(format: &str) -> Builtin {
        let schema = serde_json::json!({"format": format});
        Builtin(
            jsonschema::draft202012::options()
                .should_validate_formats(true)
                .build(&schema)
                .expect("a schema of one known format compiles"),
        )
    }

    fn accepts(&self, text: String) -> bool {
        self.0.is_valid(&Value::String(text))
    }
}

static HOSTNAME: LazyLock<Builtin> = LazyLock::new(|| Builtin::of("hostname"));
static EMAIL: LazyLock<Builtin> = LazyLock::new(|| Builtin::of("email"));

/// RFC 1123 and RFC 5891 (`xn--` labels valid A-labels), in any case.
fn is_hostname(s: &str) -> bool {
    HOSTNAME.accepts(s.to_ascii_lowercase())
}

/// RFC 5321's mailbox, its domain in any case. The local part keeps its case: RFC 5321 leaves
/// its meaning to the receiving host, and the crate's check of it takes either.
fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    EMAIL.accepts(format!("{local}@{}", domain.to_ascii_lowercase()))
}

/// The dots UTS #46 reads as label separators: ASCII's, the ideographic full stop, and the
/// full-width and half-width ones.
const DOTS: [char; 4] = ['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'];

/// An internationalised host name (RFC 5890): labels of at most 63 characters, none empty, none
/// beginning or ending with a hyphen; an ASCII label as [`is_hostname`] reads it (so an
/// `xn--` label must be a valid A-label), any other of letters, marks, digits and hyphens.
fn is_idn_hostname(s: &str) -> bool {
    if s.is_empty() || s.chars().count() > 253 {
        return false;
    }
    s.split(DOTS).all(|label| {
        if label.is_ascii() {
            return is_hostname(label);
        }
        let count = label.chars().count();
        count <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| {
                if c.is_ascii() {
                    c.is_ascii_alphanumeric() || c == '-'
                } else {
                    !c.is_whitespace() && !c.is_control() && !DOTS.contains(&c)
                }
            })
    })
}

/// An internationalised mailbox (RFC 6531): a local part as RFC 5321 has it, with any non-ASCII
/// character allowed where a letter is, and an internationalised domain (or an address literal).
fn is_idn_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    // The local part's structure (dots, quotes, which ASCII may stand where), each non-ASCII
    // character standing in as a letter, checked against a domain that is surely valid.
    let local: String = local
        .chars()
        .map(|c| if c.is_ascii() { c } else { 'a' })
        .collect();
    let domain_ok = if domain.starts_with('[') {
        is_email(&format!("a@{domain}"))
    } else {
        is_idn_hostname(domain)
    };
    domain_ok && is_email(&format!("{local}@example.com"))
}

/// `HH:MM:SS` with optional fractions of a second, as chrono reads a `NaiveTime` (a leap second
/// is `60`).
fn is_partial_time(s: &str) -> bool {
    let (clock, fraction) = s.split_once('.').unwrap_or((s, "0"));
    let parts: Vec<&str> = clock.split(':').collect();
    let two_digits = |p: &str| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit());
    parts.len() == 3
        && parts.iter().all(|p| two_digits(p))
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && parts[0] < "24"
        && parts[1] < "60"
        && parts[2] <= "60"
}

/// `YYYY-MM-DD`, a day that exists.
fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let [year, month, day] = parts.as_slice() else {
        return false;
    };
    let number = |p: &str, len: usize| {
        (p.len() == len && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<u32>().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (number(year, 4), number(month, 2), number(day, 2))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_are_read_in_any_case() {
        for valid in [
            "example.xn--55qw42g",
            "example.XN--55QW42G",
            "Xn--Bcher-Kva.Example",
            "EXAMPLE.COM",
        ] {
            assert!(is_hostname(valid), "{valid}");
            assert!(is_email(&format!("z@{valid}")), "z@{valid}");
            assert!(is_email(&format!("Zoë.Ng@{valid}").replace('ë', "e")));
        }
        // Case changes nothing else: a label that is no A-label stays refused.
        for invalid in [
            "XN--.example",
            "ab--cd.example",
            "-a.example",
            "a_b.example",
        ] {
            assert!(!is_hostname(invalid), "{invalid}");
            assert!(!is_email(&format!("z@{invalid}")), "z@{invalid}");
        }
        assert!(!is_email("no-at-sign"));
        assert!(!is_email("a b@example.com"));
        assert!(is_email("a@[IPv6:::1]"));
    }

    #[test]
    fn internationalised_names_are_read_as_their_rfcs_have_them() {
        for valid in [
            "bücher.example",
            "BÜCHER.example",
            "例え.テスト",
            "例え。テスト",
            "xn--bcher-kva.example",
            "नमस्ते.भारत",
        ] {
            assert!(is_idn_hostname(valid), "{valid}");
            assert!(is_idn_email(&format!("josé@{valid}")), "josé@{valid}");
        }
        for invalid in [
            "",
            "a..b",
            "-bücher.example",
            "bü cher.example",
            "bü_cher.example",
            "XN--.example",
        ] {
            assert!(!is_idn_hostname(invalid), "{invalid}");
            assert!(!is_idn_email(&format!("a@{invalid}")), "a@{invalid}");
        }
        assert!(!is_idn_email("jo sé@example.com"));
        assert!(!is_idn_email("josé"));
        assert!(is_idn_email("\"jo sé\"@example.com"));
    }
}
