use tooldef::{State, tool};

#[derive(Clone, Default)]
struct Db;

/// Query.
#[tool]
fn query(sql: String, #[arg(default)] db: State<Db>) -> String {
    let _ = db;
    sql
}

fn main() {}
