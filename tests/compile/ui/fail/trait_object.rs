use tooldef::tool;

/// Run.
#[tool]
fn run(job: Box<dyn Fn() + Send>) {
    job()
}

fn main() {}
