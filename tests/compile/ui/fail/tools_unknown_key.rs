use tooldef::{tool, tools};

struct Server;

#[tools(read_only, crat = "tooldef")]
impl Server {
    /// Ping.
    #[tool]
    fn ping(&self) -> String {
        "pong".to_owned()
    }
}

fn main() {}
