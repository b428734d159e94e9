use std::time::{Duration, SystemTime};

use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

/// `Duration` and `SystemTime` are plain objects in serde and schemars, so every target can
/// express them.
#[derive(Deserialize, JsonSchema, Portable)]
struct Reminder {
    at: SystemTime,
    repeat_every: Option<Duration>,
}

/// Wait a while.
#[tool]
fn wait(how_long: Duration, reminder: Reminder) -> u64 {
    let _ = reminder.at;
    how_long.as_secs() + reminder.repeat_every.map_or(0, |d| d.as_secs())
}

fn main() {
    use tooldef::{Target, Tool};
    for target in Target::ALL {
        Wait.definition().to_json(target).unwrap();
    }
}
