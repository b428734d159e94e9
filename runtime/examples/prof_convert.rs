//! Instruction counts of converting the github corpus, for `valgrind --tool=callgrind`:
//! `prof_convert floor N` parses and serialises the corpus N times; `prof_convert convert N` also
//! converts it for Chat Completions. (The difference between N = 6 and N = 1 is N = 5's work.)
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("convert");
    let n: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(5);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/github-mcp-server.tools.json"
    );
    let bytes = std::fs::read(path).expect("the corpus is beside the project");
    let options = tooldef::convert::ConvertOptions::default();
    let mut written = 0;
    for _ in 0..n {
        let value: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        written += if mode == "floor" {
            serde_json::to_vec(&value).expect("serialises").len()
        } else {
            let converted =
                tooldef::convert::convert(&value, tooldef::Target::ChatCompletions, &options)
                    .expect("converts");
            serde_json::to_vec(&converted.tools)
                .expect("serialises")
                .len()
        };
    }
    println!("{written}");
}
