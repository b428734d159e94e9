fn main() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/github-mcp-server.tools.json"
    ))
    .unwrap();
    let options = tooldef::convert::ConvertOptions::default();
    let mut n = 0;
    for _ in 0..5 {
        let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let c =
            tooldef::convert::convert(&value, tooldef::Target::ChatCompletions, &options).unwrap();
        n += serde_json::to_vec(&c.tools).unwrap().len();
    }
    println!("{n}");
}
