//! The gateway's Prometheus metrics, served at `/metrics`: client requests, the upstream calls
//! (rounds) and the tool calls they made, their latencies, and the conversations in flight.
//!
//! They are recorded into a recorder the gateway owns, not into the process's global one: a
//! program that embeds the gateway may have a recorder of its own, and two gateways in one
//! process keep their counts apart. Recording goes through `metrics`' macros with that recorder
//! made the local one for the moment (`metrics::with_local_recorder`; written `::metrics` here,
//! where this module shadows the crate's name).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ::metrics::{
    Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram,
};
use metrics_exporter_prometheus::{
    Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder,
};

/// Client requests answered, by `api` (`chat`, `responses`) and HTTP `status` (`cancelled` for
/// a client that went away before the answer began).
pub const REQUESTS: &str = "tooldef_gateway_requests_total";
/// How long a client request took, to the end of its answer (a stream's last event).
pub const REQUEST_DURATION: &str = "tooldef_gateway_request_duration_seconds";
/// Client requests in flight, a streamed one until its stream ends, by `api`.
pub const LIVE_CONVERSATIONS: &str = "tooldef_gateway_live_conversations";
/// Requests sent to the upstream (one per round), by `api`.
pub const ROUNDS: &str = "tooldef_gateway_rounds_total";
/// How long the upstream took to answer a round, to its answer's headers (for a stream, its
/// start), by `api`.
pub const UPSTREAM_DURATION: &str = "tooldef_gateway_upstream_duration_seconds";
/// Rounds the upstream did not answer with success, by `api` and `class` (`4xx`, `5xx`, or
/// `unreachable` when no answer came).
pub const UPSTREAM_ERRORS: &str = "tooldef_gateway_upstream_errors_total";
/// Injected tool calls run, by `server`, `tool` (its name at the server) and `outcome` (`ok`,
/// `error`, `timeout`).
pub const TOOL_CALLS: &str = "tooldef_gateway_tool_calls_total";
/// How long an injected tool call took, by `server`.
pub const TOOL_CALL_DURATION: &str = "tooldef_gateway_tool_call_duration_seconds";

/// A whole request spans rounds and tool calls: up to minutes.
const REQUEST_BUCKETS: [f64; 13] = [
    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0,
];
/// A model's answer: tens of milliseconds (a stream's start) to minutes (a long answer whole).
const UPSTREAM_BUCKETS: [f64; 12] = [
    0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0,
];
/// A tool: a millisecond in process to its time limit (60 s by default).
const TOOL_BUCKETS: [f64; 14] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// Histogram samples wait in the recorder until upkeep folds them into their buckets; upkeep
/// runs at least this often while requests end, so that a gateway nobody scrapes does not
/// keep every sample.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The gateway's metrics.
pub struct Metrics {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
    /// When the recorder was made; `last_upkeep` counts from it.
    born: Instant,
    /// Milliseconds from `born` to the last upkeep.
    last_upkeep: AtomicU64,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// A recorder with every metric described and the histograms' buckets set.
    pub fn new() -> Metrics {
        let buckets = [
            (REQUEST_DURATION, &REQUEST_BUCKETS[..]),
            (UPSTREAM_DURATION, &UPSTREAM_BUCKETS[..]),
            (TOOL_CALL_DURATION, &TOOL_BUCKETS[..]),
        ];
        let mut builder = PrometheusBuilder::new();
        for (name, values) in buckets {
            builder = builder
                .set_buckets_for_metric(Matcher::Full(name.to_owned()), values)
                .unwrap_or_else(|_| unreachable!("the bucket lists are not empty"));
        }
        let recorder = builder.build_recorder();
        let handle = recorder.handle();
        ::metrics::with_local_recorder(&recorder, || {
            describe_counter!(
                REQUESTS,
                "Client requests answered, by API and HTTP status."
            );
            describe_histogram!(
                REQUEST_DURATION,
                Unit::Seconds,
                "How long a client request took, to the end of its answer (a stream's last event)."
            );
            describe_gauge!(
                LIVE_CONVERSATIONS,
                "Client requests in flight; a streamed one until its stream ends."
            );
            describe_counter!(ROUNDS, "Requests sent to the upstream, one per round.");
            describe_histogram!(
                UPSTREAM_DURATION,
                Unit::Seconds,
                "How long the upstream took to start its answer to a round."
            );
            describe_counter!(
                UPSTREAM_ERRORS,
                "Rounds the upstream answered with an error status (4xx, 5xx) or did not answer (unreachable)."
            );
            describe_counter!(
                TOOL_CALLS,
                "Injected tool calls run, by server, tool and outcome."
            );
            describe_histogram!(
                TOOL_CALL_DURATION,
                Unit::Seconds,
                "How long an injected tool call took, by server."
            );
        });
        Metrics {
            recorder,
            handle,
            born: Instant::now(),
            last_upkeep: AtomicU64::new(0),
        }
    }

    /// The metrics in Prometheus' text format.
    pub fn render(&self) -> String {
        self.handle.render()
    }

    /// A client request began.
    pub fn request_started(&self, api: &'static str) {
        self.record(|| gauge!(LIVE_CONVERSATIONS, "api" => api).increment(1.0));
    }

    /// A client request was answered with `status` (or `cancelled`).
    pub fn request_answered(&self, api: &'static str, status: String) {
        self.record(|| counter!(REQUESTS, "api" => api, "status" => status).increment(1));
    }

    /// A client request's answer ended (or its client went away), `took` after it began.
    pub fn request_ended(&self, api: &'static str, took: Duration) {
        self.record(|| {
            gauge!(LIVE_CONVERSATIONS, "api" => api).decrement(1.0);
            histogram!(REQUEST_DURATION, "api" => api).record(took);
        });
        self.upkeep_now_and_then();
    }

    /// A round: the upstream answered with `status` after `took`, or (`None`) not at all.
    pub fn upstream_called(&self, api: &'static str, status: Option<u16>, took: Duration) {
        self.record(|| {
            counter!(ROUNDS, "api" => api).increment(1);
            histogram!(UPSTREAM_DURATION, "api" => api).record(took);
            let class = match status {
                Some(status) if status < 400 => return,
                Some(status) => format!("{}xx", status / 100),
                None => "unreachable".to_owned(),
            };
            counter!(UPSTREAM_ERRORS, "api" => api, "class" => class).increment(1);
        });
    }

    /// A tool call ended with `outcome` after `took`.
    pub fn tool_called(&self, server: &str, tool: &str, outcome: &'static str, took: Duration) {
        let (server, tool) = (server.to_owned(), tool.to_owned());
        self.record(|| {
            histogram!(TOOL_CALL_DURATION, "server" => server.clone()).record(took);
            counter!(TOOL_CALLS, "server" => server, "tool" => tool, "outcome" => outcome)
                .increment(1);
        });
    }

    fn record(&self, what: impl FnOnce()) {
        ::metrics::with_local_recorder(&self.recorder, what);
    }

    /// Folds the waiting histogram samples into their buckets when the last upkeep is old.
    fn upkeep_now_and_then(&self) {
        let now = u64::try_from(self.born.elapsed().as_millis()).unwrap_or(u64::MAX);
        let last = self.last_upkeep.load(Ordering::Relaxed);
        let due = now.saturating_sub(last) >= UPKEEP_EVERY.as_millis() as u64;
        // One request does it; the others carry on.
        if due
            && self
                .last_upkeep
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.handle.run_upkeep();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of the sample `name{labels}` in `text`, labels written as Prometheus does.
    fn sample(text: &str, name: &str, labels: &str) -> Option<f64> {
        let prefix = format!("{name}{{{labels}}} ");
        text.lines()
            .find_map(|line| line.strip_prefix(&prefix))
            .map(|value| value.parse().unwrap())
    }

    #[test]
    fn names_are_prometheus_style_under_the_gateways_prefix() {
        for name in [
            REQUESTS,
            REQUEST_DURATION,
            LIVE_CONVERSATIONS,
            ROUNDS,
            UPSTREAM_DURATION,
            UPSTREAM_ERRORS,
            TOOL_CALLS,
            TOOL_CALL_DURATION,
        ] {
            assert!(name.starts_with("tooldef_gateway_"), "{name}");
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{name}"
            );
        }
        for counter in [REQUESTS, ROUNDS, UPSTREAM_ERRORS, TOOL_CALLS] {
            assert!(counter.ends_with("_total"), "{counter}");
        }
        for histogram in [REQUEST_DURATION, UPSTREAM_DURATION, TOOL_CALL_DURATION] {
            assert!(histogram.ends_with("_seconds"), "{histogram}");
        }
    }

    #[test]
    fn what_is_recorded_is_rendered_with_its_labels_and_buckets() {
        let metrics = Metrics::new();
        metrics.request_started("chat");
        metrics.request_started("chat");
        metrics.upstream_called("chat", Some(200), Duration::from_millis(30));
        metrics.upstream_called("chat", Some(503), Duration::from_millis(30));
        metrics.upstream_called("chat", None, Duration::from_millis(30));
        metrics.tool_called("example", "crash", "error", Duration::from_millis(3));
        metrics.tool_called("example", "crash", "error", Duration::from_millis(3));
        metrics.tool_called("example", "sleep", "timeout", Duration::from_secs(1));
        metrics.request_answered("chat", "200".to_owned());
        metrics.request_ended("chat", Duration::from_millis(700));
        let text = metrics.render();
        assert_eq!(
            sample(&text, LIVE_CONVERSATIONS, r#"api="chat""#),
            Some(1.0),
            "{text}"
        );
        assert_eq!(
            sample(&text, REQUESTS, r#"api="chat",status="200""#),
            Some(1.0)
        );
        assert_eq!(sample(&text, ROUNDS, r#"api="chat""#), Some(3.0));
        assert_eq!(
            sample(&text, UPSTREAM_ERRORS, r#"api="chat",class="5xx""#),
            Some(1.0)
        );
        assert_eq!(
            sample(&text, UPSTREAM_ERRORS, r#"api="chat",class="unreachable""#),
            Some(1.0)
        );
        assert_eq!(
            sample(
                &text,
                TOOL_CALLS,
                r#"server="example",tool="crash",outcome="error""#
            ),
            Some(2.0)
        );
        assert_eq!(
            sample(
                &text,
                TOOL_CALLS,
                r#"server="example",tool="sleep",outcome="timeout""#
            ),
            Some(1.0)
        );
        let bucket = format!("{REQUEST_DURATION}_bucket");
        assert_eq!(sample(&text, &bucket, r#"api="chat",le="0.5""#), Some(0.0));
        assert_eq!(sample(&text, &bucket, r#"api="chat",le="1""#), Some(1.0));
        assert_eq!(
            sample(
                &text,
                &format!("{TOOL_CALL_DURATION}_count"),
                r#"server="example""#
            ),
            Some(3.0)
        );
        assert!(
            text.contains(&format!("# TYPE {REQUESTS} counter")),
            "{text}"
        );
    }

    #[test]
    fn two_gateways_count_apart_and_the_global_recorder_is_left_alone() {
        let (one, two) = (Metrics::new(), Metrics::new());
        one.upstream_called("responses", Some(200), Duration::ZERO);
        assert_eq!(
            sample(&one.render(), ROUNDS, r#"api="responses""#),
            Some(1.0)
        );
        assert_eq!(sample(&two.render(), ROUNDS, r#"api="responses""#), None);
        // Nothing was installed globally: the application's own recorder can still be.
        assert!(::metrics::set_global_recorder(::metrics::NoopRecorder).is_ok());
    }
}
