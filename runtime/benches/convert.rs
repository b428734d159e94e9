//! Converting the github-mcp-server corpus (117 tools) for Chat Completions, against the floor: a
//! plain serde_json parse and serialise of the same bytes. `cargo bench -p tooldef --bench convert`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;
use tooldef::Target;
use tooldef::convert::{ConvertOptions, convert};

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/corpus/github-mcp-server.tools.json"
);

fn converting(c: &mut Criterion) {
    let bytes = std::fs::read(CORPUS).unwrap_or_else(|err| panic!("{CORPUS}: {err}"));
    let tools = serde_json::from_slice::<Value>(&bytes).unwrap()["tools"]
        .as_array()
        .unwrap()
        .len();
    let mut group = c.benchmark_group("github corpus");
    group.throughput(Throughput::Elements(tools as u64));
    group.bench_function("floor: parse + serialise", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_slice(black_box(&bytes)).unwrap();
            black_box(serde_json::to_vec(&value).unwrap())
        })
    });
    let options = ConvertOptions::default();
    group.bench_function("parse + convert for chat + serialise", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_slice(black_box(&bytes)).unwrap();
            let converted = convert(&value, Target::ChatCompletions, &options).unwrap();
            black_box(serde_json::to_vec(&converted.into_json()).unwrap())
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(4));
    targets = converting
}
criterion_main!(benches);
