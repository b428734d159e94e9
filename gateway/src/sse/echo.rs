//! A Responses event's JSON with the tools it echoes left out as its bytes arrive.
//!
//! A Responses upstream repeats the request's tools, injected ones included (about 115 KB for
//! 100 tools), in `response.created`, `response.in_progress` and `response.completed`. The
//! client is shown its own tools instead, so those bytes are never needed: skipped here as they
//! are read, an event never holds them, and a streamed Responses conversation holds what a Chat
//! one does.
//!
//! What is left out is a member named `tools` of the top object or of the top object's
//! `response` object, with its comma. Everything else passes through byte for byte, invalid
//! JSON included (its reader says what is wrong with it). A key written with escapes is not
//! recognised here and passes through; `upstream::WithoutTools` leaves it out when the
//! event is read, as it does for a whole reply.

use memchr::{memchr, memchr2};

/// How deep the objects whose `tools` are left out can be: the top one and its `response`.
const CARED: usize = 2;

/// The filter of one event's data; [`Echo::reset`] before the next event.
#[derive(Default)]
pub struct Echo {
    /// How many objects and arrays are open at this byte.
    depth: usize,
    /// The objects open at depths 1 and 2 whose members are looked at.
    cared: [Object; CARED],
    in_string: bool,
    /// The last byte was a backslash in a string.
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
    /// is skipped, so strings are crossed with `memchr` and only the bytes between them are
    /// looked at one by one (a byte-by-byte loop over everything took twice as long).
    fn skip<'a>(&mut self, member: usize, input: &'a [u8]) -> &'a [u8] {
        let mut at = 0;
        while at < input.len() {
            if self.in_string {
                // To the string's end: its quote, past backslashed bytes.
                if self.escaped {
                    self.escaped = false;
                    at += 1;
                    continue;
                }
                match memchr2(b'"', b'\\', &input[at..]) {
                    None => return &[],
                    Some(found) => {
                        at += found + 1;
                        if input[at - 1] == b'\\' {
                            self.escaped = true;
                        } else {
                            self.in_string = false;
                        }
                    }
                }
                continue;
            }
            // To the next string: the brackets before it move the depth; a comma or closing
            // bracket at the member's depth ends it.
            let next = memchr(b'"', &input[at..]).map_or(input.len(), |found| at + found);
            for (offset, &byte) in input[at..next].iter().enumerate() {
                match byte {
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' | b',' if self.depth == member => return &input[at + offset..],
                    b'}' | b']' => self.depth -= 1,
                    _ => {}
                }
            }
            at = next;
            if at < input.len() {
                self.in_string = true;
                at += 1;
            }
        }
        &[]
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
