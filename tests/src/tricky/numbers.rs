//! Numbers: 64-bit integers and their extremes, small integers with and without ranges, `f32`
//! and `f64` with and without bounds.

use std::num::NonZeroU64;

use serde_json::{Value, json};
use tooldef::tool;

/// Record counters (64-bit integers).
#[tool]
pub fn record_counters(
    /// A signed total.
    total: i64,
    /// An unsigned count.
    count: u64,
    /// An identifier, never zero.
    id: NonZeroU64,
    /// An optional offset.
    offset: Option<i64>,
    /// A base, -1 unless given.
    #[arg(default = -1)]
    base: i64,
) -> Value {
    json!({"total": total, "count": count, "id": id, "offset": offset, "base": base})
}

/// Set levels (small integers, ranged and not).
#[tool]
#[allow(clippy::too_many_arguments)]
pub fn set_levels(
    /// A percentage.
    #[schemars(range(min = 1, max = 100))]
    percent: u8,
    /// A small adjustment.
    #[schemars(range(min = -10, max = 10))]
    delta: i8,
    /// Any byte.
    byte: u8,
    /// Any small signed number.
    tiny: i8,
    /// A 16-bit value.
    short: i16,
    /// An unsigned 16-bit value.
    word: u16,
    /// A 32-bit value.
    int: i32,
    /// An unsigned 32-bit value.
    uint: u32,
    /// A step, a multiple of 5.
    #[schemars(extend("multipleOf" = 5))]
    step: Option<u32>,
) -> Value {
    json!({
        "percent": percent, "delta": delta, "byte": byte, "tiny": tiny, "short": short,
        "word": word, "int": int, "uint": uint, "step": step,
    })
}

/// Measure (floats without bounds).
#[tool]
pub fn measure(
    /// A ratio, single precision.
    ratio: f32,
    /// A precise value.
    precise: f64,
    /// An optional single-precision value.
    maybe: Option<f32>,
    /// Samples.
    samples: Vec<f32>,
) -> Value {
    json!({"ratio": ratio, "precise": precise, "maybe": maybe, "samples": samples})
}

/// Tune (floats with bounds).
#[tool]
pub fn tune(
    /// Gain.
    #[schemars(range(min = -1.5, max = 2.5))]
    gain: f32,
    /// A fraction.
    #[schemars(range(min = 0.0, max = 1.0))]
    fraction: f64,
    /// Strictly positive.
    #[schemars(extend("exclusiveMinimum" = 0))]
    positive: f64,
    /// Below one hundred.
    #[schemars(extend("exclusiveMaximum" = 100))]
    below: f32,
    /// In quarters.
    #[schemars(extend("multipleOf" = 0.25))]
    quarter: Option<f64>,
) -> Value {
    json!({
        "gain": gain, "fraction": fraction, "positive": positive, "below": below,
        "quarter": quarter,
    })
}
