use tooldef::tools;

#[tools]
struct Server;

fn main() {}
