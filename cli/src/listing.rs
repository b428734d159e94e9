//! A server's `tools/list` pages read as raw JSON and put together within limits: a server that
//! pages for ever, loops over its cursors or lists without end must not take this process's
//! memory with it, and a page that is not a `tools/list` result must be named for what it is.
//!
//! Each tool is kept as the server sent it: whether it is a valid MCP tool is the conversion's
//! question (`tooldef::convert` names what is wrong with each, and `--lenient` skips them), so
//! that one invalid tool does not cost the others.

use std::collections::HashMap;

use serde_json::Value;

use crate::input::kind_of;

/// How far a listing is followed. The defaults are far beyond any real server (the largest
/// known list a few hundred tools, a few MiB) and far below what would hurt this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most `tools/list` pages followed.
    pub pages: usize,
    /// The most tools, all pages together.
    pub tools: usize,
    /// The most bytes of `tools/list` results (as JSON), all pages together.
    pub bytes: usize,
}

impl Limits {
    /// The default of `--max-pages`.
    pub const PAGES: usize = 1_000;
    /// The default of `--max-tools`.
    pub const TOOLS: usize = 10_000;
    /// The default of `--max-list-mib`.
    pub const MIB: usize = 64;
}

/// The pages read so far.
#[derive(Debug)]
pub struct Pages {
    limits: Limits,
    tools: Vec<Value>,
    /// How many pages were added.
    count: usize,
    bytes: usize,
    /// Each cursor given, with the page that gave it: a cursor given twice means the server
    /// loops, and would be followed for ever.
    cursors: HashMap<String, usize>,
}

impl Pages {
    /// No pages yet.
    pub fn new(limits: Limits) -> Self {
        Pages {
            limits,
            tools: Vec::new(),
            count: 0,
            bytes: 0,
            cursors: HashMap::new(),
        }
    }

    /// The number the next page will have, from 1.
    pub fn next_number(&self) -> usize {
        self.count + 1
    }

    /// Adds a page, a raw `tools/list` result; the cursor of the page to ask for next, if any.
    /// `Err` is why the listing cannot go on, worded to follow "`COMMAND` did not list its
    /// tools: ".
    pub fn add(&mut self, result: Value) -> Result<Option<String>, String> {
        self.count += 1;
        let page = self.count;
        // Counted before anything is kept: the cursors are kept too, and a cursor can be long.
        self.bytes = self.bytes.saturating_add(json_len(&result));
        if self.bytes > self.limits.bytes {
            return Err(format!(
                "its `tools/list` results came to more than {} MiB of JSON by page {page} \
                 (--max-list-mib {0}): raise --max-list-mib if the server really lists that much",
                self.limits.bytes >> 20
            ));
        }
        let Value::Object(mut result) = result else {
            return Err(format!(
                "its `tools/list` result (page {page}) is not an object (got {}); \
                 an MCP server answers `{{\"tools\": [...]}}`",
                kind_of(&result)
            ));
        };
        let tools = match result.remove("tools") {
            Some(Value::Array(tools)) => tools,
            None => {
                return Err(format!(
                    "its `tools/list` result (page {page}) has no `tools` array; \
                     an MCP server answers `{{\"tools\": [...]}}`"
                ));
            }
            Some(other) => {
                return Err(format!(
                    "its `tools/list` result (page {page}) has a `tools` that is not an array \
                     (got {}); an MCP server answers `{{\"tools\": [...]}}`",
                    kind_of(&other)
                ));
            }
        };
        let cursor = match result.remove("nextCursor") {
            // An empty cursor is taken as none: a few servers send `""` on their last page,
            // and following it would ask for the first page again.
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) if cursor.is_empty() => None,
            Some(Value::String(cursor)) => Some(cursor),
            Some(other) => {
                return Err(format!(
                    "its `tools/list` result (page {page}) has a `nextCursor` that is not a \
                     string (got {})",
                    kind_of(&other)
                ));
            }
        };
        if self.tools.len().saturating_add(tools.len()) > self.limits.tools {
            return Err(format!(
                "it listed more than {} tools by page {page} (--max-tools {0}): \
                 raise --max-tools if the server really has that many",
                self.limits.tools
            ));
        }
        self.tools.extend(tools);
        let Some(cursor) = cursor else {
            return Ok(None);
        };
        if let Some(first) = self.cursors.get(&cursor) {
            return Err(format!(
                "page {page} of its `tools/list` gave the cursor {} that page {first} gave \
                 already: its pagination loops, which is a bug in the server",
                shown_cursor(&cursor)
            ));
        }
        if page >= self.limits.pages {
            return Err(format!(
                "it was still paging after {page} pages of `tools/list` (--max-pages {}): \
                 raise --max-pages if the server really has that many pages; otherwise its \
                 pagination never ends, which is a bug in the server",
                self.limits.pages
            ));
        }
        self.cursors.insert(cursor.clone(), page);
        Ok(Some(cursor))
    }

    /// The tools of every page, in order, as a JSON array, and the number of pages.
    pub fn finish(self) -> (Value, usize) {
        (Value::Array(self.tools), self.count)
    }
}

/// The length of `value` as compact JSON, counted without writing it anywhere.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` fails only when the writer does, and this one does not.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// A cursor for a message: in backquotes, shortened when long (cursors are opaque tokens, some
/// of them kilobytes of base64).
fn shown_cursor(cursor: &str) -> String {
    const MAX_CHARS: usize = 40;
    if cursor.chars().count() <= MAX_CHARS {
        return format!("`{cursor}`");
    }
    let start: String = cursor.chars().take(MAX_CHARS).collect();
    format!("`{start}…`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SMALL: Limits = Limits {
        pages: 3,
        tools: 4,
        bytes: 1 << 20,
    };

    fn tool(name: &str) -> Value {
        json!({"name": name, "inputSchema": {"type": "object"}})
    }

    #[test]
    fn pages_are_put_together_in_order() {
        let mut pages = Pages::new(SMALL);
        let next = pages.add(json!({"tools": [tool("a")], "nextCursor": "2"}));
        assert_eq!(next, Ok(Some("2".to_owned())));
        assert_eq!(pages.next_number(), 2);
        // The tools are kept as sent, invalid ones too: the conversion judges them.
        let next = pages.add(json!({"tools": [tool("b"), {"name": 3}], "nextCursor": ""}));
        assert_eq!(next, Ok(None));
        let (tools, count) = pages.finish();
        assert_eq!(tools, json!([tool("a"), tool("b"), {"name": 3}]));
        assert_eq!(count, 2);
    }

    #[test]
    fn a_page_that_is_not_a_result_is_named_for_what_it_is() {
        let reason = |page: Value| Pages::new(SMALL).add(page).unwrap_err();
        assert_eq!(
            reason(json!("tools")),
            "its `tools/list` result (page 1) is not an object (got a string); \
             an MCP server answers `{\"tools\": [...]}`"
        );
        assert!(
            reason(json!({"tool": []})).starts_with(
                "its `tools/list` result (page 1) has no `tools` array; an MCP server"
            )
        );
        assert!(reason(json!({"tools": {"a": 1}})).starts_with(
            "its `tools/list` result (page 1) has a `tools` that is not an array (got an \
                 object);"
        ));
        assert_eq!(
            reason(json!({"tools": [], "nextCursor": 2})),
            "its `tools/list` result (page 1) has a `nextCursor` that is not a string (got a \
             number)"
        );
    }

    #[test]
    fn each_limit_stops_the_listing_and_says_which() {
        // Pages: the third page still has a next one.
        let mut pages = Pages::new(SMALL);
        for n in 1..=2 {
            assert!(
                pages
                    .add(json!({"tools": [], "nextCursor": n.to_string()}))
                    .is_ok()
            );
        }
        let reason = pages
            .add(json!({"tools": [], "nextCursor": "3"}))
            .unwrap_err();
        assert!(
            reason.starts_with("it was still paging after 3 pages of `tools/list` (--max-pages 3): raise --max-pages"),
            "{reason}"
        );
        // The last page allowed may end the listing.
        let mut pages = Pages::new(SMALL);
        for n in 1..=2 {
            assert!(
                pages
                    .add(json!({"tools": [], "nextCursor": n.to_string()}))
                    .is_ok()
            );
        }
        assert_eq!(pages.add(json!({"tools": []})), Ok(None));

        // Tools.
        let mut pages = Pages::new(SMALL);
        let next = pages.add(json!({"tools": [tool("a"), tool("b")], "nextCursor": "x"}));
        assert!(next.is_ok());
        let reason = pages
            .add(json!({"tools": [tool("c"), tool("d"), tool("e")]}))
            .unwrap_err();
        assert_eq!(
            reason,
            "it listed more than 4 tools by page 2 (--max-tools 4): raise --max-tools if the \
             server really has that many"
        );

        // Bytes: a long description, or a long cursor.
        let limits = Limits {
            pages: 10,
            tools: 10,
            bytes: 1 << 20,
        };
        let long = "x".repeat(600 << 10);
        let mut pages = Pages::new(limits);
        let next = pages.add(json!({"tools": [], "nextCursor": long}));
        assert!(next.is_ok());
        let reason = pages
            .add(json!({"tools": [{"name": "a", "description": long}]}))
            .unwrap_err();
        assert_eq!(
            reason,
            "its `tools/list` results came to more than 1 MiB of JSON by page 2 \
             (--max-list-mib 1): raise --max-list-mib if the server really lists that much"
        );
    }

    #[test]
    fn a_cursor_given_twice_is_a_loop() {
        let mut pages = Pages::new(Limits {
            pages: 100,
            ..SMALL
        });
        assert!(pages.add(json!({"tools": [], "nextCursor": "a"})).is_ok());
        assert!(pages.add(json!({"tools": [], "nextCursor": "b"})).is_ok());
        let reason = pages
            .add(json!({"tools": [], "nextCursor": "a"}))
            .unwrap_err();
        assert_eq!(
            reason,
            "page 3 of its `tools/list` gave the cursor `a` that page 1 gave already: its \
             pagination loops, which is a bug in the server"
        );
        assert_eq!(
            shown_cursor(&"c".repeat(50)),
            format!("`{}…`", "c".repeat(40))
        );
    }
}
