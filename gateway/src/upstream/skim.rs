//! An upstream's event stream read as its bytes arrive, with the `tools` a Responses upstream
//! echoes in each event's `response` left out before they are ever held.
//!
//! A Responses upstream repeats the request's tools (about 115 KB for 100 injected tools) inside
//! `response.created`, `response.in_progress` and `response.completed`. Read as whole event lines
//! and then parsed without them (`lean::WithoutTools`), each streamed conversation held a line of
//! that size and the buffers grown for it: 0.5–0.6 MiB a conversation in flight, against 0.2 MiB
//! for Chat (docs/BENCHMARKS.md, "1,000 conversations at once"). Here an event's data goes
//! through [`Skim`] byte by byte: the member `tools` of the top-level member `response` is
//! dropped as it streams by, so an event never holds more than what the gateway keeps of it.
//!
//! The SSE framing is the WHATWG one: lines end in `\n`, `\r\n` or `\r`; `data:` lines are joined
//! with `\n`; a blank line ends an event; comments (`:`) and other fields are skipped; one space
//! after the colon is not part of the value; a BOM at the start is ignored.

use bytes::Bytes;
use futures_util::{Stream, StreamExt};

/// The most an event's data may hold once skimmed: more is an upstream gone wrong.
const MAX_EVENT: usize = 16 * 1024 * 1024;

/// Events read from the stream's chunks.
pub struct Events {
    /// Whether `tools` is skimmed off `response` (a Responses upstream).
    skim: bool,
    /// The field name of the line being read, until its colon.
    field: Vec<u8>,
    line: Line,
    /// The data of the event being read.
    data: Vec<u8>,
    has_data: bool,
    json: Skim,
    /// The last byte was a `\r` (a `\n` after it ends nothing more).
    after_cr: bool,
    started: bool,
}

/// Where the reader is in the line.
#[derive(Clone, Copy, PartialEq)]
enum Line {
    /// Reading the field's name.
    Field,
    /// Just after `data:`, where one space is skipped.
    DataStart,
    /// Reading a `data:` value.
    Data,
    /// Skipping the rest of a comment or another field's line.
    Ignored,
}

impl Events {
    pub fn new(skim: bool) -> Self {
        Events {
            skim,
            field: Vec::new(),
            line: Line::Field,
            data: Vec::new(),
            has_data: false,
            json: Skim::default(),
            after_cr: false,
            started: false,
        }
    }

    /// Reads a chunk; each event it completes is its data, as text.
    pub fn feed(&mut self, chunk: &[u8], events: &mut Vec<String>) -> Result<(), String> {
        let mut bytes = chunk;
        if !self.started && !bytes.is_empty() {
            self.started = true;
            bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        }
        for &byte in bytes {
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\r' | b'\n' => {
                    self.after_cr = byte == b'\r';
                    self.end_line(events)?;
                }
                _ => self.byte(byte)?,
            }
        }
        Ok(())
    }

    fn byte(&mut self, byte: u8) -> Result<(), String> {
        match self.line {
            Line::Field if byte == b':' => {
                self.line = match self.field.as_slice() {
                    b"data" => Line::DataStart,
                    // A comment (an empty name) or a field the gateway does not use.
                    _ => Line::Ignored,
                };
            }
            Line::Field => {
                // No field the gateway reads is longer; a longer name is one it skips.
                if self.field.len() < 8 {
                    self.field.push(byte);
                } else {
                    self.line = Line::Ignored;
                }
            }
            Line::DataStart if byte == b' ' => self.start_data(),
            Line::DataStart => {
                self.start_data();
                self.data_byte(byte)?;
            }
            Line::Data => self.data_byte(byte)?,
            Line::Ignored => {}
        }
        Ok(())
    }

    fn start_data(&mut self) {
        if self.has_data {
            self.push(b'\n');
        }
        self.has_data = true;
        self.line = Line::Data;
    }

    fn data_byte(&mut self, byte: u8) -> Result<(), String> {
        if self.skim {
            self.json.byte(byte, &mut self.data);
        } else {
            self.data.push(byte);
        }
        if self.data.len() > MAX_EVENT {
            return Err(format!(
                "the upstream sent an event of more than {MAX_EVENT} bytes"
            ));
        }
        Ok(())
    }

    fn push(&mut self, byte: u8) {
        if self.skim {
            self.json.byte(byte, &mut self.data);
        } else {
            self.data.push(byte);
        }
    }

    fn end_line(&mut self, events: &mut Vec<String>) -> Result<(), String> {
        // A line that names a field without a colon (`data`) is that field with no value.
        if self.line == Line::Field && self.field == b"data" {
            self.start_data();
        }
        let blank = self.line == Line::Field && self.field.is_empty();
        self.field.clear();
        self.line = Line::Field;
        if blank && self.has_data {
            self.json.finish(&mut self.data);
            let data = std::mem::take(&mut self.data);
            self.has_data = false;
            self.json = Skim::default();
            let text = String::from_utf8(data)
                .map_err(|_| "the upstream sent an event that is not UTF-8".to_owned())?;
            events.push(text);
        }
        Ok(())
    }

    /// The stream ended: an event without its blank line is dropped, as SSE says.
    pub fn end(&mut self) {
        self.data.clear();
        self.has_data = false;
    }
}

/// The upstream answer's events, each its `data:` text, read as the chunks arrive.
pub fn events(
    body: impl Stream<Item = Result<Bytes, reqwest::Error>> + Send + 'static,
    skim: bool,
) -> impl Stream<Item = Result<String, String>> + Send {
    let state = (
        Box::pin(body),
        Events::new(skim),
        std::collections::VecDeque::new(),
        false,
    );
    futures_util::stream::unfold(
        state,
        |(mut body, mut reader, mut ready, mut done)| async move {
            loop {
                if let Some(event) = ready.pop_front() {
                    return Some((Ok(event), (body, reader, ready, done)));
                }
                if done {
                    return None;
                }
                match body.next().await {
                    Some(Ok(chunk)) => {
                        let mut out = Vec::new();
                        if let Err(why) = reader.feed(&chunk, &mut out) {
                            done = true;
                            return Some((Err(why), (body, reader, ready, done)));
                        }
                        ready.extend(out);
                    }
                    Some(Err(err)) => {
                        done = true;
                        let why = format!("the upstream's stream broke off: {err}");
                        return Some((Err(why), (body, reader, ready, done)));
                    }
                    None => {
                        reader.end();
                        done = true;
                    }
                }
            }
        },
    )
}

/// A JSON text copied byte by byte, without the member `tools` of its top-level member
/// `response`. Anything it does not recognise (a key written with escapes, a `tools` elsewhere)
/// is copied: `lean::WithoutTools` still leaves it out when the event is parsed.
#[derive(Default)]
struct Skim {
    /// Open containers, innermost last: `true` for an object.
    open: Vec<bool>,
    in_string: bool,
    escaped: bool,
    /// In an object, before a member's key.
    expect_key: bool,
    /// The current string is a key whose first bytes are kept here (depth 1 and 2 only).
    key: Option<Vec<u8>>,
    /// The last key at depth 1 was `response`.
    in_response: bool,
    /// Bytes held back at depth 2 under `response`: a comma and the key after it, until the key
    /// is known not to be `tools`.
    held: Vec<u8>,
    holding: bool,
    /// Skipping the value of `tools`.
    skipping: Option<Skipping>,
    /// `tools` was the first member: the comma after its value goes too.
    drop_comma: bool,
}

#[derive(Clone, Copy)]
struct Skipping {
    /// Containers open inside the value.
    nested: usize,
    started: bool,
    in_string: bool,
    escaped: bool,
}

impl Skim {
    fn byte(&mut self, byte: u8, out: &mut Vec<u8>) {
        if let Some(skip) = &mut self.skipping {
            if skip.in_string {
                match (skip.escaped, byte) {
                    (true, _) => skip.escaped = false,
                    (false, b'\\') => skip.escaped = true,
                    (false, b'"') => {
                        skip.in_string = false;
                        if skip.nested == 0 {
                            self.skipping = None;
                        }
                    }
                    _ => {}
                }
                return;
            }
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' if !skip.started => return,
                b'"' => {
                    skip.started = true;
                    skip.in_string = true;
                    return;
                }
                b'[' | b'{' => {
                    skip.started = true;
                    skip.nested += 1;
                    return;
                }
                b']' | b'}' if skip.nested > 0 => {
                    skip.nested -= 1;
                    if skip.nested == 0 {
                        self.skipping = None;
                    }
                    return;
                }
                b',' | b'}' if skip.nested == 0 => {
                    // The end of a scalar value: this byte belongs to the object.
                    self.skipping = None;
                }
                _ => {
                    skip.started = true;
                    return;
                }
            }
        }
        if self.drop_comma {
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' => return,
                b',' => {
                    self.drop_comma = false;
                    self.expect_key = true;
                    return;
                }
                _ => self.drop_comma = false,
            }
        }
        let depth = self.open.len();
        if self.in_string {
            self.copy(byte, out);
            if self.escaped {
                self.escaped = false;
                if let Some(key) = &mut self.key {
                    // A key with an escape is not read here.
                    key.push(b'\\');
                }
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                self.end_key(depth, out);
            } else if let Some(key) = &mut self.key
                && key.len() <= 8
            {
                key.push(byte);
            }
            return;
        }
        match byte {
            b'"' => {
                if self.expect_key && (depth == 1 || depth == 2) {
                    self.key = Some(Vec::new());
                    if depth == 2 && self.in_response {
                        self.holding = true;
                    }
                }
                self.expect_key = false;
                self.in_string = true;
                self.copy(byte, out);
            }
            b'{' | b'[' => {
                self.copy(byte, out);
                self.open.push(byte == b'{');
                self.expect_key = byte == b'{';
            }
            b'}' | b']' => {
                self.copy(byte, out);
                self.open.pop();
                self.expect_key = false;
                if self.open.len() == 1 {
                    // Leaving `response` (or any other value of a top-level member).
                    self.in_response = false;
                }
            }
            b',' => {
                let in_object = self.open.last().copied().unwrap_or(false);
                self.expect_key = in_object;
                if in_object && depth == 2 && self.in_response {
                    self.holding = true;
                }
                self.copy(byte, out);
            }
            _ => self.copy(byte, out),
        }
    }

    /// Copies a byte, or holds it back while a member under `response` may still be `tools`.
    fn copy(&mut self, byte: u8, out: &mut Vec<u8>) {
        if self.holding {
            self.held.push(byte);
        } else {
            out.push(byte);
        }
    }

    /// A string ended: if it was a key at depth 1 or 2, what it names.
    fn end_key(&mut self, depth: usize, out: &mut Vec<u8>) {
        let Some(key) = self.key.take() else {
            return;
        };
        if depth == 1 {
            self.in_response = key == b"response";
            return;
        }
        if !self.holding {
            return;
        }
        self.holding = false;
        if key == b"tools" {
            // The held bytes are `,` (unless it is the first member), blanks and `"tools"`.
            let first = !self.held.contains(&b',');
            self.held.clear();
            self.skipping = Some(Skipping {
                nested: 0,
                started: false,
                in_string: false,
                escaped: false,
            });
            self.drop_comma = first;
        } else {
            out.append(&mut self.held);
        }
    }

    /// The event ended: whatever was held goes out (a malformed event stays malformed, and
    /// parsing it says so).
    fn finish(&mut self, out: &mut Vec<u8>) {
        out.append(&mut self.held);
        self.holding = false;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::upstream::lean::WithoutTools;

    /// Every event of `stream`, fed in chunks cut at `cuts`.
    fn read(stream: &str, skim: bool, cuts: &[usize]) -> Vec<String> {
        let mut reader = Events::new(skim);
        let mut events = Vec::new();
        let mut from = 0;
        for &cut in cuts.iter().chain([&stream.len()]) {
            reader
                .feed(&stream.as_bytes()[from..cut], &mut events)
                .unwrap();
            from = cut;
        }
        reader.end();
        events
    }

    /// What the gateway kept of an event before: parsed whole, without the tools.
    fn lean(data: &str) -> Value {
        serde_json::from_str::<WithoutTools>(data).unwrap().0
    }

    fn responses_events() -> Vec<Value> {
        let tools = json!([{"type": "function", "name": "a", "parameters": {"type": "object",
            "properties": {"q": {"type": "string", "description": "a \"quoted\" {brace} [x] \\ tools"}}}}]);
        vec![
            json!({"type": "response.created", "sequence_number": 0,
                   "response": {"id": "r1", "tools": tools, "status": "in_progress"}}),
            json!({"type": "response.in_progress",
                   "response": {"tools": tools, "id": "r1", "output": []}}),
            json!({"type": "response.completed",
                   "response": {"id": "r1", "output": [{"type": "message", "tools": 1}], "tools": tools}}),
            json!({"type": "response.output_text.delta", "delta": "{\"tools\": [1]}", "tools": "kept"}),
            json!({"type": "response.completed", "response": {"tools": []}}),
            json!({"type": "response.completed", "response": {"tools": null, "id": "x"}}),
        ]
    }

    fn stream_of(events: &[Value]) -> String {
        events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
            .collect()
    }

    #[test]
    fn the_echoed_tools_are_left_out_and_everything_else_kept() {
        let events = responses_events();
        let read = read(&stream_of(&events), true, &[]);
        assert_eq!(read.len(), events.len());
        for (skimmed, original) in read.iter().zip(&events) {
            // What the gateway keeps of the event is what it kept before.
            assert_eq!(lean(skimmed), lean(&original.to_string()), "{original}");
            let skimmed: Value = serde_json::from_str(skimmed).unwrap();
            if let Some(response) = skimmed.get("response").and_then(Value::as_object) {
                assert!(!response.contains_key("tools"));
            }
        }
        // The tools never reached the event's text.
        assert!(read.iter().all(|data| !data.contains("parameters")));
    }

    #[test]
    fn any_cut_of_the_stream_reads_the_same() {
        let stream = stream_of(&responses_events());
        let whole = read(&stream, true, &[]);
        for cut in 1..stream.len() {
            assert_eq!(read(&stream, true, &[cut]), whole, "cut at {cut}");
        }
        let cuts: Vec<usize> = (1..stream.len()).collect();
        assert_eq!(read(&stream, true, &cuts), whole, "a byte at a time");
    }

    #[test]
    fn a_key_written_with_escapes_is_copied_and_left_to_the_parse() {
        let data = r#"{"type":"response.created","response":{"id":"r","t\u006fols":[{"a":1}]}}"#;
        let read = read(&format!("data: {data}\n\n"), true, &[]);
        assert_eq!(read, [data]);
        assert_eq!(
            lean(&read[0]),
            json!({"type": "response.created", "response": {"id": "r"}})
        );
    }

    #[test]
    fn sse_framing_as_whatwg_reads_it() {
        let stream = "\u{feff}: a comment\r\nid: 1\r\ndata:{\"a\":\r\ndata: 1}\r\n\r\nevent: x\rdata: [2]\r\rdata\n\nretry: 5\n\ndata: lost";
        assert_eq!(read(stream, false, &[]), ["{\"a\":\n1}", "[2]", ""]);
        assert_eq!(read(stream, true, &[3, 20, 41]), ["{\"a\":\n1}", "[2]", ""]);
    }

    #[test]
    fn a_response_that_is_not_an_object_is_copied() {
        let data = r#"{"response":null,"tools":[1],"x":{"tools":2}}"#;
        assert_eq!(read(&format!("data: {data}\n\n"), true, &[]), [data]);
    }

    #[test]
    fn without_skimming_the_data_is_kept_as_sent() {
        let data = r#"{"response":{"tools":[1]}}"#;
        assert_eq!(read(&format!("data: {data}\n\n"), false, &[]), [data]);
    }

    #[test]
    fn an_event_too_large_or_not_utf8_is_an_error() {
        let mut reader = Events::new(false);
        let mut events = Vec::new();
        let chunk = vec![b'x'; 1024 * 1024];
        reader.feed(b"data: ", &mut events).unwrap();
        let mut failed = None;
        for _ in 0..20 {
            if let Err(why) = reader.feed(&chunk, &mut events) {
                failed = Some(why);
                break;
            }
        }
        assert!(failed.unwrap().contains("more than"));
        let mut reader = Events::new(true);
        let err = reader.feed(b"data: \"\xff\"\n\n", &mut events).unwrap_err();
        assert!(err.contains("UTF-8"), "{err}");
    }
}
