//! An upstream's event stream cut into events, holding no more than the event being read.
//!
//! A Responses upstream repeats the request's tools (about 115 KB for 100 injected tools) in
//! `response.created`, `response.in_progress` and `response.completed`. A reader that keeps the
//! buffer its longest line grew (as `sse-stream` does, to reuse it) holds that much for the rest
//! of each stream: 157 MB at 1,000 streamed Responses conversations at once, measured with
//! heaptrack (docs/BENCHMARKS.md). Here a line's buffer is given back once a long line is read,
//! and an event's data leaves with the event.
//!
//! The framing is the WHATWG one: lines end in `\n`, `\r\n` or `\r`; `data:` lines are joined
//! with `\n`; a blank line ends an event; comments (`:`) and other fields are skipped; one space
//! after the colon is not part of the value; a BOM at the start is ignored.

use crate::upstream::Echo;

/// The most an event's data may hold: more is an upstream gone wrong, not an answer.
const MAX_EVENT: usize = 16 * 1024 * 1024;

/// A line buffer above this is given back once its line is read, not kept for the next.
const KEPT_LINE: usize = 8 * 1024;

/// The events of a stream, read from its chunks as they come.
#[derive(Default)]
pub struct Reader {
    /// The start of a line that a chunk cut, until it shows itself a `data` line.
    line: Vec<u8>,
    /// A chunk cut a `data` line, whose value so far is already at the end of `data`: a long
    /// value goes straight there, never into `line` first.
    in_data: bool,
    /// The data of the event being read.
    data: Vec<u8>,
    /// Whether the event has a `data` field (an empty one counts).
    has_data: bool,
    /// The last chunk ended in `\r`: a `\n` that starts the next one ends nothing more.
    after_cr: bool,
    /// Whether anything was read (a BOM is skipped only at the very start).
    started: bool,
    /// How many bytes of data the event being read had, `echo`'s skipped ones included.
    read: usize,
    /// Leaves out the tools a Responses upstream echoes, as they arrive.
    echo: Option<Echo>,
}

impl Reader {
    /// A reader of a Responses upstream's stream, whose events' data leave out the tools it
    /// echoes (see [`Echo`]).
    pub fn without_echo() -> Reader {
        Reader {
            echo: Some(Echo::default()),
            ..Reader::default()
        }
    }

    /// Reads a chunk; each event it completes is added to `events` as its data.
    pub fn feed(&mut self, chunk: &[u8], events: &mut impl Extend<String>) -> Result<(), String> {
        let mut bytes = chunk;
        if !self.started && !bytes.is_empty() {
            self.started = true;
            bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        }
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            bytes = bytes.strip_prefix(b"\n").unwrap_or(bytes);
        }
        // memchr's vectorised search: a byte-by-byte `position` over a streamed Responses echo
        // (115 KB three times a round) was a fifth of the gateway's CPU in perf.
        while let Some(end) = memchr::memchr2(b'\n', b'\r', bytes) {
            if std::mem::take(&mut self.in_data) {
                self.push_data(&bytes[..end])?;
            } else if self.line.is_empty() {
                self.line_read(&bytes[..end], events)?;
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&bytes[..end]);
                self.line_read(&line, events)?;
                line.clear();
                if line.capacity() <= KEPT_LINE {
                    self.line = line;
                }
            }
            let cr = bytes[end] == b'\r';
            bytes = &bytes[end + 1..];
            if cr {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        if self.in_data {
            return self.push_data(bytes);
        }
        if self.line.len() + bytes.len() > MAX_EVENT {
            return Err(too_long());
        }
        self.line.extend_from_slice(bytes);
        // Once the cut line shows itself a `data` line with a byte of its value (which says
        // whether the space after the colon is there), its value moves on to `data`.
        if self.line.len() > b"data:".len() && self.line.starts_with(b"data:") {
            let line = std::mem::take(&mut self.line);
            self.start_data(&line[b"data:".len()..])?;
            self.in_data = true;
        }
        Ok(())
    }

    /// A `data` line's value begins (the space after the colon not part of it).
    fn start_data(&mut self, value: &[u8]) -> Result<(), String> {
        if self.has_data {
            self.push_data(b"\n")?;
        }
        self.has_data = true;
        self.push_data(value.strip_prefix(b" ").unwrap_or(value))
    }

    fn push_data(&mut self, value: &[u8]) -> Result<(), String> {
        self.read += value.len();
        if self.read > MAX_EVENT {
            return Err(too_long());
        }
        match &mut self.echo {
            Some(echo) => echo.feed(value, &mut self.data),
            None => self.data.extend_from_slice(value),
        }
        Ok(())
    }

    fn line_read(&mut self, line: &[u8], events: &mut impl Extend<String>) -> Result<(), String> {
        if line.is_empty() {
            self.read = 0;
            if let Some(echo) = &mut self.echo {
                echo.reset();
            }
            if std::mem::take(&mut self.has_data) {
                let data = std::mem::take(&mut self.data);
                let data = String::from_utf8(data)
                    .map_err(|_| "the upstream sent an event that is not UTF-8".to_owned())?;
                events.extend([data]);
            }
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => (&line[..colon], &line[colon + 1..]),
            // A line that names a field without a colon is that field with no value.
            None => (line, &[][..]),
        };
        // Comments (an empty name) and the fields the gateway does not use (`event`, `id`,
        // `retry`) are skipped: Responses repeats the event's name as its data's `type`.
        if field != b"data" {
            return Ok(());
        }
        self.start_data(value)
    }
}

fn too_long() -> String {
    format!("the upstream sent an event of more than {MAX_EVENT} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of `stream` fed in chunks cut at `cuts`.
    fn read(stream: &str, cuts: &[usize]) -> Vec<String> {
        let mut reader = Reader::default();
        let mut events = Vec::new();
        let mut at = 0;
        for &cut in cuts.iter().chain([&stream.len()]) {
            reader
                .feed(&stream.as_bytes()[at..cut], &mut events)
                .unwrap();
            at = cut;
        }
        events
    }

    const STREAM: &str = "\u{feff}: a comment\r\n\
        event: response.created\r\n\
        data: {\"type\":\"response.created\"}\r\n\r\n\
        id: 7\n\
        retry: 10\n\
        data:{\"a\":1}\n\
        data:  two\n\
        data\n\n\
        data: [DONE]\r\r\
        event: nothing\n\n\
        data: last";

    #[test]
    fn events_are_read_as_whatwg_frames_them() {
        let expected = [
            "{\"type\":\"response.created\"}",
            "{\"a\":1}\n two\n",
            "[DONE]",
        ];
        assert_eq!(read(STREAM, &[]), expected);
    }

    #[test]
    fn every_cut_of_a_stream_reads_the_same() {
        let whole = read(STREAM, &[]);
        for cut in 1..STREAM.len() {
            assert_eq!(read(STREAM, &[cut]), whole, "cut at byte {cut}");
        }
        let every_byte: Vec<usize> = (1..STREAM.len()).collect();
        assert_eq!(read(STREAM, &every_byte), whole, "a byte at a time");
    }

    #[test]
    fn a_long_line_is_not_kept_after_it_is_read() {
        let long = format!("data: {}\n\n", "x".repeat(115_000));
        let mut reader = Reader::default();
        let mut events = Vec::new();
        for piece in long.as_bytes().chunks(8192) {
            reader.feed(piece, &mut events).unwrap();
        }
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].len(), 115_000);
        assert_eq!(reader.line.capacity(), 0);
        assert_eq!(reader.data.capacity(), 0);
    }

    #[test]
    fn echoed_tools_are_never_held() {
        let tool = r#"{"type":"function","name":"t","description":"a \"quoted\" word","parameters":{"type":"object"}}"#;
        let tools = vec![tool; 1_200].join(",");
        let stream = format!(
            "event: response.created\ndata: {{\"type\":\"response.created\",\"response\":{{\"id\":\"r\",\"tools\":[{tools}],\"output\":[]}}}}\n\n"
        );
        assert!(stream.len() > 115_000);
        let mut reader = Reader::without_echo();
        let mut events = Vec::new();
        for piece in stream.as_bytes().chunks(8192) {
            reader.feed(piece, &mut events).unwrap();
            assert!(reader.data.capacity() <= 64, "{}", reader.data.capacity());
        }
        assert_eq!(
            events,
            [r#"{"type":"response.created","response":{"id":"r","output":[]}}"#]
        );
        // The echo's bytes still count towards an event's limit.
        let mut reader = Reader::without_echo();
        let piece = format!("\"{}\",", "x".repeat(1024 * 1024));
        reader.feed(b"data: {\"tools\":[", &mut events).unwrap();
        let refused = (0..17).find_map(|_| reader.feed(piece.as_bytes(), &mut events).err());
        assert!(refused.is_some());
    }

    #[test]
    fn an_endless_event_is_refused() {
        let mut reader = Reader::default();
        let mut events = Vec::new();
        let piece = "x".repeat(1024 * 1024);
        reader.feed(b"data: ", &mut events).unwrap();
        let refused = (0..17).find_map(|_| reader.feed(piece.as_bytes(), &mut events).err());
        assert_eq!(
            refused.as_deref(),
            Some("the upstream sent an event of more than 16777216 bytes")
        );
        let mut reader = Reader::default();
        let line = format!("data: {piece}\n");
        let refused = (0..17).find_map(|_| reader.feed(line.as_bytes(), &mut events).err());
        assert!(refused.is_some());
    }

    #[test]
    fn data_that_is_not_utf8_is_refused() {
        let mut reader = Reader::default();
        let mut events = Vec::new();
        assert!(reader.feed(b"data: \xff\n\n", &mut events).is_err());
    }
}
