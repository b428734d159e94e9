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
    /// In the line, but longer than [`MAX_CAPTURE`] bytes, or given twice (an `id` given twice
    /// keeps its last value).
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

/// One array or object being read. Objects at depth 1 (the message) and 2 (a member of it) keep
/// their key's text, where members matter; every object keeps a hash of each of its keys, to
/// tell whether one is given twice.
#[derive(Debug, Clone, Default)]
struct Frame {
    is_object: bool,
    /// The next string is a key.
    expect_key: bool,
    /// The key being read or last read, when short enough to matter (depths 1 and 2 only).
    key: Vec<u8>,
    /// The hash of the key being read.
    key_hash: u64,
    /// The hashes of the keys read so far.
    keys: Keys,
}

/// The hashes of an object's keys: a list while there are few (nearly every object), a set
/// beyond, so that an object of 100,000 keys costs no quadratic time.
#[derive(Debug, Clone)]
enum Keys {
    Few(Vec<u64>),
    Many(std::collections::HashSet<u64>),
}

impl Default for Keys {
    fn default() -> Self {
        Keys::Few(Vec::new())
    }
}

impl Keys {
    /// Adds `hash`; whether it was there already.
    fn seen(&mut self, hash: u64) -> bool {
        match self {
            Keys::Few(list) if list.contains(&hash) => true,
            Keys::Few(list) if list.len() < 16 => {
                list.push(hash);
                false
            }
            Keys::Few(list) => {
                let mut set: std::collections::HashSet<u64> = list.drain(..).collect();
                set.insert(hash);
                *self = Keys::Many(set);
                false
            }
            Keys::Many(set) => !set.insert(hash),
        }
    }
}

/// Keys are followed for duplicates this deep; a deeper line is refused for its depth anyway.
pub(super) const MAX_TRACKED_DEPTH: usize = 128;

/// FNV-1a, byte by byte as a key streams in.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

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
    /// The open arrays and objects, outermost first, up to [`MAX_TRACKED_DEPTH`].
    frames: Vec<Frame>,
    /// Some object may have a key twice (or a hash collision says so): the exact check decides.
    pub(super) maybe_duplicate: bool,
    /// A key holds an escape (`"\u0069d"`): its text cannot be compared raw.
    pub(super) escaped_key: bool,
    /// The first byte of the message's `params` value, if it has one.
    pub(super) params_first: Option<u8>,
    /// The message has a `result` or an `error` member (a response).
    pub(super) has_result_or_error: bool,
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
        let mut rest = chunk;
        while let Some((&byte, after)) = rest.split_first() {
            self.byte(byte);
            rest = after;
            // Inside a string that is neither a key nor captured (the arguments' text, nearly
            // all of a line), only `"` and `\` change anything: skip to the next one.
            if self.in_string && !self.escaped && !self.reading_key && self.capturing.is_none() {
                let skip = rest
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\')
                    .unwrap_or(rest.len());
                rest = &rest[skip..];
            }
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
                let depth = self.depth;
                if let Some(frame) = self.frames.last_mut() {
                    if closing {
                        self.reading_key = false;
                        self.maybe_duplicate |= frame.keys.seen(frame.key_hash);
                    } else {
                        frame.key_hash = (frame.key_hash ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
                        self.escaped_key |= byte == b'\\';
                        // Keys longer than any member that matters are not kept whole: they
                        // match nothing.
                        if depth <= 2 && frame.key.len() <= MAX_KEY {
                            frame.key.push(byte);
                        }
                    }
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
                        frame.key_hash = FNV_OFFSET;
                        frame.expect_key = false;
                        self.reading_key = true;
                        self.record(byte);
                    }
                    _ => {
                        self.start_value(byte);
                        self.record(byte);
                    }
                }
            }
            b'{' | b'[' => {
                self.start_value(byte);
                self.record(byte);
                self.depth += 1;
                self.max_depth = self.max_depth.max(self.depth);
                if self.depth <= MAX_TRACKED_DEPTH {
                    self.frames.push(Frame {
                        is_object: byte == b'{',
                        expect_key: byte == b'{',
                        ..Frame::default()
                    });
                }
            }
            b'}' | b']' => {
                // The container at this depth closes: a member captured in it ends here.
                if !self.end_capture_at(self.depth) {
                    self.record(byte);
                }
                if self.depth <= MAX_TRACKED_DEPTH {
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
                self.start_value(byte);
                self.record(byte);
            }
        }
    }

    /// The innermost frame, while the scan follows the depth.
    fn frame(&mut self) -> Option<&mut Frame> {
        if (1..=MAX_TRACKED_DEPTH).contains(&self.depth) {
            self.frames.last_mut()
        } else {
            None
        }
    }

    /// A value starting with `byte` starts here: note what the message's shape needs, and
    /// capture it if it is a member that matters and nothing is being captured.
    fn start_value(&mut self, byte: u8) {
        if self.depth == 1
            && let [message] = self.frames.as_slice()
            && message.is_object
        {
            match message.key.as_slice() {
                b"params" => self.params_first = Some(byte),
                b"result" | b"error" => self.has_result_or_error = true,
                _ => {}
            }
        }
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
            // A request whose `id` is given twice is refused, but under an id its sender waits
            // for: the last, the one JSON.parse, Python's json and serde_json keep. Answered
            // with `null`, it would never be answered at all.
            Captured::Raw(_) if member == Member::Id && !overflow => Captured::Raw(raw),
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
        // Except an `id`: the last is kept, to answer the refusal under it.
        let e = scan(r#"{"id": 1, "id": 2}"#);
        assert_eq!(raw(&e.id), "2");
        let e = scan(r#"{"method": "ping", "method": "tools/list", "id": 1}"#);
        assert_eq!(e.method, Captured::Unusable);
        let long = "x".repeat(2000);
        let e = scan(&format!(r#"{{"id": "{long}", "method": "ping"}}"#));
        assert_eq!(e.id, Captured::Unusable);
        assert_eq!(e.method.as_str().as_deref(), Some("ping"));
    }

    #[test]
    fn keys_given_twice_are_seen_at_any_depth() {
        let e = scan(r#"{"a": {"b": [{"c": 1, "d": 2}]}, "b": 1}"#);
        assert!(!e.maybe_duplicate && !e.escaped_key);
        let e = scan(r#"{"x": [{"c": 1, "d": {"e": 1}, "c": 2}]}"#);
        assert!(e.maybe_duplicate);
        // The same key in sibling objects is not a duplicate.
        let e = scan(r#"{"p": [{"c": 1}, {"c": 2}], "q": {"c": 3}}"#);
        assert!(!e.maybe_duplicate);
        // Many keys: past the list, the set.
        let many: Vec<String> = (0..40).map(|i| format!(r#""k{i}": {i}"#)).collect();
        let e = scan(&format!("{{{}}}", many.join(",")));
        assert!(!e.maybe_duplicate);
        let e = scan(&format!(r#"{{{}, "k33": 0}}"#, many.join(",")));
        assert!(e.maybe_duplicate);
        let e = scan(r#"{"a": {"\u0063": 1, "c": 2}}"#);
        assert!(e.escaped_key);
    }

    #[test]
    fn the_shape_of_the_message() {
        let e = scan(r#"{"jsonrpc": "2.0", "id": 1, "method": "m", "params": [1]}"#);
        assert_eq!(e.params_first, Some(b'['));
        assert!(!e.has_result_or_error);
        let e = scan(r#"{"jsonrpc": "2.0", "id": 1, "result": {"params": 5}}"#);
        assert_eq!(e.params_first, None);
        assert!(e.has_result_or_error);
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
