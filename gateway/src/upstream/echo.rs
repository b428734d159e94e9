//! A Responses upstream's JSON, an event's or a whole reply's, with the tools it echoes left
//! out as its bytes arrive.
//!
//! A Responses upstream repeats the request's tools, injected ones included (about 115 KB for
//! 100 tools), in a whole reply and in `response.created`, `response.in_progress` and
//! `response.completed`. The client is shown its own tools instead, so those bytes are never
//! needed: skipped here as they are read, neither an event nor a reply ever holds them, and a
//! Responses conversation holds what a Chat one does.
//!
//! What is left out is a member named `tools` of the top object or of the top object's
//! `response` object, with its comma. Everything else passes through byte for byte, invalid
//! JSON included (its reader says what is wrong with it). A key written with escapes is not
//! recognised here and passes through; `upstream::WithoutTools` leaves it out when the
//! event is read, as it does for a whole reply.

use memchr::memchr2;

/// How deep the objects whose `tools` are left out can be: the top one and its `response`.
const CARED: usize = 2;

/// The filter of one event's data or one whole reply; [`Echo::reset`] before the next event.
#[derive(Default)]
pub struct Echo {
    /// How many objects and arrays are open at this byte.
    depth: usize,
    /// The objects open at depths 1 and 2 whose members are looked at.
    cared: [Object; CARED],
    in_string: bool,
    /// The last byte was a backslash that escapes the next one: in a string, or anywhere in a
    /// skipped member (whose bytes `skip` reads by the same rules in blocks and one at a time).
    escaped: bool,
    /// A key of a cared object is being read (its bytes, as written, up to `KEY` of them).
    key: Option<Vec<u8>>,
    /// The depth of the object whose `tools` member is being skipped.
    skipping: Option<usize>,
    /// Something other than whitespace was read: an object that does not open the event is
    /// not its top one.
    begun: bool,
}

/// What a cared object's reading knows.
#[derive(Clone, Copy, Default)]
struct Object {
    /// The object is looked at (false for an array, or an object elsewhere).
    cared: bool,
    /// Where the member being read started in the output (before its comma, if any).
    mark: usize,
    /// The member being read is the first one: no comma before it.
    first: bool,
    /// The next string is a key.
    expects_key: bool,
    /// The member being read is `response`.
    response: bool,
}

/// The longest key told apart ("response").
const KEY: usize = 8;

impl Echo {
    /// Ready for the next event.
    pub fn reset(&mut self) {
        *self = Echo::default();
    }

    /// Adds `input`'s bytes to `out`, the echoed tools left out.
    pub fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) {
        while !input.is_empty() {
            // `skip` takes every byte of a skipped member and gives back the one that ends it,
            // so what follows only ever sees bytes that stay, and that one.
            if let Some(member) = self.skipping {
                input = self.skip(member, input);
                if input.is_empty() {
                    break;
                }
            }
            if self.in_string {
                input = self.string(input, out);
                continue;
            }
            if self.begun {
                // Scalars, colons and whitespace change nothing here: they go (or are skipped)
                // in one piece, up to the next byte that does.
                let plain = input
                    .iter()
                    .position(|&byte| matches!(byte, b'"' | b'{' | b'[' | b'}' | b']' | b','))
                    .unwrap_or(input.len());
                out.extend_from_slice(&input[..plain]);
                input = &input[plain..];
                if input.is_empty() {
                    break;
                }
            }
            let byte = input[0];
            input = &input[1..];
            self.structural(byte, out);
        }
    }

    /// Skips the bytes of the member being skipped, up to the comma or brace after it (at
    /// `member`, the depth of its object), which is given back with the rest. Most of an echo
    /// is skipped, so it is read 64 bytes at a time ([`Block`]): which bytes are inside strings
    /// comes from the block's quotes and backslashes in a few word operations, and only the
    /// brackets and commas outside strings are visited. The bytes after the last whole block go
    /// one at a time, by the same rules.
    fn skip<'a>(&mut self, member: usize, input: &'a [u8]) -> &'a [u8] {
        let mut at = 0;
        while let Some(bytes) = input.get(at..at + BLOCK) {
            let bytes: &[u8; BLOCK] = bytes.try_into().expect("a block's length");
            let block = Block::of(bytes);
            let escaped = self.escaped_in(block.backslash);
            let inside = prefix_xor(block.quote & !escaped) ^ if self.in_string { !0 } else { 0 };
            self.in_string = inside >> (BLOCK - 1) == 1;
            let mut structural = (block.open | block.close | block.comma) & !inside & !escaped;
            while structural != 0 {
                let offset = structural.trailing_zeros() as usize;
                structural &= structural - 1;
                if self.skipped_structural(member, bytes[offset]) {
                    return &input[at + offset..];
                }
            }
            at += BLOCK;
        }
        for (offset, &byte) in input[at..].iter().enumerate() {
            if std::mem::take(&mut self.escaped) {
                continue;
            }
            match byte {
                b'\\' => self.escaped = true,
                b'"' => self.in_string = !self.in_string,
                _ if self.in_string => {}
                _ => {
                    if self.skipped_structural(member, byte) {
                        return &input[at + offset..];
                    }
                }
            }
        }
        &[]
    }

    /// A bracket or comma outside strings in a skipped member: moves the depth, or ends the
    /// member (true) if it is a comma or closing bracket at the member's depth.
    fn skipped_structural(&mut self, member: usize, byte: u8) -> bool {
        match byte {
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' | b',' if self.depth == member => {
                self.in_string = false;
                self.escaped = false;
                return true;
            }
            b'}' | b']' => self.depth -= 1,
            _ => {}
        }
        false
    }

    /// The bytes of a block that follow an odd run of backslashes (escaped, so neither quotes
    /// nor brackets), the run carried over from the block before in `escaped`. simdjson's
    /// branchless `find_escaped`: the runs that start on odd bits are cleared by an addition,
    /// whose carry is the run that goes on into the next block.
    fn escaped_in(&mut self, backslash: u64) -> u64 {
        const EVEN: u64 = 0x5555_5555_5555_5555;
        let carried = u64::from(self.escaped);
        let backslash = backslash & !carried;
        let follows_escape = (backslash << 1) | carried;
        let odd_starts = backslash & !EVEN & !follows_escape;
        let (even_starts, overflow) = odd_starts.overflowing_add(backslash);
        self.escaped = overflow;
        (EVEN ^ (even_starts << 1)) & follows_escape
    }

    /// The bytes of a string up to and including its closing quote, or all of `input`.
    fn string<'a>(&mut self, input: &'a [u8], out: &mut Vec<u8>) -> &'a [u8] {
        let mut at = 0;
        let end = loop {
            if self.escaped {
                self.escaped = false;
                at += 1;
                if at >= input.len() {
                    break None;
                }
            }
            match memchr2(b'"', b'\\', &input[at..]) {
                None => break None,
                Some(found) if input[at + found] == b'\\' => {
                    self.escaped = true;
                    at += found + 1;
                    if at >= input.len() {
                        break None;
                    }
                }
                Some(found) => break Some(at + found),
            }
        };
        let (inside, rest) = match end {
            Some(quote) => (&input[..quote], &input[quote + 1..]),
            None => (input, &[][..]),
        };
        out.extend_from_slice(inside);
        if end.is_some() {
            out.push(b'"');
        }
        if let Some(key) = &mut self.key
            && key.len() <= KEY
        {
            key.extend_from_slice(&inside[..inside.len().min(KEY + 1 - key.len())]);
        }
        if end.is_some() {
            self.in_string = false;
            if let Some(key) = self.key.take() {
                self.key_read(&key, out);
            }
        }
        rest
    }

    /// A cared object's key was read.
    fn key_read(&mut self, key: &[u8], out: &mut Vec<u8>) {
        let depth = self.depth;
        let object = &mut self.cared[depth - 1];
        object.response = depth == 1 && key == b"response";
        if key == b"tools" {
            out.truncate(object.mark);
            self.skipping = Some(depth);
        }
    }

    /// A byte outside strings: one that stays, or the one that ends a skipped member.
    fn structural(&mut self, byte: u8, out: &mut Vec<u8>) {
        let skipping = self.skipping;
        let opens = !self.begun;
        self.begun |= !byte.is_ascii_whitespace();
        let at_cared = |depth: usize, cared: &[Object; CARED]| {
            (1..=CARED).contains(&depth) && cared[depth - 1].cared
        };
        match byte {
            b'"' => {
                self.in_string = true;
                if at_cared(self.depth, &self.cared) && self.cared[self.depth - 1].expects_key {
                    self.cared[self.depth - 1].expects_key = false;
                    self.key = Some(Vec::with_capacity(KEY + 1));
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth <= CARED {
                    let cared = byte == b'{'
                        && if self.depth == 1 {
                            opens
                        } else {
                            self.cared[0].cared && self.cared[0].response
                        };
                    self.cared[self.depth - 1] = Object {
                        cared,
                        mark: out.len() + 1,
                        first: true,
                        expects_key: cared,
                        response: false,
                    };
                }
            }
            b'}' | b']' => {
                if skipping == Some(self.depth) {
                    // The skipped member was the object's last.
                    self.skipping = None;
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if skipping == Some(self.depth) => {
                // The skipped member ends; the next one takes its place, with the comma it
                // had before it, or none if the skipped one was first.
                self.skipping = None;
                let object = &mut self.cared[self.depth - 1];
                object.expects_key = true;
                object.mark = out.len();
                if object.first {
                    return;
                }
            }
            b',' if skipping.is_none() && at_cared(self.depth, &self.cared) => {
                let object = &mut self.cared[self.depth - 1];
                object.mark = out.len();
                object.first = false;
                object.expects_key = true;
                object.response = false;
            }
            _ => {}
        }
        out.push(byte);
    }
}

/// How many bytes [`Echo::skip`] reads at a time: one bit each in a `u64`.
const BLOCK: usize = 64;

/// Where a block's bytes that matter to skipping are: bit `i` is byte `i`'s.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Block {
    quote: u64,
    backslash: u64,
    /// `{` and `[`.
    open: u64,
    /// `}` and `]`.
    close: u64,
    comma: u64,
}

impl Block {
    /// With SSE2 on x86-64: 16 bytes compared at once.
    #[cfg(target_arch = "x86_64")]
    fn of(bytes: &[u8; BLOCK]) -> Block {
        // SAFETY: SSE2 is part of x86-64's baseline, so every processor this runs on has it.
        unsafe { Block::sse2(bytes) }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2")]
    fn sse2(bytes: &[u8; BLOCK]) -> Block {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        let mut block = Block::default();
        for (at, sixteen) in bytes.chunks_exact(16).enumerate() {
            // SAFETY: `sixteen` is 16 readable bytes, which `_mm_loadu_si128` reads without
            // asking for any alignment.
            let v = unsafe { _mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>()) };
            // `{` and `[` differ only in the bit 0x20, as `}` and `]` do.
            let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let [quote, backslash, comma, open, close] = [
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)),
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b',' as i8)),
                _mm_cmpeq_epi8(folded, _mm_set1_epi8(b'{' as i8)),
                _mm_cmpeq_epi8(folded, _mm_set1_epi8(b'}' as i8)),
            ]
            .map(|matched| u64::from(_mm_movemask_epi8(matched) as u16) << (16 * at));
            block.quote |= quote;
            block.backslash |= backslash;
            block.comma |= comma;
            block.open |= open;
            block.close |= close;
        }
        block
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn of(bytes: &[u8; BLOCK]) -> Block {
        Block::byte_by_byte(bytes)
    }

    /// The same masks a byte at a time: other processors' way, and the SSE2 one's reference.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn byte_by_byte(bytes: &[u8; BLOCK]) -> Block {
        let mut block = Block::default();
        for (at, &byte) in bytes.iter().enumerate() {
            let bit = 1 << at;
            match byte {
                b'"' => block.quote |= bit,
                b'\\' => block.backslash |= bit,
                b'{' | b'[' => block.open |= bit,
                b'}' | b']' => block.close |= bit,
                b',' => block.comma |= bit,
                _ => {}
            }
        }
        block
    }
}

/// Bit `i` is the parity of the set bits up to and including `i`: with the quotes' bits, the
/// bytes inside strings (an opening quote's bit set, a closing one's clear).
fn prefix_xor(mut bits: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        bits ^= bits << shift;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// `input` filtered in pieces cut at `cuts`.
    fn filtered(input: &str, cuts: &[usize]) -> String {
        let mut echo = Echo::default();
        let mut out = Vec::new();
        let mut at = 0;
        for &cut in cuts.iter().chain([&input.len()]) {
            echo.feed(&input.as_bytes()[at..cut], &mut out);
            at = cut;
        }
        String::from_utf8(out).unwrap()
    }

    /// Every cut, and a byte at a time, give what the whole does.
    fn every_cut(input: &str) -> String {
        let whole = filtered(input, &[]);
        for cut in 1..input.len() {
            assert_eq!(filtered(input, &[cut]), whole, "cut at byte {cut}");
        }
        let bytes: Vec<usize> = (1..input.len()).collect();
        assert_eq!(filtered(input, &bytes), whole, "a byte at a time");
        whole
    }

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn the_echoed_tools_are_left_out_wherever_they_stand() {
        let tools =
            r#"[{"type":"function","name":"a","parameters":{"tools":[1,"}],\"x"]}},{"name":"b"}]"#;
        for (input, expected) in [
            (
                format!(
                    r#"{{"type":"response.created","response":{{"id":"r","tools":{tools},"output":[]}}}}"#
                ),
                json!({"type": "response.created", "response": {"id": "r", "output": []}}),
            ),
            (
                format!(r#"{{"response":{{"tools":{tools},"id":"r"}},"type":"t"}}"#),
                json!({"response": {"id": "r"}, "type": "t"}),
            ),
            (
                format!(r#"{{"response":{{"id":"r","tools":{tools}}}}}"#),
                json!({"response": {"id": "r"}}),
            ),
            (
                format!(r#"{{"response":{{"tools":{tools}}}}}"#),
                json!({"response": {}}),
            ),
            (
                format!(r#"{{"id":"r","tools":{tools},"output":[]}}"#),
                json!({"id": "r", "output": []}),
            ),
            (
                format!(r#" {{ "tools" : {tools} , "tools" : null , "a" : 1 }} "#),
                json!({"a": 1}),
            ),
            (
                r#"{"tools":"a \"string\" \\","b":2}"#.to_owned(),
                json!({"b": 2}),
            ),
        ] {
            let out = every_cut(&input);
            assert!(!out.contains("function"), "{out}");
            assert_eq!(value(&out), expected, "{input}");
        }
    }

    #[test]
    fn tools_elsewhere_pass_through() {
        for input in [
            r#"{"item":{"tools":[1]},"response":{"output":[{"tools":[2]}]}}"#,
            r#"{"type":"x","delta":"the \"tools\":[] stay"}"#,
            r#"[{"tools":[1]}]"#,
            r#"{"a":{"response":{"tools":[1]}}}"#,
            r#"{"tool\u0073":[1],"toolsets":2,"response":[{"tools":3}]}"#,
            "[DONE]",
            "not JSON {\"tools\"",
        ] {
            assert_eq!(every_cut(input), input);
        }
    }

    /// JSON whose objects often have `tools` and `response` members, strings with quotes and
    /// backslashes among them.
    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::from),
            "[a-z\"\\\\{}\\[\\],: ]{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            let key = prop_oneof![
                Just("tools".to_owned()),
                Just("response".to_owned()),
                "[a-z\"\\\\]{0,6}",
            ];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((key, inner), 0..5)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// SSE2's masks are the byte-by-byte ones, for blocks of the bytes that matter and of
        /// any bytes.
        #[test]
        fn a_block_is_classified_as_byte_by_byte_does(
            specials in prop::collection::vec(prop::sample::select(b"\"\\{}[],a \x7b\xdb\xfd".to_vec()), BLOCK),
            any_bytes in prop::collection::vec(any::<u8>(), BLOCK),
        ) {
            for bytes in [specials, any_bytes] {
                let bytes: [u8; BLOCK] = bytes.try_into().unwrap();
                prop_assert_eq!(Block::of(&bytes), Block::byte_by_byte(&bytes));
            }
        }

        /// A skipped member of any bytes (quotes, backslashes and brackets in any order, JSON or
        /// not, runs of backslashes across a block's end among them) ends where it ends whether
        /// it is read in blocks of 64, cut anywhere, or a byte at a time.
        #[test]
        fn blocks_and_single_bytes_skip_alike(
            member in "[\"\\\\{}\\[\\],a ]{0,300}",
            cut in any::<prop::sample::Index>(),
        ) {
            let input = format!(r#"{{"tools":{member},"b":1}}]}}"#);
            let whole = filtered(&input, &[]);
            prop_assert_eq!(&filtered(&input, &[cut.index(input.len() + 1)]), &whole);
            let bytes: Vec<usize> = (1..input.len()).collect();
            prop_assert_eq!(&filtered(&input, &bytes), &whole);
        }

        /// Skipping alone, on bytes that rarely end the member (so that many blocks are read):
        /// in blocks or a byte at a time, it ends at the same byte, or leaves the same depth,
        /// string and escape to the bytes that follow.
        #[test]
        fn a_skip_ends_and_carries_over_alike(
            member in prop::collection::vec(prop_oneof![
                6 => Just(b'\\'),
                5 => Just(b'"'),
                3 => prop::sample::select(b"{[".to_vec()),
                4 => Just(b'a'),
                1 => prop::sample::select(b",}]".to_vec()),
            ], 0..600),
        ) {
            let start = || Echo { depth: 1, skipping: Some(1), ..Echo::default() };
            let mut blocks = start();
            let rest = blocks.skip(1, &member).len();
            let mut bytes = start();
            let mut left = member.len();
            for at in 0..member.len() {
                if !bytes.skip(1, &member[at..=at]).is_empty() {
                    left = member.len() - at;
                    break;
                }
                left = 0;
            }
            prop_assert_eq!(rest, left);
            prop_assert_eq!(
                (blocks.depth, blocks.in_string, blocks.escaped),
                (bytes.depth, bytes.in_string, bytes.escaped)
            );
        }

        /// Whatever the event, cut anywhere, what passes is the event without the top's
        /// `tools` and its `response`'s.
        #[test]
        fn what_passes_reads_as_the_event_without_its_tools(
            event in json(),
            pretty in any::<bool>(),
            cut in any::<prop::sample::Index>(),
        ) {
            let text = if pretty {
                serde_json::to_string_pretty(&event).unwrap()
            } else {
                event.to_string()
            };
            let cut = cut.index(text.len() + 1);
            let out = filtered(&text, &[cut]);
            let mut expected = event;
            if let Some(top) = expected.as_object_mut() {
                top.remove("tools");
                if let Some(response) = top.get_mut("response").and_then(Value::as_object_mut) {
                    response.remove("tools");
                }
            }
            prop_assert_eq!(value(&out), expected);
        }
    }
}
