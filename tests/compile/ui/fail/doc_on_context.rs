use tooldef::{CallContext, tool};

/// Query.
#[tool]
fn query(
    sql: String,
    /// The call's context.
    context: CallContext,
) -> String {
    let _ = context;
    sql
}

fn main() {}
