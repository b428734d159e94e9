//! W3C Trace Context (<https://www.w3.org/TR/trace-context/>): the `traceparent` and
//! `tracestate` a client sends, read as the parent of its request's span, and a span's own
//! context written for the upstream (headers) and for MCP servers (a `tools/call` request's
//! `_meta`, the keys MCP's OpenTelemetry conventions name).
//!
//! A span has a context of its own only when an OpenTelemetry layer records it (the CLI's, with
//! `--otlp-endpoint`). Without one, the client's context is passed on unchanged, so that what the
//! upstream and the servers record still hangs from the client's span rather than from one of the
//! gateway's that no one keeps.

use axum::http::{HeaderMap, HeaderValue};
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
use serde_json::{Map, Value};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The header (and `_meta` key) of the trace and the parent span.
pub const TRACEPARENT: &str = "traceparent";
/// The header (and `_meta` key) of the vendors' trace state.
pub const TRACESTATE: &str = "tracestate";

/// A trace context as its two headers write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    /// `00-TRACEID-SPANID-FLAGS`.
    pub traceparent: String,
    /// The vendors' list, when there is one.
    pub tracestate: Option<String>,
}

impl Carried {
    /// The context `headers` carry, when their `traceparent` is valid (one header, a version
    /// this reads); several `tracestate` headers are one list.
    pub fn from_headers(headers: &HeaderMap) -> Option<Carried> {
        let mut parents = headers.get_all(TRACEPARENT).iter();
        let traceparent = parents.next()?.to_str().ok()?.trim();
        if parents.next().is_some() {
            // Two parents: the specification says to take neither.
            return None;
        }
        parse_traceparent(traceparent)?;
        let states: Vec<&str> = headers
            .get_all(TRACESTATE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .collect();
        Some(Carried {
            traceparent: traceparent.to_owned(),
            tracestate: (!states.is_empty()).then(|| states.join(",")),
        })
    }

    /// The context as OpenTelemetry's, of a remote span; a `tracestate` that does not parse is
    /// dropped, the parent kept (as the specification says).
    pub fn span_context(&self) -> Option<SpanContext> {
        let (trace_id, span_id, flags) = parse_traceparent(&self.traceparent)?;
        let state = self
            .tracestate
            .as_deref()
            .and_then(|state| state.parse::<TraceState>().ok())
            .unwrap_or_default();
        Some(SpanContext::new(trace_id, span_id, flags, true, state))
    }

    /// A span context written out.
    pub fn of(context: &SpanContext) -> Carried {
        let state = context.trace_state().header();
        Carried {
            traceparent: format!(
                "00-{:032x}-{:016x}-{:02x}",
                context.trace_id(),
                context.span_id(),
                context.trace_flags().to_u8()
            ),
            tracestate: (!state.is_empty()).then_some(state),
        }
    }

    /// Writes it into `headers`, in place of what they had.
    pub fn write_headers(&self, headers: &mut HeaderMap) {
        headers.remove(TRACESTATE);
        let values = [
            (TRACEPARENT, Some(&self.traceparent)),
            (TRACESTATE, self.tracestate.as_ref()),
        ];
        for (name, value) in values {
            if let Some(value) = value.and_then(|v| HeaderValue::from_str(v).ok()) {
                headers.insert(name, value);
            }
        }
    }

    /// Its keys for an MCP request's `_meta`.
    pub fn meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert(
            TRACEPARENT.to_owned(),
            Value::String(self.traceparent.clone()),
        );
        if let Some(state) = &self.tracestate {
            meta.insert(TRACESTATE.to_owned(), Value::String(state.clone()));
        }
        meta
    }
}

/// Makes the client's context `span`'s parent (before the span starts), when an
/// OpenTelemetry layer records it; otherwise there is nothing to do.
pub fn adopt(span: &Span, client: &Carried) {
    if let Some(parent) = client.span_context() {
        // Without the layer, or for a disabled span, there is no parent to set.
        let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(parent));
    }
}

/// What to pass on from inside `span`: its own context when an OpenTelemetry layer records it,
/// else the client's as it came (if any).
pub fn outgoing(span: &Span, client: Option<&Carried>) -> Option<Carried> {
    let context = span.context();
    let own = context.span().span_context().clone();
    if own.is_valid() {
        Some(Carried::of(&own))
    } else {
        client.cloned()
    }
}

/// A `traceparent`'s trace id, parent id and flags, when it is valid: two hex digits of version
/// (not `ff`), then lowercase hex ids that are not all zeros. A later version may add fields
/// after a `-`; version `00` has none.
fn parse_traceparent(value: &str) -> Option<(TraceId, SpanId, TraceFlags)> {
    let hex = |s: &str, len: usize| {
        s.len() == len
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let version = value.get(..2)?;
    if !hex(version, 2) || version == "ff" {
        return None;
    }
    let fields = match value.get(55..) {
        Some("") => value,
        Some(rest) if version != "00" && rest.starts_with('-') => &value[..55],
        _ => return None,
    };
    let mut parts = fields.split('-');
    let (_, trace_id, span_id, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if !(hex(trace_id, 32) && hex(span_id, 16) && hex(flags, 2)) || parts.next().is_some() {
        return None;
    }
    let trace_id = TraceId::from_hex(trace_id).ok()?;
    let span_id = SpanId::from_hex(span_id).ok()?;
    let flags = TraceFlags::new(u8::from_str_radix(flags, 16).ok()?);
    (trace_id != TraceId::INVALID && span_id != SpanId::INVALID)
        .then_some((trace_id, span_id, flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn a_valid_traceparent_is_read_with_its_state() {
        let carried = Carried::from_headers(&headers(&[
            (TRACEPARENT, PARENT),
            (TRACESTATE, "rojo=00f067aa0ba902b7"),
            (TRACESTATE, "congo=t61rcWkgMzE"),
        ]))
        .unwrap();
        assert_eq!(carried.traceparent, PARENT);
        assert_eq!(
            carried.tracestate.as_deref(),
            Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        );
        let context = carried.span_context().unwrap();
        assert_eq!(
            format!("{:032x}", context.trace_id()),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(format!("{:016x}", context.span_id()), "00f067aa0ba902b7");
        assert!(context.is_sampled() && context.is_remote());
        assert_eq!(context.trace_state().get("congo"), Some("t61rcWkgMzE"));
        // Written out again, it is what came.
        assert_eq!(Carried::of(&context), carried);
    }

    #[test]
    fn invalid_traceparents_are_ignored() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-+bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ] {
            assert_eq!(parse_traceparent(bad), None, "{bad}");
        }
        // A later version may add fields; its first four are read.
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-what-comes";
        assert!(parse_traceparent(later).is_some());
        // Two parents are none.
        let two = headers(&[(TRACEPARENT, PARENT), (TRACEPARENT, PARENT)]);
        assert_eq!(Carried::from_headers(&two), None);
        // A state that does not parse is dropped, the parent kept.
        let odd = Carried {
            traceparent: PARENT.to_owned(),
            tracestate: Some("no equals sign".to_owned()),
        };
        assert!(
            odd.span_context()
                .unwrap()
                .trace_state()
                .header()
                .is_empty()
        );
    }

    #[test]
    fn without_an_opentelemetry_layer_the_clients_context_goes_on_unchanged() {
        let client = Carried {
            traceparent: PARENT.to_owned(),
            tracestate: Some("k=v".to_owned()),
        };
        let span = Span::none();
        adopt(&span, &client);
        let out = outgoing(&span, Some(&client)).unwrap();
        assert_eq!(out, client);
        assert_eq!(outgoing(&span, None), None);
        let mut sent = headers(&[
            (TRACEPARENT, "stale"),
            (TRACESTATE, "a=1"),
            (TRACESTATE, "b=2"),
        ]);
        out.write_headers(&mut sent);
        assert_eq!(sent.get_all(TRACEPARENT).iter().count(), 1);
        assert_eq!(sent[TRACEPARENT], PARENT);
        assert_eq!(sent.get_all(TRACESTATE).iter().collect::<Vec<_>>(), ["k=v"]);
        assert_eq!(
            Value::Object(out.meta()),
            serde_json::json!({"traceparent": PARENT, "tracestate": "k=v"})
        );
    }
}
