use tooldef::{CallContext, State, tool};

struct Db;

/// Look a user up.
#[tool(example(id = 7, db = Db), example(id = 8, context = CallContext::default()))]
fn lookup(db: State<Db>, context: CallContext, id: u64) -> u64 {
    let _ = (db, context);
    id
}

fn main() {}
