//! Listing 1,000 tools for a target, cold and after warm-up. `cargo bench --bench list`.

mod support;

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use support::{definitions, toolset};
use tooldef::{Target, ToolDefinition};

fn listing(c: &mut Criterion) {
    let mut group = c.benchmark_group("list 1000 tools");
    for target in Target::ALL {
        let tools = toolset();
        tools.list(target).unwrap();
        group.bench_function(format!("{}, after warm-up", target.short_name()), |b| {
            b.iter(|| black_box(tools.list(black_box(target)).unwrap()))
        });
    }
    // Cold: every definition rendered from its canonical schema (fresh definitions each time).
    group.sample_size(10);
    group.bench_function("mcp, cold (render 1000 definitions)", |b| {
        b.iter_batched(
            || {
                (0..1000)
                    .map(|i| {
                        ToolDefinition::builder(format!("tool_{i}"))
                            .description("A tool.")
                            .input_schema(definitions()[i].input_schema().clone())
                            .build()
                    })
                    .collect::<Vec<_>>()
            },
            |fresh| {
                for definition in &fresh {
                    black_box(definition.render(Target::Mcp).unwrap());
                }
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = listing
}
criterion_main!(benches);
