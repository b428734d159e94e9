//! What a tool, a prompt or a resource says to MCP clients alone: `icon`, `meta`, a tool's
//! `#[arg(header)]`, and a resource's `mime_type` and `annotations`. Checked here against the
//! rules MCP (2025-11-25 and 2026-07-28) and its clients hold them to, so that an item no client
//! would take does not compile; written here as the JSON the runtime reads.

use std::collections::HashMap;

use crate::ast::{Item, ParamKind};
use crate::attr::{Annotations, Icon, Kind};
use crate::ctxt::Ctxt;
use crate::json::{self, Json};

/// Runs every check of the item's MCP attributes.
pub fn check(cx: &Ctxt, item: &Item) {
    for icon in &item.attrs.icons {
        check_icon(cx, icon);
    }
    check_meta(cx, item);
    if item.kind == Kind::Tool {
        check_headers(cx, item);
    }
    if let Some(mime) = &item.attrs.mime_type
        && let Some(why) = mime_problem(&mime.value)
    {
        cx.error_at(mime.span, why);
    }
    if let Some(annotations) = &item.attrs.annotations {
        check_annotations(cx, annotations);
    }
}

/// Why `mime` is not a MIME type (`type/subtype`, parameters allowed after a `;`).
fn mime_problem(mime: &str) -> Option<String> {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    let plain = essence.split_once('/').is_some_and(|(kind, sub)| {
        !kind.is_empty()
            && !sub.is_empty()
            && !sub.contains('/')
            && !essence.contains(char::is_whitespace)
    });
    (!plain).then(|| {
        format!(
            "`{mime}` is not a MIME type: write it as `type/subtype`, e.g. `image/png` or \
             `image/svg+xml`"
        )
    })
}

/// A resource's `annotations(…)`: MCP's `Annotations` (`audience` of `Role`s, `priority` from 0
/// to 1, `lastModified` an ISO 8601 timestamp).
fn check_annotations(cx: &Ctxt, annotations: &Annotations) {
    if annotations.audience.is_none()
        && annotations.priority.is_none()
        && annotations.last_modified.is_none()
    {
        cx.error_at(
            annotations.span,
            "`annotations` is empty: give `audience = [\"user\", \"assistant\"]`, \
             `priority = 0.5` or `last_modified = \"2025-01-12T15:00:58Z\"`, or remove it",
        );
    }
    if let Some(audience) = &annotations.audience {
        if audience.is_empty() {
            cx.error_at(
                annotations.span,
                "`audience` is empty: name who the resource is for, `\"user\"` and/or \
                 `\"assistant\"`, or leave `audience` out",
            );
        }
        let mut seen = Vec::new();
        for role in audience {
            if !matches!(role.value.as_str(), "user" | "assistant") {
                cx.error_at(
                    role.span,
                    format!(
                        "`{}` is not a role MCP knows: the audience is `\"user\"` and/or \
                         `\"assistant\"`",
                        role.value
                    ),
                );
            } else if seen.contains(&role.value) {
                cx.error_at(
                    role.span,
                    format!("`{}` is given twice in `audience`; keep one", role.value),
                );
            } else {
                seen.push(role.value.clone());
            }
        }
    }
    if let Some(priority) = &annotations.priority
        && !(0.0..=1.0).contains(&priority.value.1)
    {
        cx.error_at(
            priority.span,
            format!(
                "`priority` is from 0 (least important) to 1 (most important, effectively \
                 required), not {}",
                priority.value.0
            ),
        );
    }
    if let Some(last_modified) = &annotations.last_modified
        && !is_timestamp(&last_modified.value)
    {
        cx.error_at(
            last_modified.span,
            format!(
                "`{}` is not an ISO 8601 timestamp: MCP's `lastModified` is written as \
                 `2025-01-12T15:00:58Z` (a date, `T`, a time, and `Z` or an offset such as \
                 `+01:00`)",
                last_modified.value
            ),
        );
    }
}

/// RFC 3339's `date-time`, the ISO 8601 form MCP's examples use: `2025-01-12T15:00:58Z`,
/// fractions of a second and `±hh:mm` offsets allowed.
fn is_timestamp(text: &str) -> bool {
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let number = |s: &str| s.parse::<u32>().unwrap_or(u32::MAX);
    let Some((date, time)) = text.split_once(['T', 't']) else {
        return false;
    };
    let date: Vec<&str> = date.split('-').collect();
    let date_ok = matches!(date.as_slice(), [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2)
        && (1..=12).contains(&number(m)) && (1..=31).contains(&number(d)));
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(at) => time.split_at(at),
        None => return false,
    };
    let offset_ok = matches!(offset, "Z" | "z")
        || offset.len() == 6
            && matches!(offset[1..].split_once(':'), Some((h, m)) if digits(h, 2) && digits(m, 2)
                && number(h) < 24 && number(m) < 60);
    let (whole, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
    let clock: Vec<&str> = whole.split(':').collect();
    let clock_ok = matches!(clock.as_slice(), [h, m, s] if digits(h, 2) && digits(m, 2) && digits(s, 2)
        && number(h) < 24 && number(m) < 60 && number(s) <= 60)
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit());
    date_ok && clock_ok && offset_ok
}

fn check_icon(cx: &Ctxt, icon: &Icon) {
    match &icon.src {
        None => cx.error_at(
            icon.span,
            "this icon has no `src`: give its URI, `icon(src = \"https://example.com/icon.png\", …)`",
        ),
        Some(src) => {
            if let Some(why) = src_problem(&src.value) {
                cx.error_at(src.span, why);
            }
        }
    }
    if let Some(mime) = &icon.mime_type
        && let Some(why) = mime_problem(&mime.value)
    {
        cx.error_at(mime.span, why);
    }
    if let Some(sizes) = &icon.sizes {
        let bad: Vec<&str> = sizes
            .value
            .split_whitespace()
            .filter(|size| !is_icon_size(size))
            .collect();
        if sizes.value.trim().is_empty() || !bad.is_empty() {
            let what = match bad.as_slice() {
                [] => "`sizes` is empty".to_owned(),
                [one] => format!("`{one}` is not an icon size"),
                [init @ .., last] => {
                    format!("`{}` and `{last}` are not icon sizes", init.join("`, `"))
                }
            };
            cx.error_at(
                sizes.span,
                format!(
                    "{what}: a size is `WIDTHxHEIGHT` in pixels (`48x48`) or `any` (an icon that \
                     scales, such as an SVG); give several separated by spaces: \
                     `sizes = \"48x48 96x96\"`"
                ),
            );
        }
    }
    if let Some(theme) = &icon.theme
        && !matches!(theme.value.as_str(), "light" | "dark")
    {
        cx.error_at(
            theme.span,
            format!(
                "an icon's `theme` is `light` or `dark` (the theme it is made for), not `{}`; \
                 leave `theme` out for an icon that suits both",
                theme.value
            ),
        );
    }
}

/// Why an icon's `src` is not one MCP clients load: MCP takes an `https:` or `http:` URL, or a
/// `data:` URI with the image inline.
fn src_problem(src: &str) -> Option<String> {
    if src.trim().is_empty() {
        return Some(
            "the icon's `src` is empty: give the icon's URI (`https://…`, or a `data:` URI with \
             the image inline)"
                .to_owned(),
        );
    }
    let scheme = src
        .split_once(':')
        .map(|(scheme, _)| scheme.to_ascii_lowercase());
    let known = matches!(scheme.as_deref(), Some("https" | "http" | "data"));
    if !known || src.contains(char::is_whitespace) {
        return Some(format!(
            "`{src}` is not a URI MCP clients load an icon from: `src` is an `https:` (or \
             `http:`) URL, or a `data:` URI with the image inline (`data:image/png;base64,…`), \
             without spaces"
        ));
    }
    None
}

/// `48x48` or `any`.
fn is_icon_size(size: &str) -> bool {
    let dimension =
        |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && !d.starts_with('0');
    size == "any"
        || size
            .split_once('x')
            .is_some_and(|(w, h)| dimension(w) && dimension(h))
}

fn check_meta(cx: &Ctxt, item: &Item) {
    let mut seen = HashMap::new();
    for entry in &item.attrs.meta {
        let key = &entry.key.value;
        if let Some(why) = meta_key_problem(key, item.kind) {
            cx.error_at(entry.key.span, why);
        }
        if seen.insert(key.clone(), ()).is_some() {
            cx.error_at(
                entry.key.span,
                format!("the `_meta` key `{key}` is given twice; keep one"),
            );
        }
    }
}

/// Why `key` is not a `_meta` key a tool may use (MCP 2025-11-25, "General fields": `_meta`):
/// `[prefix/]name`, the prefix dot-separated labels, any prefix whose second label is
/// `modelcontextprotocol` or `mcp` reserved for MCP itself.
fn meta_key_problem(key: &str, kind: Kind) -> Option<String> {
    const SHAPE: &str = "a key is a name (letters, digits, `-`, `_` and `.`, starting and ending \
                         with a letter or digit), optionally after a prefix of dot-separated \
                         labels (each a letter first, then letters, digits or `-`) and a `/`, as \
                         in `com.example/tags`";
    let invalid = |why: &str| {
        Some(format!(
            "`{key}` is not a valid `_meta` key: {why}; {SHAPE}"
        ))
    };
    if key.is_empty() {
        return Some(format!("a `_meta` key cannot be empty; {SHAPE}"));
    }
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if name.contains('/') {
        return invalid("it has more than one `/`");
    }
    if let Some(prefix) = prefix {
        let labels: Vec<&str> = prefix.split('.').collect();
        if let Some(label) = labels.iter().find(|label| !is_label(label)) {
            return invalid(&label_problem(label));
        }
        let reserved = labels.get(1).is_some_and(|second| {
            second.eq_ignore_ascii_case("modelcontextprotocol")
                || second.eq_ignore_ascii_case("mcp")
        });
        if reserved {
            let task = if name.contains("task") && kind == Kind::Tool {
                "; to let the tool run as an MCP task, write #[tool(task)]"
            } else {
                ""
            };
            return Some(format!(
                "the `_meta` prefix `{prefix}/` is reserved for MCP itself (MCP reserves every \
                 prefix whose second label is `modelcontextprotocol` or `mcp`), so clients would \
                 read `{key}` as the protocol's: put your own keys under the reverse DNS name of \
                 a domain you own, such as `com.example/{name}`{task}"
            ));
        }
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return invalid(&format!("its name `{name}` holds {}", shown(bad)));
    }
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let ends_ok = alnum(name.chars().next()) && alnum(name.chars().last());
    // A prefix alone (`com.example/`) is a key too: MCP's name may be empty.
    let prefix_only = name.is_empty() && prefix.is_some();
    if !(ends_ok || prefix_only) {
        return invalid(&format!(
            "its name `{name}` does not start and end with a letter or digit"
        ));
    }
    None
}

/// What is wrong with a label of a `_meta` prefix.
fn label_problem(label: &str) -> String {
    if label.is_empty() {
        return "its prefix has an empty label".to_owned();
    }
    if let Some(bad) = label
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
    {
        return format!("the label `{label}` of its prefix holds {}", shown(bad));
    }
    if !label.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return format!("the label `{label}` of its prefix does not start with a letter");
    }
    format!("the label `{label}` of its prefix does not end with a letter or digit")
}

/// A character in a message: `` `_` ``, or "a space".
fn shown(c: char) -> String {
    match c {
        ' ' => "a space".to_owned(),
        c => format!("`{c}`"),
    }
}

/// A label of a `_meta` prefix: a letter first, a letter or digit last, `-` allowed between.
fn is_label(label: &str) -> bool {
    label.starts_with(|c: char| c.is_ascii_alphabetic())
        && label.ends_with(|c: char| c.is_ascii_alphanumeric())
        && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// `#[arg(header)]`: a header name MCP clients can send, once per tool, on a parameter that is
/// one property of the arguments. (That its type is a string, an integer or a boolean is a
/// trait bound: see `expand::checks`.)
fn check_headers(cx: &Ctxt, tool: &Item) {
    let mut seen: HashMap<String, &crate::ast::Param> = HashMap::new();
    for param in &tool.params {
        let Some(header) = &param.arg.header else {
            continue;
        };
        let name = crate::valid::pat_name(param);
        match &param.kind {
            ParamKind::Field(_) => {}
            ParamKind::WholeStruct(_) => {
                cx.error_at(
                    header.span,
                    "`header` names one argument, and this is the whole argument struct: put \
                     `#[schemars(extend(\"x-mcp-header\" = \"…\"))]` on the struct's field instead",
                );
                continue;
            }
            // Reported with the other keys a context parameter cannot take.
            ParamKind::Context | ParamKind::ResourceUri | ParamKind::Unsupported => continue,
        }
        if param.serde.flatten.is_some() {
            cx.error_at(
                header.span,
                format!(
                    "`header` cannot go on `{name}`, which is `#[serde(flatten)]`: its fields \
                     are arguments of their own, and a header mirrors one argument; put \
                     `#[schemars(extend(\"x-mcp-header\" = \"…\"))]` on the flattened struct's \
                     field instead"
                ),
            );
            continue;
        }
        if let Some(why) = header_name_problem(&header.value) {
            cx.error_at(header.span, why);
            continue;
        }
        if let Some(inner) = crate::valid::option_inner(&param.ty) {
            cx.error_spanned_by(
                &param.ty,
                format!(
                    "an `Option` argument cannot be mirrored into an HTTP header: its schema's \
                     `type` is a list (`[\"…\", \"null\"]`), and MCP clients mirror only a \
                     property whose `type` is `string`, `integer` or `boolean` (rmcp's HTTP \
                     client refuses the whole tool otherwise); take `{name}: {}` with \
                     #[arg(default = …)] to make it optional",
                    crate::ast::as_written(inner)
                ),
            );
        }
        let folded = header.value.to_ascii_lowercase();
        if let Some(first) = seen.get(&folded) {
            let first_header = first.arg.header.as_ref().map_or("", |h| h.value.as_str());
            cx.error_at(
                header.span,
                format!(
                    "the parameters `{}` (`header = \"{first_header}\"`) and `{name}` \
                     (`header = \"{}\"`) would both be sent in one HTTP header (header names are \
                     case-insensitive), and MCP clients refuse a tool that names a header twice: \
                     give one of them another #[arg(header = \"…\")]",
                    crate::valid::pat_name(first),
                    header.value
                ),
            );
        } else {
            seen.insert(folded, param);
        }
    }
}

/// Why `name` cannot be an HTTP header name (RFC 9110 §5.6.2: a token).
fn header_name_problem(name: &str) -> Option<String> {
    const TOKEN: &str = "a header name is letters, digits and ``!#$%&'*+-.^_`|~`` only";
    if name.is_empty() {
        return Some(format!(
            "the header name is empty: name the HTTP header MCP clients send this argument in \
             (`header = \"Region\"` sends `Mcp-Param-Region`); {TOKEN}"
        ));
    }
    let bad = name.chars().find(|&c| !is_tchar(c))?;
    Some(format!(
        "`{name}` is not an HTTP header name: it contains {}, and {TOKEN} (RFC 9110)",
        shown(bad)
    ))
}

/// RFC 9110 §5.6.2 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// MCP `icons` as JSON text; `None` without icons.
pub fn icons_json(icons: &[Icon]) -> Option<String> {
    if icons.is_empty() {
        return None;
    }
    let mut out = String::from("[");
    for (i, icon) in icons.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let mut fields: Vec<(&str, Json)> = Vec::new();
        let text = |s: &crate::attr::Spanned<String>| Json::String(s.value.clone());
        if let Some(src) = &icon.src {
            fields.push(("src", text(src)));
        }
        if let Some(mime) = &icon.mime_type {
            fields.push(("mimeType", text(mime)));
        }
        if let Some(sizes) = &icon.sizes {
            let sizes = sizes.value.split_whitespace();
            fields.push((
                "sizes",
                Json::Array(sizes.map(|s| Json::String(s.to_owned())).collect()),
            ));
        }
        if let Some(theme) = &icon.theme {
            fields.push(("theme", text(theme)));
        }
        json::write_object(fields.iter().map(|(k, v)| (*k, v)), &mut out);
    }
    out.push(']');
    Some(out)
}

/// A resource's `annotations` as JSON text (MCP's names: `lastModified`); `None` without them.
pub fn annotations_json(annotations: Option<&Annotations>) -> Option<String> {
    let annotations = annotations?;
    let mut fields: Vec<(&str, Json)> = Vec::new();
    if let Some(audience) = &annotations.audience {
        let roles = audience.iter().map(|role| Json::String(role.value.clone()));
        fields.push(("audience", Json::Array(roles.collect())));
    }
    if let Some(priority) = &annotations.priority {
        fields.push(("priority", Json::Number(priority.value.1.to_string())));
    }
    if let Some(last_modified) = &annotations.last_modified {
        fields.push(("lastModified", Json::String(last_modified.value.clone())));
    }
    let mut out = String::new();
    json::write_object(fields.iter().map(|(k, v)| (*k, v)), &mut out);
    Some(out)
}

/// MCP `_meta` as JSON text; `None` without entries.
pub fn meta_json(item: &Item) -> Option<String> {
    let meta = &item.attrs.meta;
    if meta.is_empty() {
        return None;
    }
    let mut out = String::new();
    json::write_object(
        meta.iter().map(|e| (e.key.value.as_str(), &e.value)),
        &mut out,
    );
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_keys() {
        for ok in [
            "tags",
            "com.example/tags",
            "com.example-app/v1.tags",
            "a",
            "x/",
            "dev.example.mcp/x",
        ] {
            assert!(meta_key_problem(ok, Kind::Tool).is_none(), "{ok}");
        }
        for bad in [
            "",
            "-tags",
            "tags-",
            "a b",
            "com..example/x",
            "1com.example/x",
            "a/b/c",
            "/x",
        ] {
            assert!(meta_key_problem(bad, Kind::Tool).is_some(), "{bad}");
        }
        for reserved in [
            "io.modelcontextprotocol/x",
            "dev.mcp/x",
            "com.MCP.tools/x",
            "org.modelcontextprotocol.api/y",
        ] {
            assert!(
                meta_key_problem(reserved, Kind::Tool)
                    .unwrap()
                    .contains("reserved"),
                "{reserved}"
            );
        }
        assert!(
            meta_key_problem("io.modelcontextprotocol/tasks", Kind::Tool)
                .unwrap()
                .contains("#[tool(task)]")
        );
    }

    #[test]
    fn icon_parts() {
        assert!(is_icon_size("48x48") && is_icon_size("any") && is_icon_size("1024x768"));
        assert!(
            !is_icon_size("48")
                && !is_icon_size("48X48")
                && !is_icon_size("0x1")
                && !is_icon_size("x48")
        );
        assert!(src_problem("https://example.com/a.png").is_none());
        assert!(src_problem("data:image/png;base64,AAAA").is_none());
        assert!(src_problem("HTTP://example.com/a.png").is_none());
        assert!(src_problem("/static/a.png").is_some());
        assert!(src_problem("file:///a.png").is_some());
        assert!(src_problem("https://example.com/a b.png").is_some());
        assert!(src_problem(" ").is_some());
    }

    #[test]
    fn timestamps_and_mime_types() {
        for ok in [
            "2025-01-12T15:00:58Z",
            "2025-01-12T15:00:58.123Z",
            "2025-01-12T15:00:58+01:00",
            "2025-01-12t15:00:58-05:30",
        ] {
            assert!(is_timestamp(ok), "{ok}");
        }
        for bad in [
            "2025-01-12",
            "2025-01-12T15:00:58",
            "2025-13-12T15:00:58Z",
            "2025-01-12T25:00:58Z",
            "2025-01-12T15:00:58.Z",
            "2025-01-12T15:00:58+0100",
            "yesterday",
        ] {
            assert!(!is_timestamp(bad), "{bad}");
        }
        assert!(mime_problem("text/markdown").is_none());
        assert!(mime_problem("text/plain; charset=utf-8").is_none());
        assert!(mime_problem("markdown").is_some());
        assert!(mime_problem("text/").is_some());
        assert!(mime_problem("text /plain").is_some());
    }

    #[test]
    fn header_names() {
        assert!(header_name_problem("X-Region").is_none());
        assert!(header_name_problem("Region_1").is_none());
        assert!(header_name_problem("").unwrap().contains("empty"));
        assert!(header_name_problem("X Region").unwrap().contains("a space"));
        assert!(header_name_problem("X:Region").unwrap().contains("`:`"));
        assert!(header_name_problem("Région").is_some());
    }
}
