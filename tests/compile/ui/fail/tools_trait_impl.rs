use tooldef::{tool, tools};

trait Greeter {
    fn greet(&self, name: String) -> String;
}

struct Server;

#[tools]
impl Greeter for Server {
    /// Greet someone.
    #[tool]
    fn greet(&self, name: String) -> String {
        format!("Hello, {name}!")
    }
}

fn main() {}
