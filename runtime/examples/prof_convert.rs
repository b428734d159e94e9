//! One process, `n` passes over the github-mcp-server corpus, for `valgrind --tool=callgrind`:
//! `prof_convert floor|convert|memory <n>` (`memory`: the corpus parsed once, then only the
//! conversion, its result dropped unserialised: what the naive converter's own driver measures). Instructions per pass = (total(6) - total(1)) / 5, which
//! leaves out the process's start. `docs/BENCHMARKS.md` has the figures.
use std::hint::black_box;

use serde_json::Value;
use tooldef::Target;
use tooldef::convert::{ConvertOptions, convert};

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/corpus/github-mcp-server.tools.json"
);

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "convert".to_owned());
    let passes: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let bytes = std::fs::read(CORPUS).unwrap_or_else(|err| panic!("{CORPUS}: {err}"));
    let options = ConvertOptions::default();
    if mode == "memory" {
        let value: Value = serde_json::from_slice(&bytes).expect("the corpus is JSON");
        for _ in 0..passes {
            let converted = convert(black_box(&value), Target::ChatCompletions, &options)
                .expect("the corpus converts");
            black_box(converted);
        }
        return;
    }
    for _ in 0..passes {
        let value: Value = serde_json::from_slice(black_box(&bytes)).expect("the corpus is JSON");
        let out = match mode.as_str() {
            "floor" => serde_json::to_vec(&value),
            _ => {
                let converted = convert(&value, Target::ChatCompletions, &options)
                    .expect("the corpus converts");
                serde_json::to_vec(&converted.into_json())
            }
        };
        black_box(out.expect("JSON"));
    }
}
