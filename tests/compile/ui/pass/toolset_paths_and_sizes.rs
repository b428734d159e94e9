use tooldef::{tool, toolset};

mod tools {
    pub mod text {
        use tooldef::tool;

        /// Shout.
        #[tool]
        pub fn shout(text: String) -> String {
            text.to_uppercase()
        }

        /// Whisper.
        #[tool]
        pub fn whisper(text: String) -> String {
            text.to_lowercase()
        }
    }
}

/// Add.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    // Tools from another crate and by paths, beside a local one.
    let tools = toolset![
        tooldef_examples::showcase::GetWeather,
        ::tooldef_examples::showcase::GetServerTime,
        crate::tools::text::Shout,
        self::tools::text::Whisper,
        Add,
    ]
    .build()
    .unwrap();
    assert_eq!(tools.len(), 5);

    // One tool, and none.
    assert_eq!(toolset![Add].build().unwrap().len(), 1);
    assert_eq!(toolset![].build().unwrap().len(), 0);
}
