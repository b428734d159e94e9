use tooldef::{tool, tools};

struct Server;

#[tools]
impl Server {
    /// Ping.
    #[tool]
    fn ping(&self) -> String {
        "pong".to_owned()
    }

    fn toolset(&self) -> Vec<String> {
        vec!["ping".to_owned()]
    }
}

fn main() {}
