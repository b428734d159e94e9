use tooldef::tool;

type AppResult<T> = Result<T, std::io::Error>;

/// A.
#[tool]
fn a() -> std::io::Result<String> {
    Ok(String::new())
}

/// B.
#[tool]
fn b() -> AppResult<Vec<u32>> {
    Ok(vec![])
}

/// C.
#[tool]
fn c() -> Result<(), String> {
    Ok(())
}

/// D.
#[tool]
fn d() -> Option<f64> {
    None
}

/// E.
#[tool]
async fn e() -> &'static str {
    "e"
}

fn main() {}
