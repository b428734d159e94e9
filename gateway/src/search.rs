//! Tool search: ranking the tools a request could have by a model's query.
//!
//! When a request would carry more tools than the upstream API accepts (OpenAI's 128), the gateway
//! gives the model pinned tools plus one search tool, and adds the best matches of its query to the
//! next round's tools. This module is that ranking: Okapi BM25 over each tool's name, parameter
//! names and description.
//!
//! BM25 is written here rather than taken from the `bm25` crate: that crate's only required
//! dependency, `fxhash`, is flagged unmaintained (RUSTSEC-2025-0057), it orders equal scores by
//! `HashSet` iteration (not deterministic), and it identifies terms by their hash; with our own
//! tokenisation (the part that matters) the formula left to write is a few lines.
//!
//! Tokenisation is what makes a model's query meet a tool's words: names are split at `_`, `-`,
//! `.`, `/` and camelCase boundaries, everything is lowercased, stop words are dropped, and a
//! light stemmer brings inflections together, the same way for tools and queries.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

/// BM25's term-frequency saturation: the usual value.
const K1: f64 = 1.2;
/// BM25's length normalisation: the usual value.
const B: f64 = 0.75;

/// How many times a tool's name counts against its description. A name is a few curated words
/// saying what the tool does (`create_pull_request`), the words a model's query paraphrases; a
/// description is longer and names neighbouring concepts too ("... of a pull request" in dozens of
/// tools). Repeating the name's tokens raises their term frequency so a name match outranks a
/// passing mention, while BM25's saturation (`K1`) keeps a name from drowning the description,
/// which still separates tools whose names share words. Parameter names count once, like
/// description words: they hint at the objects a tool handles (`issue_number`, `path`) but most are
/// shared (`owner`, `repo`, `page`).
const NAME_WEIGHT: usize = 3;

/// What a tool is found by: its name, its parameters' names and its description.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolDoc {
    /// The tool's name, as the model would call it (`github__create_pull_request`).
    pub name: String,
    /// What the tool says it does.
    pub description: String,
    /// The names of the top-level properties of its input schema.
    pub parameters: Vec<String>,
}

impl ToolDoc {
    /// The document of a tool in any of the shapes the gateway sees: an MCP tool (`name`,
    /// `description`, `inputSchema`), a Chat Completions tool (`{type: function, function: {name,
    /// description, parameters}}`) or a Responses tool (`{type: function, name, description,
    /// parameters}`). A field that is missing or not of its type reads as empty, so that one odd
    /// tool costs its own findability rather than the whole index.
    pub(crate) fn of_tool(tool: &Value) -> ToolDoc {
        let tool = tool
            .get("function")
            .filter(|f| f.is_object())
            .unwrap_or(tool);
        let text = |key: &str| {
            tool.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let schema = tool.get("inputSchema").or_else(|| tool.get("parameters"));
        let parameters = schema
            .and_then(|schema| schema.get("properties"))
            .and_then(Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default();
        ToolDoc {
            name: text("name"),
            description: text("description"),
            parameters,
        }
    }

    /// The document's tokens, the name's repeated [`NAME_WEIGHT`] times.
    fn tokens(&self) -> Vec<String> {
        let name = tokenize(&self.name);
        let mut tokens = Vec::with_capacity(name.len() * NAME_WEIGHT);
        for _ in 0..NAME_WEIGHT {
            tokens.extend(name.iter().cloned());
        }
        for parameter in &self.parameters {
            tokens.extend(tokenize(parameter));
        }
        tokens.extend(tokenize(&self.description));
        tokens
    }
}

/// A BM25 index of tools, built once for a set of tools and searched by position.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolIndex {
    /// For each term, the documents holding it (ascending positions) with its count there.
    postings: HashMap<String, Vec<(usize, u32)>>,
    /// Each document's number of tokens.
    lengths: Vec<u32>,
    /// The mean of `lengths` (0 for an empty index).
    average_length: f64,
}

impl ToolIndex {
    /// The index of `docs`, which [`search`](Self::search) then names by their positions.
    pub(crate) fn new(docs: impl IntoIterator<Item = ToolDoc>) -> ToolIndex {
        let mut postings: HashMap<String, Vec<(usize, u32)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (position, doc) in docs.into_iter().enumerate() {
            let tokens = doc.tokens();
            lengths.push(u32::try_from(tokens.len()).unwrap_or(u32::MAX));
            let mut counts: HashMap<String, u32> = HashMap::new();
            for token in tokens {
                *counts.entry(token).or_default() += 1;
            }
            // Positions are pushed in increasing order, so each posting list stays sorted.
            for (term, count) in counts {
                postings.entry(term).or_default().push((position, count));
            }
        }
        let total: u64 = lengths.iter().map(|&length| u64::from(length)).sum();
        let average_length = if lengths.is_empty() {
            0.0
        } else {
            total as f64 / lengths.len() as f64
        };
        ToolIndex {
            postings,
            lengths,
            average_length,
        }
    }

    /// The number of tools indexed.
    pub(crate) fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Positions of the best matches of `query`, best first, at most `limit`. Equal scores are
    /// ordered by position so that the same query over the same tools always gives the same
    /// tools; a tool sharing no term with the query (score 0) is not returned.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        if limit == 0 || self.average_length == 0.0 {
            return Vec::new();
        }
        let terms = query_terms(query);
        let documents = self.len() as f64;
        let mut scores = vec![0.0_f64; self.len()];
        for term in &terms {
            let Some(postings) = self.postings.get(term) else {
                continue;
            };
            let holding = postings.len() as f64;
            // Robertson–Spärck Jones IDF with +1 inside the logarithm: never negative, so a term
            // found in most tools still counts (a little) instead of penalising them.
            let idf = (1.0 + (documents - holding + 0.5) / (holding + 0.5)).ln();
            for &(position, count) in postings {
                let frequency = f64::from(count);
                let length = f64::from(self.lengths[position]) / self.average_length;
                scores[position] +=
                    idf * frequency * (K1 + 1.0) / (frequency + K1 * (1.0 - B + B * length));
            }
        }
        let mut found: Vec<(usize, f64)> = scores
            .into_iter()
            .enumerate()
            .filter(|&(_, score)| score > 0.0)
            .collect();
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        found.truncate(limit);
        found.into_iter().map(|(position, _)| position).collect()
    }
}

/// Words too common in requests and descriptions to tell tools apart. Kept short: a word that
/// names an action or an object (`get`, `list`, `new`, `all`) stays, since a tool's name may be it.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "but", "by", "can", "could", "do", "does", "e", "eg", "for", "from", "g", "had",
    "has", "have", "he", "her", "his", "how", "i", "ie", "if", "in", "into", "is", "it", "its",
    "just", "let", "like", "may", "me", "might", "must", "my", "of", "on", "or", "our", "please",
    "she", "should", "so", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "this", "those", "to", "us", "via", "was", "we", "were", "what", "when", "where",
    "which", "who", "whose", "will", "with", "would", "you", "your",
];

/// The terms of `text`: words split at non-alphanumeric characters and camelCase boundaries,
/// lowercased, stop words dropped, each stemmed.
pub(crate) fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for piece in text.split(|c: char| !c.is_alphanumeric()) {
        for word in split_camel_case(piece) {
            let word = word.to_lowercase();
            if STOP_WORDS.binary_search(&word.as_str()).is_err() {
                tokens.push(stem(&word));
            }
        }
    }
    tokens
}

/// Words a model uses for what tools name otherwise, each with the words it adds to a query:
/// "open a pull request" is `create_pull_request`, "read a file" is `get_file_contents`. Only
/// queries are expanded, and the original word stays, so a tool that does use the model's word
/// (an issue's `open` state) is still found by it. Kept to general verbs of tool names and common
/// abbreviations; anything domain-specific belongs to the tools' descriptions.
const SYNONYMS: &[(&str, &str)] = &[
    ("change", "update"),
    ("dir", "directory"),
    ("edit", "update"),
    ("erase", "delete"),
    ("fetch", "get"),
    ("find", "search"),
    ("lookup", "search get"),
    ("make", "create"),
    ("modify", "update"),
    ("open", "create"),
    ("pr", "pull request"),
    ("prs", "pull request"),
    ("read", "get"),
    ("remove", "delete"),
    ("repo", "repository"),
    ("retrieve", "get"),
    ("show", "get"),
    ("view", "get"),
];

/// The distinct terms of a query, with the terms its words stand for in [`SYNONYMS`]. A set, in a
/// fixed order: a word repeated by the model does not count twice, and the floating-point sum of
/// a score does not depend on the query's word order.
fn query_terms(query: &str) -> BTreeSet<String> {
    let mut terms = BTreeSet::new();
    for term in tokenize(query) {
        if let Some((_, expansion)) = SYNONYMS.iter().find(|(word, _)| stem(word) == term) {
            terms.extend(tokenize(expansion));
        }
        terms.insert(term);
    }
    terms
}

/// `piece` (alphanumeric) split where a lowercase letter or digit meets an uppercase one
/// (`getPullRequest` → get, Pull, Request) and before the last capital of an acronym followed by
/// lowercase (`HTTPServer` → HTTP, Server).
fn split_camel_case(piece: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let mut words = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, current) = chars[i];
        let previous = chars[i - 1].1;
        let next_is_lower = chars.get(i + 1).is_some_and(|&(_, c)| c.is_lowercase());
        let boundary = current.is_uppercase()
            && (previous.is_lowercase()
                || previous.is_numeric()
                || (previous.is_uppercase() && next_is_lower));
        if boundary {
            words.push(&piece[start..at]);
            start = at;
        }
    }
    if start < piece.len() {
        words.push(&piece[start..]);
    }
    words
}

/// A light English stemmer for lowercase words: plurals to singular, then `-ing`/`-ed` off, then a
/// final `e` off, so that "merge", "merges", "merged" and "merging" meet, as do "repository" and
/// "repositories". The stems need not be words, only equal for a word's forms: the same function
/// reads the tools and the queries.
fn stem(word: &str) -> String {
    let mut stem = word.to_owned();
    // Plurals (and third persons).
    if stem.len() > 4 && stem.ends_with("ies") {
        stem.truncate(stem.len() - 3);
        stem.push('y');
    } else if ["sses", "shes", "ches", "xes", "zes"]
        .iter()
        .any(|suffix| stem.ends_with(suffix))
    {
        stem.truncate(stem.len() - 2);
    } else if stem.len() > 3
        && stem.ends_with('s')
        && !["ss", "us", "is"]
            .iter()
            .any(|suffix| stem.ends_with(suffix))
    {
        stem.pop();
    }
    // Past participles and gerunds, when a syllable is left ("red" and "string" stay).
    let mut suffixed = false;
    if stem.len() > 4 && stem.ends_with("ied") {
        stem.truncate(stem.len() - 3);
        stem.push('y');
    } else if let Some(base) = stem
        .strip_suffix("ing")
        .or_else(|| stem.strip_suffix("ed"))
        .filter(|base| base.len() >= 3 && base.contains(is_vowel) && !base.ends_with('e'))
        .map(str::len)
    {
        stem.truncate(base);
        suffixed = true;
    }
    // "merg(ing)" and "merge" meet by dropping a final e; "starr(ed)" and "star" by undoubling.
    if stem.len() > 3 && stem.ends_with('e') {
        stem.pop();
    } else if suffixed {
        let bytes = stem.as_bytes();
        let last = bytes[bytes.len() - 1];
        if bytes[bytes.len() - 2] == last
            && !matches!(last, b'l' | b's' | b'z')
            && !is_vowel(last.into())
        {
            stem.pop();
        }
    }
    stem
}

/// Whether `c` is an English vowel (with `y`, which carries the syllable of "sync" and "reply").
fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// github-mcp-server's `tools/list`: 117 real tools.
    const GITHUB: &str = include_str!("../../tests/fixtures/corpus/github-mcp-server.tools.json");

    fn github_tools() -> Vec<Value> {
        let listed: Value = serde_json::from_str(GITHUB).unwrap();
        listed["tools"].as_array().unwrap().clone()
    }

    fn github_index() -> (ToolIndex, Vec<String>) {
        let tools = github_tools();
        let docs: Vec<ToolDoc> = tools.iter().map(ToolDoc::of_tool).collect();
        let names = docs.iter().map(|doc| doc.name.clone()).collect();
        (ToolIndex::new(docs), names)
    }

    fn top<'a>(index: &ToolIndex, names: &'a [String], query: &str, limit: usize) -> Vec<&'a str> {
        index
            .search(query, limit)
            .into_iter()
            .map(|position| names[position].as_str())
            .collect()
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn names_split_at_separators_and_camel_case() {
        assert_eq!(tokenize("getPullRequest"), ["get", "pull", "request"]);
        assert_eq!(tokenize("get_pull_request"), ["get", "pull", "request"]);
        assert_eq!(
            tokenize("get-pull.request/x y"),
            ["get", "pull", "request", "x", "y"]
        );
        assert_eq!(tokenize("HTTPServer"), ["http", "server"]);
        assert_eq!(split_camel_case("perPage"), ["per", "Page"]);
        assert_eq!(split_camel_case("pullNumber"), ["pull", "Number"]);
        assert_eq!(split_camel_case("ID"), ["ID"]);
        assert_eq!(tokenize("perPage"), tokenize("per page"));
        assert_eq!(tokenize("sha256Sum"), ["sha256", "sum"]);
    }

    #[test]
    fn prefixed_names_tokenise_to_the_same_words() {
        let plain = tokenize("create_pull_request");
        let mut prefixed = tokenize("github__create_pull_request");
        assert_eq!(prefixed.remove(0), "github");
        assert_eq!(prefixed, plain);
    }

    #[test]
    fn stop_words_are_dropped() {
        assert_eq!(
            tokenize("List the issues of a repository for me"),
            tokenize("list issues repository")
        );
        assert!(tokenize("to the of and or").is_empty());
    }

    #[test]
    fn the_forms_of_a_word_share_a_stem() {
        let families: &[&[&str]] = &[
            &["merge", "merges", "merged", "merging"],
            &["repository", "repositories"],
            &["issue", "issues"],
            &["branch", "branches"],
            &["create", "creates", "created", "creating"],
            &["list", "lists", "listed", "listing"],
            &["star", "stars", "starred", "starring"],
            &["commit", "commits", "committed"],
            &["push", "pushes", "pushed"],
            &["dependency", "dependencies"],
            &["release", "releases"],
            &["update", "updated", "updating"],
            &["file", "files"],
            &["pull", "pulled", "pulling"],
            &["access", "accessed"],
        ];
        for family in families {
            let stems: BTreeSet<String> = family.iter().map(|word| stem(word)).collect();
            assert_eq!(stems.len(), 1, "{family:?} → {stems:?}");
        }
        // Words the stemmer must leave alone.
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("string"), "string");
        assert_eq!(stem("red"), "red");
        assert_ne!(stem("use"), "");
    }

    #[test]
    fn tool_docs_read_all_three_shapes() {
        let schema = json!({"type": "object", "properties": {"owner": {}, "repo": {}}});
        let expected = ToolDoc {
            name: "list_issues".into(),
            description: "List issues".into(),
            parameters: vec!["owner".into(), "repo".into()],
        };
        let mcp =
            json!({"name": "list_issues", "description": "List issues", "inputSchema": schema});
        let chat = json!({"type": "function", "function": {
            "name": "list_issues", "description": "List issues", "parameters": schema}});
        let responses = json!({"type": "function", "name": "list_issues",
            "description": "List issues", "parameters": schema});
        assert_eq!(ToolDoc::of_tool(&mcp), expected);
        assert_eq!(ToolDoc::of_tool(&chat), expected);
        assert_eq!(ToolDoc::of_tool(&responses), expected);
        assert_eq!(ToolDoc::of_tool(&json!({"name": 3})), ToolDoc::default());
    }

    #[test]
    fn the_github_corpus_is_whole() {
        let (index, names) = github_index();
        assert_eq!(index.len(), 117);
        assert_eq!(names.iter().collect::<BTreeSet<_>>().len(), 117);
    }

    #[test]
    fn queries_by_purpose_find_the_tool_in_the_top_three() {
        let (index, names) = github_index();
        let cases = [
            ("open a pull request", "create_pull_request"),
            (
                "create a pull request from my branch",
                "create_pull_request",
            ),
            ("list the issues of a repository", "list_issues"),
            ("search code", "search_code"),
            (
                "find where a function is defined across repositories",
                "search_code",
            ),
            ("get the contents of a file", "get_file_contents"),
            ("read a file from the repo", "get_file_contents"),
            ("merge a PR", "merge_pull_request"),
            ("merge a pull request", "merge_pull_request"),
            ("create a new branch", "create_branch"),
            ("list branches", "list_branches"),
            ("fork a repository", "fork_repository"),
            ("who am I, my GitHub profile", "get_me"),
            ("push several files in one commit", "push_files"),
            ("list commits of a branch", "list_commits"),
            ("star a repository", "star_repository"),
            ("comment on an issue", "add_issue_comment"),
            ("open a new issue", "create_issue"),
            ("get the latest release", "get_latest_release"),
            ("list dependabot alerts", "list_dependabot_alerts"),
            ("create a gist", "create_gist"),
            ("list my notifications", "list_notifications"),
            (
                "request reviewers for a pull request",
                "request_pull_request_reviewers",
            ),
            ("searchRepositories", "search_repositories"),
        ];
        let mut misses = Vec::new();
        for (query, tool) in cases {
            let found = top(&index, &names, query, 3);
            if !found.contains(&tool) {
                misses.push(format!("{query:?}: wanted {tool}, got {found:?}"));
            }
        }
        assert!(misses.is_empty(), "{}", misses.join("\n"));
    }

    #[test]
    fn results_are_deterministic_and_ties_go_by_position() {
        let (index, names) = github_index();
        let first = index.search("pull request review comment", 20);
        for _ in 0..5 {
            assert_eq!(
                github_index().0.search("pull request review comment", 20),
                first
            );
        }
        // Word order does not change the ranking.
        assert_eq!(index.search("comment review request pull", 20), first);
        assert!(
            first.len() <= 20 && !first.is_empty(),
            "{:?}",
            top(&index, &names, "pull", 20)
        );

        // Identical tools tie; the earlier one comes first.
        let doc = ToolDoc {
            name: "get_weather".into(),
            description: "Weather of a city".into(),
            parameters: vec!["city".into()],
        };
        let other = ToolDoc {
            name: "list_files".into(),
            ..ToolDoc::default()
        };
        let index = ToolIndex::new([other, doc.clone(), doc.clone(), doc]);
        assert_eq!(index.search("weather", 10), [1, 2, 3]);
        assert_eq!(index.search("weather", 2), [1, 2]);
    }

    #[test]
    fn limits_empty_queries_and_unknown_words_return_nothing_more() {
        let (index, names) = github_index();
        assert!(index.search("", 10).is_empty());
        assert!(index.search("   the of a  ", 10).is_empty());
        assert!(index.search("zzyzx quuxplorf", 10).is_empty());
        assert!(index.search("pull request", 0).is_empty());
        assert_eq!(index.search("pull request", 5).len(), 5);
        assert!(ToolIndex::new([]).search("pull request", 5).is_empty());
        // Every tool matching a common word is returned when the limit allows.
        let all = index.search("repository", 1000);
        assert!(
            all.len() > 50 && all.len() < names.len() + 1,
            "{}",
            all.len()
        );
    }

    #[test]
    fn prefixed_tools_rank_as_their_plain_names() {
        let tools = github_tools();
        let plain = ToolIndex::new(tools.iter().map(ToolDoc::of_tool));
        let prefixed = ToolIndex::new(tools.iter().map(|tool| {
            let mut doc = ToolDoc::of_tool(tool);
            doc.name = format!("github__{}", doc.name);
            doc
        }));
        for query in [
            "open a pull request",
            "search code",
            "get the contents of a file",
        ] {
            assert_eq!(prefixed.search(query, 1), plain.search(query, 1), "{query}");
        }
        // The server's name finds its tools.
        assert_eq!(prefixed.search("github", 200).len(), 117);
    }
}
