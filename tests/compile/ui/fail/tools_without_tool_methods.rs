use tooldef::tools;

struct Server;

#[tools]
impl Server {
    /// Ping.
    fn ping(&self) -> String {
        "pong".to_owned()
    }
}

fn main() {}
