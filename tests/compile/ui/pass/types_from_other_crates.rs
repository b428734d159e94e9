use tooldef::tool;

/// Schedule.
#[tool]
fn schedule(
    at: chrono::DateTime<chrono::Utc>,
    day: chrono::NaiveDate,
    id: uuid::Uuid,
    callback: url::Url,
) -> String {
    format!("{at} {day} {id} {callback}")
}

fn main() {}
