//! What one streaming pass over a JSON-RPC line tells before it is parsed: how long and how deep
//! it is, and the members an answer needs (`id`, `method`, `params.name`), recovered with bounded
//! memory even from a line too large to keep or too deep to parse. The real parse decides
//! everything else; this only has to be right about well-formed lines and harmless on the rest.

/// The most bytes of a member's raw JSON kept: ids and method names are short, and a member
/// longer than this is not one an answer can echo.
const MAX_CAPTURE: usize = 1024;

/// Keys that matter are at most seven bytes (`jsonrpc`); a longer one is not kept whole.
const MAX_KEY: usize = 8;

/// The members captured, by where they sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Jsonrpc,
    Id,
    Method,
    /// `params.name`: the tool a `tools/call` calls.
    ToolName,
}

/// A captured member's raw JSON text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) enum Captured {
    /// Not in the line.
    #[default]
    Absent,
    /// Its raw JSON text, whitespace trimmed.
    Raw(Vec<u8>),
    /// In the line, but longer than [`MAX_CAPTURE`] bytes or given twice.
    Unusable,
}

impl Captured {
    /// The member as a JSON string's contents, when it is a plain string.
    pub(super) fn as_str(&self) -> Option<String> {
        match self {
            Captured::Raw(raw) => serde_json::from_slice::<String>(raw).ok(),
            _ => None,
        }
    }
}

/// A member's value being captured.
#[derive(Debug)]
struct Capture {
    member: Member,
    /// The depth of the object it is a member of.
    depth: usize,
    raw: Vec<u8>,
    /// More than [`MAX_CAPTURE`] bytes.
    overflow: bool,
}

/// One object being read at depth 1 (the message) or 2 (a member of it), where members matter.
#[derive(Debug, Clone, Default)]
struct Frame {
    is_object: bool,
    /// The next string is a key.
    expect_key: bool,
    /// The key being read or last read, when short enough to matter.
    key: Vec<u8>,
}

/// The streaming scanner. Feed it every byte of a line in order, across as many calls as the
/// reads take; it never holds more than a few small buffers.
#[derive(Debug, Default)]
pub(super) struct Envelope {
    /// Bytes fed so far.
    pub(super) bytes: usize,
    /// The deepest nesting of `[` and `{` seen.
    pub(super) max_depth: usize,
    /// The first byte that is not whitespace (or a byte order mark), if any.
    pub(super) first: Option<u8>,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The frames at depth 1 and 2.
    frames: Vec<Frame>,
    /// The string being read is a key.
    reading_key: bool,
    /// The member whose value is being captured.
    capturing: Option<Capture>,
    pub(super) jsonrpc: Captured,
    pub(super) id: Captured,
    pub(super) method: Captured,
    pub(super) tool_name: Captured,
}

impl Envelope {
    /// Ready for the next line.
    pub(super) fn reset(&mut self) {
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        *self = Envelope {
            frames,
            ..Envelope::default()
        };
    }

    /// Reads `chunk`, the next bytes of the line.
    pub(super) fn feed(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len();
        for &byte in chunk {
            self.byte(byte);
        }
    }

    fn byte(&mut self, byte: u8) {
        if self.in_string {
            let mut closing = false;
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                closing = true;
            }
            // A key inside a captured value (`"id": {"a": 1}`) is part of the value too.
            self.record(byte);
            if self.reading_key {
                if closing {
                    self.reading_key = false;
                } else if let Some(frame) = self.frames.last_mut()
                    && frame.key.len() <= MAX_KEY
                {
                    // Keys longer than any member that matters are not kept whole: they match
                    // nothing.
                    frame.key.push(byte);
                }
            }
            return;
        }
        if self.first.is_none() {
            if byte.is_ascii_whitespace() || matches!(byte, 0xEF | 0xBB | 0xBF) {
                return;
            }
            self.first = Some(byte);
        }
        match byte {
            b'"' => {
                self.in_string = true;
                match self.frame() {
                    Some(frame) if frame.is_object && frame.expect_key => {
                        frame.key.clear();
                        frame.expect_key = false;
                        self.reading_key = true;
                        self.record(byte);
                    }
                    _ => {
                        self.start_value();
                        self.record(byte);
                    }
                }
            }
            b'{' | b'[' => {
                self.start_value();
                self.record(byte);
                self.depth += 1;
                self.max_depth = self.max_depth.max(self.depth);
                if self.depth <= 2 {
                    self.frames.push(Frame {
                        is_object: byte == b'{',
                        expect_key: byte == b'{',
                        key: Vec::new(),
                    });
                }
            }
            b'}' | b']' => {
                // The container at this depth closes: a member captured in it ends here.
                if !self.end_capture_at(self.depth) {
                    self.record(byte);
                }
                if self.depth <= 2 {
                    self.frames.pop();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' => {
                if !self.end_capture_at(self.depth) {
                    self.record(byte);
                }
                if let Some(frame) = self.frame() {
                    frame.expect_key = frame.is_object;
                }
            }
            _ if byte.is_ascii_whitespace() => {
                // Inside a value (`[1, 2]`) spaces are kept; around it they are not.
                if self
                    .capturing
                    .as_ref()
                    .is_some_and(|capture| !capture.raw.is_empty())
                {
                    self.record(byte);
                }
            }
            b':' => self.record(byte),
            _ => {
                self.start_value();
                self.record(byte);
            }
        }
    }

    /// The innermost frame, while the scan is at depth 1 or 2.
    fn frame(&mut self) -> Option<&mut Frame> {
        if (1..=2).contains(&self.depth) {
            self.frames.last_mut()
        } else {
            None
        }
    }

    /// A value starts at the current position: capture it if it is a member that matters and
    /// nothing is being captured.
    fn start_value(&mut self) {
        if self.capturing.is_some() {
            return;
        }
        let member = match (self.depth, self.frames.as_slice()) {
            (1, [message]) if message.is_object => match message.key.as_slice() {
                b"jsonrpc" => Some(Member::Jsonrpc),
                b"id" => Some(Member::Id),
                b"method" => Some(Member::Method),
                _ => None,
            },
            (2, [message, params]) if message.key == b"params" && params.is_object => {
                (params.key == b"name").then_some(Member::ToolName)
            }
            _ => None,
        };
        if let Some(member) = member {
            self.capturing = Some(Capture {
                member,
                depth: self.depth,
                raw: Vec::new(),
                overflow: false,
            });
        }
    }

    /// A byte of the value being captured.
    fn record(&mut self, byte: u8) {
        if let Some(capture) = &mut self.capturing {
            if capture.raw.len() < MAX_CAPTURE {
                capture.raw.push(byte);
            } else {
                capture.overflow = true;
            }
        }
    }

    /// A `,` or closing bracket at `depth`: the member captured at that depth, if any, is
    /// complete. Whether one was.
    fn end_capture_at(&mut self, depth: usize) -> bool {
        if self
            .capturing
            .as_ref()
            .is_none_or(|capture| capture.depth != depth)
        {
            return false;
        }
        let Some(Capture {
            member,
            mut raw,
            overflow,
            ..
        }) = self.capturing.take()
        else {
            return false;
        };
        while raw.last().is_some_and(u8::is_ascii_whitespace) {
            raw.pop();
        }
        let slot = match member {
            Member::Jsonrpc => &mut self.jsonrpc,
            Member::Id => &mut self.id,
            Member::Method => &mut self.method,
            Member::ToolName => &mut self.tool_name,
        };
        *slot = match slot {
            Captured::Absent if !overflow => Captured::Raw(raw),
            _ => Captured::Unusable,
        };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(line: &str) -> Envelope {
        let mut envelope = Envelope::default();
        // Byte by byte and all at once must agree: reads split lines anywhere.
        for byte in line.as_bytes() {
            envelope.feed(std::slice::from_ref(byte));
        }
        let mut whole = Envelope::default();
        whole.feed(line.as_bytes());
        assert_eq!(format!("{envelope:?}"), format!("{whole:?}"));
        envelope
    }

    fn raw(captured: &Captured) -> &str {
        match captured {
            Captured::Raw(raw) => std::str::from_utf8(raw).unwrap(),
            other => panic!("not captured: {other:?}"),
        }
    }

    #[test]
    fn members_are_found_wherever_they_are() {
        let e = scan(
            r#"{"params": {"arguments": {"id": 9, "name": "x", "method": "y"}, "name": "get_weather"}, "method" : "tools/call", "id": 17, "jsonrpc": "2.0"}"#,
        );
        assert_eq!(raw(&e.id), "17");
        assert_eq!(raw(&e.method), r#""tools/call""#);
        assert_eq!(raw(&e.jsonrpc), r#""2.0""#);
        assert_eq!(e.tool_name.as_str().as_deref(), Some("get_weather"));
        assert_eq!(e.max_depth, 3);
        assert_eq!(e.first, Some(b'{'));
    }

    #[test]
    fn ids_keep_their_exact_text() {
        for id in [
            "18446744073709551616",
            "7e3",
            "1.0",
            r#""a\"b,}""#,
            "null",
            "[1, 2]",
            r#"{"a": 1}"#,
        ] {
            let e = scan(&format!(
                r#"{{"jsonrpc":"2.0","id": {id} ,"method":"ping"}}"#
            ));
            assert_eq!(raw(&e.id), id);
            assert_eq!(e.method.as_str().as_deref(), Some("ping"));
            let e = scan(&format!(r#"{{"method":"ping","id":{id}}}"#));
            assert_eq!(raw(&e.id), id);
        }
    }

    #[test]
    fn twice_or_too_long_is_unusable() {
        let e = scan(r#"{"id": 1, "id": 2}"#);
        assert_eq!(e.id, Captured::Unusable);
        let long = "x".repeat(2000);
        let e = scan(&format!(r#"{{"id": "{long}", "method": "ping"}}"#));
        assert_eq!(e.id, Captured::Unusable);
        assert_eq!(e.method.as_str().as_deref(), Some("ping"));
    }

    #[test]
    fn depth_and_absence() {
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        let e = scan(&format!(
            r#"{{"id": 3, "params": {{"arguments": {{"a": {deep}}}}}}}"#
        ));
        assert_eq!(e.max_depth, 5003);
        assert_eq!(raw(&e.id), "3");
        assert_eq!(e.method, Captured::Absent);
        let e = scan(r#"  [{"id": 1}]"#);
        assert_eq!(e.first, Some(b'['));
        assert_eq!(e.id, Captured::Absent);
    }
}
