//! A small call through a `ToolSet` against calling the function after a plain
//! `serde_json::from_str` of its arguments (the floor). `cargo bench --bench call`.

use criterion::{Criterion, criterion_group, criterion_main};
use futures_util::FutureExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use tooldef::{Portable, ToolSet, tool};

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Units.
#[derive(Clone, Copy, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "snake_case")]
enum Units {
    /// Metric.
    Metric,
    /// Imperial.
    Imperial,
}

/// Forecast days for a city.
#[tool]
fn forecast(
    /// The city.
    #[schemars(length(min = 1, max = 100))]
    city: String,
    /// Days.
    #[arg(default = 3)]
    #[schemars(range(min = 1, max = 14))]
    days: u32,
    /// Units.
    #[arg(default = Units::Metric)]
    units: Units,
) -> u32 {
    let _ = (city, units);
    days
}

/// The floor: what a hand-written dispatcher does for one call.
#[derive(Deserialize)]
struct AddFloor {
    a: i64,
    b: i64,
}

#[derive(Deserialize)]
struct ForecastFloor {
    city: String,
    #[serde(default = "three")]
    days: u32,
    #[serde(default = "metric")]
    units: Units,
}

fn three() -> u32 {
    3
}

fn metric() -> Units {
    Units::Metric
}

fn calls(c: &mut Criterion) {
    let validating = ToolSet::builder().tool(Add).tool(Forecast).build().unwrap();
    let unvalidated = ToolSet::builder()
        .tool(Add)
        .tool(Forecast)
        .validation(false)
        .build()
        .unwrap();
    // The tools here never wait, so a call's future is ready on its first poll.
    let call = |tools: &ToolSet, name: &str, args: &str| {
        tools.call(name, args).now_or_never().unwrap().unwrap()
    };

    let add_args = r#"{"a": 2, "b": 40}"#;
    let mut group = c.benchmark_group("add");
    group.bench_function("floor: from_str + call", |b| {
        b.iter(|| {
            let args: AddFloor = serde_json::from_str(black_box(add_args)).unwrap();
            black_box(add(args.a, args.b))
        })
    });
    group.bench_function("toolset, validation on", |b| {
        b.iter(|| black_box(call(&validating, "add", black_box(add_args))))
    });
    group.bench_function("toolset, validation off", |b| {
        b.iter(|| black_box(call(&unvalidated, "add", black_box(add_args))))
    });
    group.finish();

    let forecast_args = r#"{"city": "Lisbon", "days": 5, "units": "imperial"}"#;
    let mut group = c.benchmark_group("forecast");
    group.bench_function("floor: from_str + call", |b| {
        b.iter(|| {
            let args: ForecastFloor = serde_json::from_str(black_box(forecast_args)).unwrap();
            black_box(forecast(args.city, args.days, args.units))
        })
    });
    group.bench_function("toolset, validation on", |b| {
        b.iter(|| black_box(call(&validating, "forecast", black_box(forecast_args))))
    });
    group.bench_function("toolset, validation off", |b| {
        b.iter(|| black_box(call(&unvalidated, "forecast", black_box(forecast_args))))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = calls
}
criterion_main!(benches);
