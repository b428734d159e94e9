use tooldef::{CallContext, FromCallContext, ContextError, State, tool};

#[derive(Clone)]
struct Db;

struct UserId(String);

impl FromCallContext for UserId {
    fn from_call_context(_: &CallContext) -> Result<Self, ContextError> {
        Ok(UserId("u1".into()))
    }
}

/// Query.
#[tool]
async fn query(
    State(db): State<Db>,
    /// The SQL.
    sql: String,
    context: CallContext,
    #[context] user: UserId,
) -> String {
    let _ = (db, context);
    format!("{sql} as {}", user.0)
}

fn main() {}
