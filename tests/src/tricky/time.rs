//! chrono's date and time types.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use serde_json::{Value, json};
use tooldef::tool;

/// Book a slot (chrono types).
#[tool]
pub fn book_slot(
    /// The instant, in UTC.
    at: DateTime<Utc>,
    /// The instant, with the caller's offset.
    local: DateTime<FixedOffset>,
    /// A day.
    day: NaiveDate,
    /// A wall-clock time.
    clock: NaiveTime,
    /// A wall-clock date and time.
    stamp: NaiveDateTime,
    /// Another day, if any.
    until: Option<NaiveDate>,
) -> Value {
    json!({
        "at": at, "local": local, "day": day, "clock": clock, "stamp": stamp, "until": until,
    })
}
