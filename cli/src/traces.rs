//! The gateway's logs and spans: logs on stderr (`TOOLDEF_LOG`, as before), and, when a
//! collector is named (`--otlp-endpoint`, `otlp_endpoint` in gateway.toml, or the standard
//! `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), the gateway's spans
//! exported to it over OTLP/HTTP (protobuf) as `service.name` `tooldef-gateway`.
//!
//! The two are filtered apart: the spans go to the collector whatever the log level, and the log
//! lines stay as they were, without the spans around them (which carry the request's fields and,
//! with `--trace-content`, what tools were given and gave).

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{EnvFilter, FilterExt, Targets, filter_fn};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::failure::Failure;

/// The service the spans are of, unless `OTEL_SERVICE_NAME` says otherwise.
const SERVICE_NAME: &str = "tooldef-gateway";
/// Where a collector takes spans, below its base URL.
const TRACES_PATH: &str = "/v1/traces";

/// The exporter, while there is one: [`flush`](Self::flush) it once the gateway has stopped.
pub struct Traces(Option<SdkTracerProvider>);

impl Traces {
    /// Exports the spans still waiting for their batch, and stops the exporter.
    pub fn flush(self) {
        if let Some(provider) = self.0
            && let Err(err) = provider.shutdown()
        {
            eprintln!("tooldef gateway: the last spans could not be exported: {err}");
        }
    }
}

/// Installs the process's subscriber: logs on stderr, spans to the collector `endpoint` (the
/// configuration's) or the environment's, if any.
pub fn install(endpoint: Option<&str>) -> Result<Traces, Failure> {
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(
            EnvFilter::try_from_env("TOOLDEF_LOG")
                .unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"))
                .and(filter_fn(|metadata| !metadata.is_span())),
        );
    let provider = provider(endpoint)?;
    let spans = provider.as_ref().map(|provider| {
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer(SERVICE_NAME))
            // The gateway's spans and the events in them; not its dependencies'.
            .with_filter(Targets::new().with_target("tooldef_gateway", tracing::Level::INFO))
    });
    tracing_subscriber::registry().with(logs).with(spans).init();
    Ok(Traces(provider))
}

/// The tracer provider exporting to `endpoint` or to the environment's collector; none when
/// neither names one, or when `OTEL_SDK_DISABLED` is `true`.
fn provider(endpoint: Option<&str>) -> Result<Option<SdkTracerProvider>, Failure> {
    let set = |name: &str| std::env::var(name).is_ok_and(|value| !value.trim().is_empty());
    let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.eq_ignore_ascii_case("true"));
    let from_environment =
        set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
    if disabled || (endpoint.is_none() && !from_environment) {
        return Ok(None);
    }
    let mut exporter = SpanExporter::builder().with_http();
    if let Some(endpoint) = endpoint {
        exporter = exporter.with_endpoint(traces_url(endpoint)?);
    }
    let exporter = exporter
        .build()
        .map_err(|err| Failure::input(format!("cannot export spans over OTLP: {err}")))?;
    let mut resource = Resource::builder();
    if !set("OTEL_SERVICE_NAME") {
        resource = resource.with_service_name(SERVICE_NAME);
    }
    Ok(Some(
        SdkTracerProvider::builder()
            .with_resource(resource.build())
            .with_batch_exporter(exporter)
            .build(),
    ))
}

/// The collector's traces URL: `BASE/v1/traces`, as `OTEL_EXPORTER_OTLP_ENDPOINT` is read (a URL
/// that already ends so is taken as it is).
fn traces_url(endpoint: &str) -> Result<String, Failure> {
    let endpoint = endpoint.trim();
    if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
        return Err(Failure::input(format!(
            "--otlp-endpoint `{endpoint}`: expected an http:// or https:// URL (an OTLP/HTTP collector, e.g. http://localhost:4318)"
        )));
    }
    let base = endpoint.trim_end_matches('/');
    Ok(if base.ends_with(TRACES_PATH) {
        base.to_owned()
    } else {
        format!("{base}{TRACES_PATH}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_a_collectors_base_url() {
        assert_eq!(
            traces_url("http://localhost:4318").ok().as_deref(),
            Some("http://localhost:4318/v1/traces")
        );
        assert_eq!(
            traces_url("https://otel.example/base/").ok().as_deref(),
            Some("https://otel.example/base/v1/traces")
        );
        assert_eq!(
            traces_url("http://h:4318/v1/traces").ok().as_deref(),
            Some("http://h:4318/v1/traces")
        );
        assert!(traces_url("localhost:4318").is_err());
    }
}
