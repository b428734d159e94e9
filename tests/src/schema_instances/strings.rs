//! Plain strings: Unicode scalar values of many kinds (ASCII, accents, CJK, emoji outside the
//! Basic Multilingual Plane, right-to-left scripts, combining marks, zero-width and control
//! characters, quotes and backslashes), with lengths counted in characters as JSON Schema's
//! `minLength`/`maxLength` count them.

use super::rng::Rng;

/// One character, from a mix of kinds.
pub fn character(rng: &mut Rng) -> char {
    const PUNCTUATION: &[char] = &[
        ' ', '"', '\\', '/', '\'', '{', '}', '[', ']', ',', ':', '.', '-', '_', '%', '&', '<', '>',
    ];
    const OTHER: &[char] = &[
        'é', 'ü', 'ß', 'ñ', 'Ø', 'ç', '中', '文', '日', '本', '한', '😀', '🚀', '𝄞', '🇵', 'ש', 'ל',
        'ו', 'ع', 'ر', 'ب', '\u{301}', '\u{200B}', '\u{FEFF}', '\u{2028}', '€', '∑',
    ];
    const CONTROL: &[char] = &['\n', '\t', '\r', '\u{0}', '\u{1F}', '\u{7F}'];
    match rng.weighted(&[60, 10, 20, 3, 7]) {
        0 => {
            char::from(*rng.pick(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
        }
        1 => *rng.pick(PUNCTUATION),
        2 => *rng.pick(OTHER),
        3 => *rng.pick(CONTROL),
        _ => {
            // Anywhere in Unicode (no surrogates).
            let code = rng.int_between(0x20, 0x10FFFF) as u32;
            char::from_u32(code).unwrap_or('x')
        }
    }
}

/// A string of `min..=max` characters.
pub fn text(rng: &mut Rng, min: usize, max: usize) -> String {
    let len = rng.between(min, max);
    (0..len).map(|_| character(rng)).collect()
}

/// The length of a string as JSON Schema counts it (Unicode scalar values).
pub fn length(s: &str) -> usize {
    s.chars().count()
}
