//! Foreign MCP servers for the end-to-end tests: the reference `server-everything` (npm) and
//! `mcp-server-git` (PyPI), installed on first use by `tests/e2e/install.sh`, plus a throwaway
//! git repository for the git server to act on; and [`strict_form_arguments`], the arguments an
//! OpenAI strict-mode model sends for a schema when it leaves every optional field out.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use serde_json::{Map, Number, Value};

/// How to start each foreign server over stdio, and the repository the git server serves.
#[derive(Debug, Clone)]
pub struct ForeignServers {
    /// `@modelcontextprotocol/server-everything`: program and arguments.
    pub everything: Vec<String>,
    /// `mcp-server-git`, serving [`git_repo`](Self::git_repo): program and arguments.
    pub git: Vec<String>,
    /// A throwaway repository made for this test process (under `target/tmp/`): branch `main`
    /// with two commits, a branch `feature` at the first one, `notes.txt` with both a staged and
    /// an unstaged change (the same in both branches, so a checkout carries them over), and an
    /// untracked `untracked.txt`. It is shared by every test of the process: a test that
    /// changes it (checkout, commit, new branch) should leave it as it found it, or expect
    /// other tests to see the change.
    pub git_repo: PathBuf,
}
/// Every foreign MCP tool list of the fixtures, named by its path: the two corpora
/// (`fixtures/corpus`) and each regression fixture (`fixtures/regressions`), in file order.
pub fn fixture_tool_lists() -> Vec<(String, Value)> {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut lists = Vec::new();
    for dir in ["corpus", "regressions"] {
        let mut files: Vec<_> = std::fs::read_dir(fixtures.join(dir))
            .expect("the fixtures")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a fixture");
            let value: Value = serde_json::from_str(&text).expect("JSON");
            lists.push((path.display().to_string(), value));
        }
    }
    lists
}

/// The foreign servers, installed (once per process, and fast when already installed) by
/// `tests/e2e/install.sh` into `target/e2e-servers/`. Panics, with the command and what it
/// printed, when installing or making the repository fails.
pub fn foreign_servers() -> &'static ForeignServers {
    static SERVERS: OnceLock<ForeignServers> = OnceLock::new();
    SERVERS.get_or_init(|| {
        let dir = target_dir().join("e2e-servers");
        install(&dir);
        let everything = dir.join("npm/node_modules/.bin/mcp-server-everything");
        let python = dir.join("venv/bin/python");
        let git_repo = make_git_repo();
        ForeignServers {
            everything: vec![path_string(&everything), "stdio".to_owned()],
            git: vec![
                path_string(&python),
                "-m".to_owned(),
                "mcp_server_git".to_owned(),
                "-r".to_owned(),
                path_string(&git_repo),
            ],
            git_repo,
        }
    })
}

/// The workspace's target directory (as [`crate::mcp_server_example`] finds it).
fn target_dir() -> PathBuf {
    std::env::var("CARGO_TARGET_DIR").map_or_else(
        |_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    )
}

fn path_string(path: &Path) -> String {
    path.to_str()
        .unwrap_or_else(|| panic!("a non-UTF-8 path: {}", path.display()))
        .to_owned()
}

/// Runs `command`, panicking with its description, status and output unless it succeeds.
/// Returns what it printed on stderr.
fn run(mut command: Command, what: &str) -> String {
    let output = command
        .output()
        .unwrap_or_else(|err| panic!("could not run `{what}`: {err}"));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "`{what}` failed ({}):\n--- stderr ---\n{stderr}\n--- stdout ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
    );
    stderr
}

fn install(dir: &Path) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("e2e/install.sh");
    let mut command = Command::new("bash");
    command.arg(&script).arg(dir);
    let what = format!("bash {} {}", script.display(), dir.display());
    let log = run(command, &what);
    // Shown with the output of a failing test.
    eprint!("{log}");
}

/// Makes the throwaway repository of [`ForeignServers::git_repo`], removing those of earlier
/// test processes that have ended.
fn make_git_repo() -> PathBuf {
    let parent = target_dir().join("tmp");
    std::fs::create_dir_all(&parent)
        .unwrap_or_else(|err| panic!("creating {}: {err}", parent.display()));
    let day_ago = SystemTime::now() - Duration::from_secs(24 * 60 * 60);
    let proc = Path::new("/proc/self").exists();
    for entry in std::fs::read_dir(&parent).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("foreign-git-") else {
            continue;
        };
        // Where /proc tells, one whose process has ended; elsewhere, one a day old.
        let stale = if proc {
            !Path::new("/proc").join(pid).exists()
        } else {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|modified| modified < day_ago)
        };
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let repo = parent.join(format!("foreign-git-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&repo);
    std::fs::create_dir_all(&repo)
        .unwrap_or_else(|err| panic!("creating {}: {err}", repo.display()));

    let write = |name: &str, text: &str| {
        std::fs::write(repo.join(name), text)
            .unwrap_or_else(|err| panic!("writing {name} in {}: {err}", repo.display()));
    };
    let git = |args: &[&str], date: &str| {
        let mut command = Command::new("git");
        command
            .current_dir(&repo)
            .args(args)
            // The user's and the system's configuration (hooks, signing, templates) stay out.
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Tooldef Tests")
            .env("GIT_AUTHOR_EMAIL", "tests@example.com")
            .env("GIT_COMMITTER_NAME", "Tooldef Tests")
            .env("GIT_COMMITTER_EMAIL", "tests@example.com")
            .env("GIT_AUTHOR_DATE", date)
            .env("GIT_COMMITTER_DATE", date);
        run(
            command,
            &format!("git {} (in {})", args.join(" "), repo.display()),
        );
    };
    let first = "2026-01-01T12:00:00Z";
    let second = "2026-01-02T12:00:00Z";

    git(&["init", "-q", "-b", "main"], first);
    write(
        "README.md",
        "# Throwaway repository\n\nMade by tooldef's tests.\n",
    );
    write("notes.txt", "first note\n");
    git(&["add", "README.md", "notes.txt"], first);
    git(&["commit", "-q", "-m", "First commit"], first);
    git(&["branch", "feature"], first);
    write(
        "README.md",
        "# Throwaway repository\n\nMade by tooldef's tests.\n\nA second line of work.\n",
    );
    write("CHANGELOG.md", "- Second commit.\n");
    git(&["add", "README.md", "CHANGELOG.md"], second);
    git(&["commit", "-q", "-m", "Second commit"], second);
    write("notes.txt", "first note\nstaged note\n");
    git(&["add", "notes.txt"], second);
    write("notes.txt", "first note\nstaged note\nunstaged note\n");
    write("untracked.txt", "not tracked\n");
    repo
}

/// How deep [`strict_form_arguments`] nests values (a recursive type with no way out ends in
/// `null` there).
const MAX_DEPTH: usize = 64;
/// The most elements [`strict_form_arguments`] makes for one array's `minItems`.
const MAX_ITEMS: u64 = 256;

/// The arguments an OpenAI strict-mode model sends for the parameter `schema` (as Chat
/// Completions receives it: every property required, optional ones nullable) when it leaves
/// every optional field out: an object with every property present, `null` for each property
/// whose schema accepts `null` (see [`accepts_null`]), at any depth, and for the others a valid
/// value: the one in `chosen` for a top-level property of that name, else the first non-null
/// `const`/`enum` value, else a minimal one by type (`"x"` padded to `minLength`, or a sample
/// of a known `format`; a number within the bounds and a multiple of `multipleOf`; `false`;
/// `minItems` elements; an object filled the same way). `anyOf`/`oneOf` take their first
/// non-null branch, `allOf` is merged, `$ref`s resolve within `schema`. `pattern` is not
/// honoured: give such properties in `chosen`. Entries of `chosen` that are not properties of
/// the schema are added too, after the others. Never panics: where nothing fits (an
/// unresolvable `$ref`, recursion with no way out, contradictory bounds) the value is `null`.
pub fn strict_form_arguments(schema: &Value, chosen: &Map<String, Value>) -> Value {
    let filler = Filler::new(schema);
    let mut arguments = match filler.concrete(schema) {
        Some(node) => filler.object(&node, 0, Some(chosen)),
        None => Map::new(),
    };
    for (name, value) in chosen {
        if !arguments.contains_key(name) {
            arguments.insert(name.clone(), value.clone());
        }
    }
    Value::Object(arguments)
}

/// Whether `null` is valid against `schema`: its `type`, `enum`, `const`, `anyOf`, `oneOf`,
/// `allOf`, `not` and `$ref` allow it (a schema with none of these allows anything). `$ref`s
/// resolve against `schema` itself, so pass a root schema or a node without `$ref`s that point
/// outside it; an unresolvable or circular `$ref` counts as not accepting `null`.
pub fn accepts_null(schema: &Value) -> bool {
    Filler::new(schema).accepts_null(schema, &mut Vec::new())
}

/// The node a local `$ref` (`#`, `#/$defs/Name`, any JSON Pointer fragment) points at.
fn lookup<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    if !pointer.starts_with('/') {
        return None;
    }
    // A URI fragment may percent-encode; the common case is the `%25` of a literal `%`.
    root.pointer(&pointer.replace("%25", "%"))
}

/// Whether a branch allows nothing but `null` (so `anyOf` skips it).
fn null_only(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => return t == "null",
        Some(Value::Array(types)) if !types.is_empty() => return types.iter().all(|t| t == "null"),
        _ => {}
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().all(Value::is_null);
    }
    schema.get("const").is_some_and(Value::is_null)
}

/// Walks a schema whose `$ref`s resolve against `root`, within a budget of steps (so that no
/// schema, however odd, makes it run for long).
struct Filler<'a> {
    root: &'a Value,
    budget: Cell<usize>,
}

impl<'a> Filler<'a> {
    fn new(root: &'a Value) -> Self {
        Filler {
            root,
            budget: Cell::new(100_000),
        }
    }

    /// Takes one step from the budget; `false` once it is spent.
    fn step(&self) -> bool {
        let left = self.budget.get();
        self.budget.set(left.saturating_sub(1));
        left > 0
    }

    /// Whether `null` is valid against `schema` (see [`accepts_null`]). `refs` holds the
    /// `$ref`s followed on the way here: all of them apply to the same value, so meeting one
    /// again is a cycle, which accepts nothing.
    fn accepts_null(&self, schema: &Value, refs: &mut Vec<String>) -> bool {
        if !self.step() {
            return false;
        }
        let object = match schema {
            Value::Bool(accepts) => return *accepts,
            Value::Object(object) => object,
            _ => return false,
        };
        if let Some(reference) = object.get("$ref") {
            let Some(reference) = reference.as_str() else {
                return false;
            };
            let Some(target) = lookup(self.root, reference) else {
                return false;
            };
            if refs.iter().any(|r| r == reference) {
                return false;
            }
            refs.push(reference.to_owned());
            let accepts = self.accepts_null(target, refs);
            refs.pop();
            if !accepts {
                return false;
            }
        }
        match object.get("type") {
            None => {}
            Some(Value::String(t)) if t == "null" => {}
            Some(Value::Array(types)) if types.iter().any(|t| t == "null") => {}
            Some(_) => return false,
        }
        if let Some(values) = object.get("enum")
            && !values.as_array().is_some_and(|v| v.contains(&Value::Null))
        {
            return false;
        }
        if object.get("const").is_some_and(|c| !c.is_null()) {
            return false;
        }
        let branches = |key: &str| object.get(key).and_then(Value::as_array);
        if let Some(any_of) = branches("anyOf")
            && !any_of.iter().any(|b| self.accepts_null(b, refs))
        {
            return false;
        }
        if let Some(one_of) = branches("oneOf")
            && one_of.iter().filter(|b| self.accepts_null(b, refs)).count() != 1
        {
            return false;
        }
        if let Some(all_of) = branches("allOf")
            && !all_of.iter().all(|b| self.accepts_null(b, refs))
        {
            return false;
        }
        if let Some(not) = object.get("not")
            && self.accepts_null(not, refs)
        {
            return false;
        }
        true
    }

    /// `schema` with `$ref` resolved, `allOf` merged and `anyOf`/`oneOf` replaced by their
    /// first non-null branch, repeatedly; `None` where that leads nowhere.
    fn concrete(&self, schema: &Value) -> Option<Value> {
        self.concrete_in(schema, &mut Vec::new())
    }

    /// [`concrete`](Self::concrete), with the `$ref`s followed so far (for the same value, so
    /// one met again is a cycle that leads nowhere).
    fn concrete_in(&self, schema: &Value, refs: &mut Vec<String>) -> Option<Value> {
        if !self.step() {
            return None;
        }
        let object = match schema {
            Value::Bool(true) => return Some(Value::Object(Map::new())),
            Value::Object(object) => object,
            _ => return None,
        };
        if let Some(reference) = object.get("$ref") {
            let reference = reference.as_str()?;
            let target = lookup(self.root, reference)?;
            if refs.iter().any(|r| r == reference) {
                return None;
            }
            refs.push(reference.to_owned());
            let resolved = self.concrete_in(target, refs);
            refs.pop();
            return resolved;
        }
        if let Some(all_of) = object.get("allOf").and_then(Value::as_array) {
            let mut merged = object.clone();
            merged.remove("allOf");
            for member in all_of {
                let Value::Object(member) = self.concrete_in(member, refs)? else {
                    return None;
                };
                merge_into(&mut merged, member);
            }
            return self.concrete_in(&Value::Object(merged), refs);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = object.get(key).and_then(Value::as_array) {
                return branches
                    .iter()
                    .filter(|b| !null_only(b))
                    .find_map(|b| self.concrete_in(b, refs).filter(|r| !null_only(r)));
            }
        }
        Some(schema.clone())
    }

    /// A valid non-null value for `schema` if there is one (`null` otherwise); `variant` > 0
    /// asks for a different one where easy (for `uniqueItems`).
    fn value(&self, schema: &Value, depth: usize, variant: usize) -> Value {
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        let Some(node) = self.concrete(schema) else {
            return Value::Null;
        };
        if let Some(value) = node.get("const") {
            return value.clone();
        }
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            let non_null: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
            return match non_null.len() {
                0 => Value::Null,
                n => non_null[variant % n].clone(),
            };
        }
        match type_of(&node) {
            Some("string") => string(&node, variant),
            Some("integer") => number(&node, true, variant),
            Some("number") => number(&node, false, variant),
            Some("boolean") => Value::Bool(variant % 2 == 1),
            Some("array") => self.array(&node, depth),
            Some("object") => Value::Object(self.object(&node, depth, None)),
            _ => Value::Null,
        }
    }

    /// Every property of the object node: from `chosen` (top level only), else `null` where
    /// allowed, else a value.
    fn object(
        &self,
        node: &Value,
        depth: usize,
        chosen: Option<&Map<String, Value>>,
    ) -> Map<String, Value> {
        let mut out = Map::new();
        let Some(properties) = node.get("properties").and_then(Value::as_object) else {
            return out;
        };
        for (name, property) in properties {
            let value = match chosen.and_then(|c| c.get(name)) {
                Some(value) => value.clone(),
                None if self.accepts_null(property, &mut Vec::new()) => Value::Null,
                None => self.value(property, depth + 1, 0),
            };
            out.insert(name.clone(), value);
        }
        out
    }

    fn array(&self, node: &Value, depth: usize) -> Value {
        let count = node
            .get("minItems")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            .min(MAX_ITEMS);
        let unique = node.get("uniqueItems") == Some(&Value::Bool(true));
        let prefix = node
            .get("prefixItems")
            .or_else(|| node.get("items").filter(|items| items.is_array()))
            .and_then(Value::as_array);
        let rest = node.get("items").filter(|items| !items.is_array());
        let anything = Value::Bool(true);
        (0..count as usize)
            .map(|i| {
                let item = prefix.and_then(|p| p.get(i)).or(rest).unwrap_or(&anything);
                self.value(item, depth + 1, if unique { i } else { 0 })
            })
            .collect::<Vec<_>>()
            .into()
    }
}

/// Merges an `allOf` member into the node: `properties` and `required` united, `$defs` kept,
/// other keywords kept where the node has none.
fn merge_into(node: &mut Map<String, Value>, member: Map<String, Value>) {
    for (key, value) in member {
        match (key.as_str(), node.get_mut(&key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    mine.entry(name).or_insert(schema);
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(&name) {
                        mine.push(name);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, value) => {
                node.insert(key, value);
            }
        }
    }
}

/// The node's non-null type: its `type`'s first non-`"null"` entry, else inferred from the
/// keywords present.
fn type_of(node: &Value) -> Option<&str> {
    match node.get("type") {
        Some(Value::String(t)) if t != "null" => return Some(t),
        Some(Value::String(_)) => return None,
        Some(Value::Array(types)) => {
            return types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null");
        }
        _ => {}
    }
    let has = |keys: &[&str]| keys.iter().any(|k| node.get(k).is_some());
    if has(&["properties", "additionalProperties", "required"]) {
        Some("object")
    } else if has(&["items", "prefixItems", "minItems"]) {
        Some("array")
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        Some("string")
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        Some("number")
    } else {
        None
    }
}

fn string(node: &Value, variant: usize) -> Value {
    let format = node.get("format").and_then(Value::as_str);
    let sample = match format {
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("time") => "00:00:00Z",
        Some("duration") => "P1D",
        Some("email" | "idn-email") => "x@example.com",
        Some("hostname" | "idn-hostname") => "example.com",
        Some("ipv4") => "127.0.0.1",
        Some("ipv6") => "::1",
        Some("uuid") => "00000000-0000-0000-0000-000000000000",
        Some("uri" | "url" | "iri" | "uri-reference" | "iri-reference") => "https://example.com/",
        Some("json-pointer") => "",
        Some("regex") => ".*",
        _ => {
            let mut text = String::from("x");
            if variant > 0 {
                text.push_str(&variant.to_string());
            }
            let length = |key| node.get(key).and_then(Value::as_u64).map(|n| n as usize);
            if let Some(min) = length("minLength") {
                while text.chars().count() < min.min(1 << 16) {
                    text.push('x');
                }
            }
            if let Some(max) = length("maxLength") {
                text = text.chars().take(max).collect();
            }
            return Value::String(text);
        }
    };
    Value::String(sample.to_owned())
}

/// A number (an integer if `integer`) within the node's bounds and a multiple of its
/// `multipleOf`, as close to 0 as it can be; `variant` steps away from it. `null` if none fits.
fn number(node: &Value, integer: bool, variant: usize) -> Value {
    let get = |key| node.get(key).and_then(Value::as_f64);
    let flag = |key| node.get(key) == Some(&Value::Bool(true));
    // (bound, exclusive), the stricter of `minimum` and a numeric `exclusiveMinimum`; a boolean
    // `exclusiveMinimum` (draft 4) makes `minimum` exclusive.
    let bound = |inclusive: Option<f64>, exclusive: Option<f64>, old_flag: bool, lower: bool| {
        let a = inclusive.map(|b| (b, old_flag));
        let b = exclusive.map(|b| (b, true));
        match (a, b) {
            (Some(a), Some(b)) => {
                let a_stricter = if lower { a.0 > b.0 } else { a.0 < b.0 };
                Some(if a_stricter { a } else { b })
            }
            (a, b) => a.or(b),
        }
    };
    let lo = bound(
        get("minimum"),
        get("exclusiveMinimum"),
        flag("exclusiveMinimum"),
        true,
    );
    let hi = bound(
        get("maximum"),
        get("exclusiveMaximum"),
        flag("exclusiveMaximum"),
        false,
    );
    let fits = |x: f64| {
        x.is_finite()
            && (!integer || x.fract() == 0.0)
            && lo.is_none_or(|(b, ex)| if ex { x > b } else { x >= b })
            && hi.is_none_or(|(b, ex)| if ex { x < b } else { x <= b })
    };
    let step = get("multipleOf").filter(|m| *m > 0.0 && m.is_finite());
    let found = match step {
        Some(m) => {
            // Multiples k·m, from the one nearest 0 within the bounds.
            let mut k = 0.0_f64;
            if let Some((b, _)) = lo
                && !fits(k * m)
                && b > 0.0
            {
                k = (b / m).floor();
            }
            if let Some((b, _)) = hi
                && !fits(k * m)
                && b < 0.0
            {
                k = (b / m).ceil();
            }
            let upward = hi.is_none_or(|(b, _)| b >= 0.0);
            let direction = if upward { 1.0 } else { -1.0 };
            (0..1024)
                .map(|i| (k + direction * f64::from(i)) * m)
                .filter(|x| fits(*x))
                .nth(variant)
        }
        None => {
            let mut x = 0.0;
            if let Some((b, ex)) = lo
                && !fits(x)
                && b >= 0.0
            {
                x = if integer {
                    if ex { b.floor() + 1.0 } else { b.ceil() }
                } else if ex {
                    // Just above the bound: one more, or halfway to the upper bound.
                    match hi {
                        Some((h, _)) if b + 1.0 >= h => b + (h - b) / 2.0,
                        _ => b + 1.0,
                    }
                } else {
                    b
                };
            }
            if let Some((b, ex)) = hi
                && !fits(x)
                && b <= 0.0
            {
                x = if integer {
                    if ex { b.ceil() - 1.0 } else { b.floor() }
                } else if ex {
                    match lo {
                        Some((l, _)) if b - 1.0 <= l => b - (b - l) / 2.0,
                        _ => b - 1.0,
                    }
                } else {
                    b
                };
            }
            let stepped = x + variant as f64;
            if fits(stepped) {
                Some(stepped)
            } else if fits(x - variant as f64) {
                Some(x - variant as f64)
            } else {
                Some(x).filter(|x| fits(*x))
            }
        }
    };
    match found {
        Some(x) if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 => Value::from(x as i64),
        Some(x) => Number::from_f64(x).map_or(Value::Null, Value::Number),
        None => Value::Null,
    }
}

/// One of the two reference servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// `@modelcontextprotocol/server-everything`.
    Everything,
    /// `mcp-server-git`.
    Git,
}

impl Server {
    /// Its command (program and arguments).
    pub fn command(self, servers: &ForeignServers) -> &[String] {
        match self {
            Server::Everything => &servers.everything,
            Server::Git => &servers.git,
        }
    }
}

/// The environment a git server runs in: a fixed identity for its commits, the user's and the
/// system's git configuration kept out.
pub const GIT_ENV: &[(&str, &str)] = &[
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_AUTHOR_NAME", "Tooldef Tests"),
    ("GIT_AUTHOR_EMAIL", "tests@example.com"),
    ("GIT_COMMITTER_NAME", "Tooldef Tests"),
    ("GIT_COMMITTER_EMAIL", "tests@example.com"),
];

impl Server {
    /// The environment the server runs in ([`GIT_ENV`] for git, nothing for the other).
    pub fn env(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Server::Everything => &[],
            Server::Git => GIT_ENV,
        }
    }
}

/// Asserts that `data` is server-everything's tiny image as base64: a PNG's signature, a few
/// hundred bytes, base64's alphabet only.
pub fn assert_png_base64(data: &str) {
    assert!(
        data.starts_with("iVBORw0KGgo"),
        "{}",
        &data[..20.min(data.len())]
    );
    assert!(data.len() > 500, "{} base64 characters", data.len());
    assert!(
        data.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)),
        "not base64"
    );
}

/// The text of a small file, as a `data:` URI (`gzip-file-as-resource` would otherwise fetch
/// its default URL from GitHub).
pub const DATA_URI: &str = "data:text/plain;base64,SGVsbG8gZnJvbSB0b29sZGVmIQo=";

/// The tools allowed to answer with an error, each with a piece of the error it gives, for
/// reasons that have nothing to do with their arguments.
pub const ALLOWED_ERRORS: &[(&str, &str)] = &[
    // A task-based tool (`execution.taskSupport: "required"`): a plain `tools/call` without
    // task augmentation is refused whatever the arguments. Observed: "MCP error -32601: Tool
    // simulate-research-query requires task augmentation (taskSupport: 'required')".
    ("simulate-research-query", "requires task augmentation"),
];

/// How the servers refuse a `null` they did not declare (zod: "Invalid input: expected boolean,
/// received null"; pydantic: "Input should be a valid integer [type=int_type,
/// input_value=None, input_type=NoneType]"), and the same for the other types they declare.
pub const NULL_REFUSALS: &[&str] = &[
    "received null",
    "Input should be a valid",
    "input_value=None",
    "NoneType",
];

/// The refusal of a `null` that `text` is, if it is one.
pub fn null_refusal(text: &str) -> Option<&'static str> {
    NULL_REFUSALS.iter().copied().find(|m| text.contains(m))
}

/// The git tools that change the repository, in the order they must run: a new branch and a
/// checkout of it (the same commit, so the work tree's changes carry over), `add` before
/// `commit` (which refuses to commit nothing), `reset` last. The others only read, and run
/// first.
pub const GIT_WRITES: &[&str] = &[
    "git_create_branch",
    "git_checkout",
    "git_add",
    "git_commit",
    "git_reset",
];

/// The values a model would choose for the fields it cannot leave out of `tool` (and for a few
/// it could, where the default would be slow or reach the network); everything else is what
/// [`strict_form_arguments`] makes: `null` for every optional field.
pub fn chosen(server: Server, tool: &str, servers: &ForeignServers) -> Map<String, Value> {
    let value = match (server, tool) {
        (Server::Everything, "echo") => serde_json::json!({"message": "Hello from tooldef"}),
        (Server::Everything, "get-annotated-message") => {
            serde_json::json!({"messageType": "success"})
        }
        (Server::Everything, "get-structured-content") => {
            serde_json::json!({"location": "Chicago"})
        }
        (Server::Everything, "get-sum") => serde_json::json!({"a": 2, "b": 3}),
        (Server::Everything, "gzip-file-as-resource") => serde_json::json!({"data": DATA_URI}),
        // The default is 10 s.
        (Server::Everything, "trigger-long-running-operation") => {
            serde_json::json!({"duration": 0.2, "steps": 2})
        }
        (Server::Everything, "simulate-research-query") => {
            serde_json::json!({"topic": "tool schemas"})
        }
        (Server::Git, "git_diff") => serde_json::json!({"target": "feature"}),
        (Server::Git, "git_show") => serde_json::json!({"revision": "feature"}),
        (Server::Git, "git_branch") => serde_json::json!({"branch_type": "local"}),
        (Server::Git, "git_create_branch" | "git_checkout") => {
            serde_json::json!({"branch_name": "e2e"})
        }
        (Server::Git, "git_add") => serde_json::json!({"files": ["untracked.txt"]}),
        (Server::Git, "git_commit") => serde_json::json!({"message": "Commit through tooldef"}),
        _ => serde_json::json!({}),
    };
    let mut chosen = match value {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    if server == Server::Git {
        let repo = servers.git_repo.to_string_lossy().into_owned();
        chosen.insert("repo_path".into(), repo.into());
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn none() -> Map<String, Value> {
        Map::new()
    }

    fn chosen(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("an object"),
        }
    }

    /// `arguments` is valid against `schema`, formats included.
    fn assert_valid(schema: &Value, arguments: &Value) {
        let validator = jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(schema)
            .unwrap_or_else(|err| panic!("the schema does not compile: {err}\n{schema}"));
        let errors: Vec<String> = validator
            .iter_errors(arguments)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{arguments} against {schema}: {errors:?}"
        );
    }

    fn strict_object(properties: Value) -> Value {
        let names: Vec<Value> = properties
            .as_object()
            .unwrap()
            .keys()
            .map(|k| Value::String(k.clone()))
            .collect();
        json!({
            "type": "object",
            "properties": properties,
            "required": names,
            "additionalProperties": false,
        })
    }

    #[test]
    fn optional_nullable_properties_are_null() {
        let schema = strict_object(json!({
            "city": {"type": "string"},
            "days": {"type": ["integer", "null"], "minimum": 1, "maximum": 14},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        }));
        let arguments = strict_form_arguments(&schema, &none());
        assert_eq!(arguments, json!({"city": "x", "days": null, "note": null}));
        assert_valid(&schema, &arguments);
        // Key order follows the schema's.
        let keys: Vec<&String> = arguments.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["city", "days", "note"]);
    }

    #[test]
    fn chosen_values_win_at_the_top_level() {
        let schema = strict_object(json!({
            "city": {"type": "string"},
            "days": {"type": ["integer", "null"]},
        }));
        let arguments =
            strict_form_arguments(&schema, &chosen(json!({"days": 3, "city": "Lisbon"})));
        assert_eq!(arguments, json!({"city": "Lisbon", "days": 3}));
        // Names the schema does not have are passed on, after the others.
        let arguments = strict_form_arguments(&schema, &chosen(json!({"extra": true})));
        assert_eq!(arguments, json!({"city": "x", "days": null, "extra": true}));
    }

    #[test]
    fn required_enums_take_their_first_non_null_value() {
        let schema = strict_object(json!({
            "units": {"type": "string", "enum": ["metric", "imperial"]},
            "mode": {"enum": [null, "fast", "slow"], "type": ["string", "null"]},
            "level": {"type": "string", "enum": [null, "low"]},
            "kind": {"const": "daily"},
        }));
        let arguments = strict_form_arguments(&schema, &none());
        // `level` has null in its enum but not in its type: null is not valid, so "low".
        assert_eq!(
            arguments,
            json!({"units": "metric", "mode": null, "level": "low", "kind": "daily"})
        );
        assert_valid(&schema, &arguments);
    }

    #[test]
    fn nested_objects_are_filled_the_same_way() {
        let schema = strict_object(json!({
            "guest": strict_object(json!({
                "name": {"type": "string", "minLength": 3},
                "email": {"type": "string", "format": "email"},
                "phone": {"type": ["string", "null"]},
                "address": {"anyOf": [strict_object(json!({"street": {"type": "string"}})), {"type": "null"}]},
            })),
            "check_in": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
        }));
        let arguments = strict_form_arguments(&schema, &none());
        assert_eq!(
            arguments,
            json!({
                "guest": {"name": "xxx", "email": "x@example.com", "phone": null, "address": null},
                "check_in": "2026-01-01",
                "at": "2026-01-01T00:00:00Z",
            })
        );
        assert_valid(&schema, &arguments);
    }

    #[test]
    fn any_of_takes_the_first_non_null_branch() {
        let schema = strict_object(json!({
            "schedule": {"anyOf": [
                {"type": "null"},
                strict_object(json!({"kind": {"type": "string", "enum": ["daily"]}, "hour": {"type": "integer", "minimum": 0, "maximum": 23}})),
                strict_object(json!({"kind": {"type": "string", "enum": ["once"]}, "at": {"type": "string", "format": "date-time"}})),
            ]},
            "tagged": {"anyOf": [
                {"enum": [null]},
                {"type": "integer", "minimum": 5},
            ]},
        }));
        // Both accept null, so a model leaving them out sends null.
        assert_eq!(
            strict_form_arguments(&schema, &none()),
            json!({"schedule": null, "tagged": null})
        );
        // Without the null branches they get the first other branch.
        let schema = strict_object(json!({
            "schedule": {"anyOf": [
                strict_object(json!({"kind": {"type": "string", "enum": ["daily"]}, "hour": {"type": "integer", "minimum": 0, "maximum": 23}})),
                strict_object(json!({"kind": {"type": "string", "enum": ["once"]}})),
            ]},
        }));
        let arguments = strict_form_arguments(&schema, &none());
        assert_eq!(arguments, json!({"schedule": {"kind": "daily", "hour": 0}}));
        assert_valid(&schema, &arguments);
    }

    #[test]
    fn arrays_get_min_items_elements() {
        let schema = strict_object(json!({
            "stops": {"type": "array", "minItems": 2, "items": strict_object(json!({
                "city": {"type": "string"},
                "nights": {"type": ["integer", "null"]},
            }))},
            "tags": {"type": "array", "items": {"type": "string"}},
            "codes": {"type": "array", "minItems": 3, "uniqueItems": true, "items": {"type": "string"}},
            "levels": {"type": "array", "minItems": 2, "uniqueItems": true, "items": {"type": "integer", "minimum": 1}},
            "pair": {"type": "array", "minItems": 2, "prefixItems": [{"type": "boolean"}, {"type": "number"}], "items": false},
            "maybe": {"type": ["array", "null"], "minItems": 1, "items": {"type": "string"}},
        }));
        let arguments = strict_form_arguments(&schema, &none());
        assert_eq!(
            arguments,
            json!({
                "stops": [{"city": "x", "nights": null}, {"city": "x", "nights": null}],
                "tags": [],
                "codes": ["x", "x1", "x2"],
                "levels": [1, 2],
                "pair": [false, 0],
                "maybe": null,
            })
        );
        assert_valid(&schema, &arguments);
    }

    #[test]
    fn numbers_respect_bounds_and_multiples() {
        let schema = strict_object(json!({
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "above": {"type": "integer", "exclusiveMinimum": 5},
            "below": {"type": "integer", "exclusiveMaximum": -2},
            "negative": {"type": "integer", "minimum": -10, "maximum": -3},
            "even": {"type": "integer", "minimum": 3, "multipleOf": 2},
            "tens": {"type": "integer", "maximum": -1, "multipleOf": 10},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "price": {"type": "number", "minimum": 2.5},
            "half": {"type": "number", "minimum": 0.2, "multipleOf": 0.5},
            "old": {"type": "integer", "minimum": 0, "exclusiveMinimum": true},
            "zero": {"type": "integer"},
        }));
        let arguments = strict_form_arguments(&schema, &none());
        assert_eq!(
            arguments,
            json!({
                "days": 1, "above": 6, "below": -3, "negative": -3, "even": 4, "tens": -10,
                "ratio": 0.5, "price": 2.5, "half": 0.5, "old": 1, "zero": 0,
            })
        );
        let mut current = schema.clone();
        // Draft 4's boolean exclusiveMinimum is not 2020-12: validate without it.
        current["properties"]["old"] = json!({"type": "integer", "minimum": 1});
        assert_valid(&current, &arguments);
    }

    #[test]
    fn refs_and_recursion_resolve() {
        let schema = json!({
            "type": "object",
            "properties": {
                "root": {"$ref": "#/$defs/Node"},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                "level": {"$ref": "#/$defs/Level"},
                "merged": {"allOf": [{"$ref": "#/$defs/Named"}, strict_object(json!({"age": {"type": "integer", "minimum": 18}}))]},
            },
            "required": ["root", "maybe", "level", "merged"],
            "additionalProperties": false,
            "$defs": {
                "Node": strict_object(json!({
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "parent": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                })),
                "Level": {"type": "string", "enum": ["low", "high"]},
                "Named": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            },
        });
        let arguments = strict_form_arguments(&schema, &none());
        assert_eq!(
            arguments,
            json!({
                "root": {"value": 0, "children": [], "parent": null},
                "maybe": null,
                "level": "low",
                "merged": {"name": "x", "age": 18},
            })
        );
        // (`merged`'s two closed objects could not both hold; the filler merges them anyway.)
        let mut checkable = schema.clone();
        checkable["properties"]["merged"] = json!({});
        assert_valid(&checkable, &arguments);
        assert!(accepts_null(
            &json!({"anyOf": [{"$ref": "#/$defs/N"}], "$defs": {"N": {"type": "null"}}})
        ));
    }

    #[test]
    fn odd_schemas_do_not_panic() {
        let odd = [
            json!(null),
            json!(true),
            json!(false),
            json!(42),
            json!("object"),
            json!([]),
            json!({}),
            json!({"type": "object", "properties": []}),
            json!({"type": "object", "properties": {"a": 1, "b": "x", "c": [], "d": null}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/nowhere"}, "b": {"$ref": 7}, "c": {"$ref": "other.json#/x"}}}),
            json!({"$ref": "#"}),
            json!({"type": "object", "properties": {"loop": {"$ref": "#"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": []}, "b": {"oneOf": [{"type": "null"}]}, "c": {"allOf": [false]}}}),
            json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 1}}}),
            json!({"type": "object", "properties": {"a": {"type": "integer", "multipleOf": 0}}}),
            json!({"type": "object", "properties": {"a": {"type": "integer", "multipleOf": 0.3, "minimum": 1e300}}}),
            json!({"type": "object", "properties": {"a": {"type": "array", "minItems": u64::MAX}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": u64::MAX, "maxLength": 2}}}),
            json!({"type": "object", "properties": {"a": {"type": 5}, "b": {"type": []}, "c": {"enum": 3}}}),
        ];
        for schema in odd {
            let arguments = strict_form_arguments(&schema, &none());
            assert!(arguments.is_object(), "{schema} → {arguments}");
            let _ = accepts_null(&schema);
        }
        let impossible = json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 1}, "b": {"$ref": "#/nowhere"}}});
        assert_eq!(
            strict_form_arguments(&impossible, &none()),
            json!({"a": null, "b": null})
        );
    }

    #[test]
    fn accepts_null_follows_json_schema() {
        for schema in [
            json!({"type": "null"}),
            json!({"type": ["string", "null"]}),
            json!({"type": ["string", "null"], "enum": ["a", null]}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!({"oneOf": [{"type": "string"}, {"type": "null"}]}),
            json!({"description": "anything"}),
            json!({}),
            json!(true),
            json!({"not": {"type": "string"}}),
        ] {
            assert!(accepts_null(&schema), "{schema}");
        }
        for schema in [
            json!({"type": "string"}),
            json!({"type": ["string", "null"], "enum": ["a"]}),
            json!({"enum": ["a", "b"]}),
            json!({"const": 1}),
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            json!({"oneOf": [{"type": ["string", "null"]}, {"type": "null"}]}),
            json!({"allOf": [{"type": ["string", "null"]}, {"type": "string"}]}),
            json!({"not": {}}),
            json!({"$ref": "#/nowhere"}),
            json!(false),
        ] {
            assert!(!accepts_null(&schema), "{schema}");
        }
    }

    /// Every showcase tool's Chat Completions parameters: the filled arguments validate.
    #[test]
    fn the_showcase_strict_schemas_are_filled_validly() {
        let tools = tooldef_examples::showcase::toolset();
        let listed = tools.list(tooldef::Target::ChatCompletions).unwrap();
        assert!(!listed.is_empty());
        // `pattern` is not honoured: values for the top-level properties that have one.
        let patterned = chosen(json!({"from": "EUR", "to": "USD", "reference": "BK-h1-2"}));
        for tool in listed.iter() {
            let parameters = &tool["function"]["parameters"];
            let mine: Map<String, Value> = patterned
                .iter()
                .filter(|(name, _)| {
                    parameters["properties"][name.as_str()]
                        .get("pattern")
                        .is_some()
                })
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            let arguments = strict_form_arguments(parameters, &mine);
            assert_valid(parameters, &arguments);
        }
    }
}
