//! Listing 1,000 tools for a target, cold and after warm-up. `cargo bench --bench list`.

use std::hint::black_box;
use std::sync::OnceLock;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use tooldef::{CallContext, ContextError, ReturnValue, Target, Tool, ToolDefinition, ToolSet};

/// A tool whose definition is made at run time, so that 1,000 distinct tools need no 1,000
/// types.
struct Numbered(&'static ToolDefinition);

impl Tool for Numbered {
    type Args = serde_json::Value;
    type Output = ();
    const NAME: &'static str = "numbered";

    fn definition(&self) -> &'static ToolDefinition {
        self.0
    }

    async fn call(&self, _: Self::Args, _: CallContext) -> Result<(), ContextError> {
        Ok(())
    }

    fn output(_: ()) -> Result<ReturnValue, String> {
        Ok(ReturnValue::Json(serde_json::Value::Null))
    }
}

/// 1,000 definitions of the shape of a typical tool: four parameters, one nested object, a
/// default, a range and an enum.
fn definitions() -> &'static [&'static ToolDefinition] {
    static DEFINITIONS: OnceLock<Vec<&'static ToolDefinition>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        (0..1000)
            .map(|i| {
                let schema = schemars::json_schema!({
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What to look for.", "minLength": 1},
                        "limit": {"type": "integer", "format": "uint32", "minimum": 1, "maximum": 100, "default": 10},
                        "order": {"$ref": "#/$defs/Order", "default": "asc"},
                        "filter": {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}]}
                    },
                    "additionalProperties": false,
                    "required": ["query"],
                    "$defs": {
                        "Order": {"oneOf": [{"const": "asc", "description": "Oldest first."}, {"const": "desc", "description": "Newest first."}]},
                        "Filter": {"type": "object", "properties": {"field": {"type": "string"}, "value": {"type": "string"}}, "required": ["field", "value"]}
                    }
                });
                &*Box::leak(Box::new(
                    ToolDefinition::builder(format!("tool_{i}"))
                        .description(format!("Tool number {i}."))
                        .input_schema(schema)
                        .build(),
                ))
            })
            .collect()
    })
}

fn toolset() -> ToolSet {
    definitions()
        .iter()
        .fold(ToolSet::builder(), |builder, &d| builder.tool(Numbered(d)))
        .build()
        .unwrap()
}

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
