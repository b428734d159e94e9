//! Strings matching a schema's `pattern`, generated with proptest's regex strategy
//! (`proptest::string::string_regex`, built on `regex-syntax`). JSON Schema patterns are
//! ECMA-262 regular expressions matched anywhere in the string: a leading `^` and a trailing
//! `$` anchor them, and an unanchored side gets random text. ECMA's `\d`, `\w` and `\s` are
//! ASCII; `regex-syntax`'s are Unicode, so they are spelled out first. A pattern the generator
//! cannot read (lookaround, backreferences, inner anchors) is refused loudly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use proptest::strategy::{Strategy, ValueTree};
use proptest::string::{RegexGeneratorStrategy, string_regex};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use super::rng::Rng;
use super::strings;

/// A compiled pattern: its strategy and which ends are anchored.
struct Compiled {
    strategy: RegexGeneratorStrategy<String>,
    anchored_start: bool,
    anchored_end: bool,
}

fn cache() -> &'static Mutex<HashMap<String, Arc<Compiled>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Compiled>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn compile(pattern: &str) -> Arc<Compiled> {
    let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = cache.get(pattern) {
        return found.clone();
    }
    let mut body = pattern;
    let anchored_start = body.starts_with('^');
    if anchored_start {
        body = &body[1..];
    }
    let anchored_end = body.ends_with('$') && !body.ends_with("\\$");
    if anchored_end {
        body = &body[..body.len() - 1];
    }
    let body = body
        .replace(r"\d", "[0-9]")
        .replace(r"\D", "[^0-9]")
        .replace(r"\w", "[A-Za-z0-9_]")
        .replace(r"\W", "[^A-Za-z0-9_]")
        .replace(r"\s", r"[\t\n\x0B\x0C\r \u{A0}\u{FEFF}]");
    let strategy = string_regex(&body).unwrap_or_else(|err| {
        panic!(
            "the schema-instance generator cannot generate strings for the pattern `{pattern}`: \
             {err}; teach tests/src/schema_instances/patterns.rs this pattern"
        )
    });
    let compiled = Arc::new(Compiled {
        strategy,
        anchored_start,
        anchored_end,
    });
    cache.insert(pattern.to_owned(), compiled.clone());
    compiled
}

/// A string matching `pattern`.
pub fn matching(pattern: &str, rng: &mut Rng) -> String {
    let compiled = compile(pattern);
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
    );
    let core = compiled
        .strategy
        .new_tree(&mut runner)
        .map(|tree| tree.current())
        .unwrap_or_else(|err| panic!("the pattern `{pattern}`: {err}"));
    let mut out = String::new();
    if !compiled.anchored_start && rng.chance(0.5) {
        out.push_str(&strings::text(rng, 0, 6));
    }
    out.push_str(&core);
    if !compiled.anchored_end && rng.chance(0.5) {
        out.push_str(&strings::text(rng, 0, 6));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchored_patterns_generate_whole_matches() {
        let mut rng = Rng::new(5);
        for _ in 0..100 {
            let s = matching(r"^[A-Z]{3}$", &mut rng);
            assert!(
                s.len() == 3 && s.chars().all(|c| c.is_ascii_uppercase()),
                "{s:?}"
            );
            let s = matching(r"\d{3}", &mut rng);
            assert!(
                s.as_bytes()
                    .windows(3)
                    .any(|w| w.iter().all(u8::is_ascii_digit)),
                "{s:?}"
            );
        }
    }
}
