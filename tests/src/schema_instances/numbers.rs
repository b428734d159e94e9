//! Integers and numbers within a node's bounds (`minimum`, `maximum`, `exclusiveMinimum`,
//! `exclusiveMaximum`, `multipleOf`), leaning on the values where bugs live: the bounds
//! themselves, the 32- and 64-bit extremes, integers written as integer-valued floats (`3.0`,
//! `-9223372036854775808.0`), `-0.0`, and `f32`'s and `f64`'s extremes. An integer schema
//! without bounds sometimes gets an integer beyond 64 bits (written as a float, the only way
//! JSON text from serde_json can carry it): the schema allows it.

use serde_json::{Number, Value};

use super::rng::Rng;

fn bound(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

fn exact_bound(schema: &Value, key: &str) -> Option<i128> {
    let n = schema.get(key)?.as_number()?;
    super::node::as_integer(n).or_else(|| n.as_f64().map(|f| f as i128))
}

/// The smallest and largest integers the node allows (`None`: unbounded on that side).
pub fn integer_range(schema: &Value) -> (Option<i128>, Option<i128>) {
    let mut lo = None::<i128>;
    let mut hi = None::<i128>;
    if let Some(min) = bound(schema, "minimum") {
        lo = Some(
            exact_bound(schema, "minimum")
                .filter(|_| min.fract() == 0.0)
                .unwrap_or(min.ceil() as i128),
        );
    }
    if let Some(min) = bound(schema, "exclusiveMinimum") {
        let candidate = min.floor() as i128 + 1;
        lo = Some(lo.map_or(candidate, |l| l.max(candidate)));
    }
    if let Some(max) = bound(schema, "maximum") {
        let candidate = exact_bound(schema, "maximum")
            .filter(|_| max.fract() == 0.0)
            .unwrap_or(max.floor() as i128);
        hi = Some(hi.map_or(candidate, |h: i128| h.min(candidate)));
    }
    if let Some(max) = bound(schema, "exclusiveMaximum") {
        let candidate = max.ceil() as i128 - 1;
        hi = Some(hi.map_or(candidate, |h| h.min(candidate)));
    }
    (lo, hi)
}

/// An integer as JSON: an integer literal where it fits 64 bits (now and then an
/// integer-valued float where that float is exact), a float beyond.
pub fn integer_json(n: i128, rng: &mut Rng, float_rate: f64) -> Value {
    let exact_float = (n as f64) as i128 == n && (n as f64).is_finite();
    if exact_float
        && (rng.chance(float_rate) || (i64::try_from(n).is_err() && u64::try_from(n).is_err()))
    {
        if n == 0 && rng.chance(0.1) {
            return Value::Number(Number::from_f64(-0.0).expect("finite"));
        }
        return Value::Number(Number::from_f64(n as f64).expect("finite"));
    }
    if let Ok(i) = i64::try_from(n) {
        Value::from(i)
    } else if let Ok(u) = u64::try_from(n) {
        Value::from(u)
    } else {
        // Not exactly representable: the nearest float, which is still an integer.
        Value::Number(Number::from_f64(n as f64).expect("finite"))
    }
}

const POW53: i128 = 1 << 53;

/// An integer the node allows.
pub fn integer(schema: &Value, rng: &mut Rng, float_rate: f64) -> Value {
    let (lo, hi) = integer_range(schema);
    let multiple = schema.get("multipleOf").and_then(Value::as_f64);
    if let Some(m) = multiple {
        assert!(
            m.fract() == 0.0 && m > 0.0,
            "integer multipleOf {m} is not supported"
        );
        let m = m as i128;
        let k_lo = lo.map_or(-1000, |l| {
            l.div_euclid(m) + i128::from(l.rem_euclid(m) != 0)
        });
        let k_hi = hi.map_or(k_lo.max(0) + 1000, |h| h.div_euclid(m));
        let k = if rng.chance(0.3) {
            if rng.chance(0.5) { k_lo } else { k_hi }
        } else {
            rng.int_between(k_lo, k_hi.max(k_lo))
        };
        return integer_json(k * m, rng, float_rate);
    }
    let beyond_64 = [
        1i128 << 64,
        1i128 << 70,
        -(1i128 << 64),
        100_000_000_000_000_000_000,
    ];
    let extremes = [
        i128::from(i32::MIN),
        i128::from(i32::MAX),
        i128::from(u32::MAX),
        i128::from(i64::MIN),
        i128::from(i64::MAX),
        i128::from(u64::MAX),
        POW53,
        -POW53,
        POW53 + 1,
    ];
    let n = loop {
        let candidate = match (lo, hi) {
            (Some(lo), Some(hi)) => match rng.weighted(&[2, 2, 1, 1, 1, 6, 2]) {
                0 => lo,
                1 => hi,
                2 => (lo + 1).min(hi),
                3 => (hi - 1).max(lo),
                4 => 0i128.clamp(lo, hi),
                5 => rng.int_between(lo, hi),
                _ => rng.int_between(lo, hi.min(lo + 20)),
            },
            _ => match rng.weighted(&[3, 6, 3, 2, 3, 1]) {
                0 => lo.or(hi).unwrap_or(0),
                1 => rng.int_between(-100, 100) + lo.or(hi).unwrap_or(0),
                2 => rng.int_between(-1_000_000, 1_000_000),
                3 => rng.int_between(-(1 << 40), 1 << 40),
                4 => *rng.pick(&extremes),
                _ => {
                    if rng.chance(0.5) {
                        *rng.pick(&beyond_64)
                    } else {
                        *rng.pick(&extremes)
                    }
                }
            },
        };
        if lo.is_none_or(|lo| candidate >= lo) && hi.is_none_or(|hi| candidate <= hi) {
            break candidate;
        }
    };
    integer_json(n, rng, float_rate)
}

/// The float right after `x` (towards +∞).
pub fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let bits = x.to_bits();
    f64::from_bits(if x > 0.0 { bits + 1 } else { bits - 1 })
}

/// The float right before `x` (towards -∞).
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// Special floats worth sending where the bounds allow them.
const SPECIAL: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    0.5,
    1e-7,
    3.4028235e38,
    -3.4028235e38,
    1e-45,
    1.1754944e-38,
    1e39,
    -1e39,
    f64::MAX,
    f64::MIN,
    5e-324,
    2.2250738585072014e-308,
    9007199254740993.0,
    1e300,
];

/// A number the node allows.
pub fn number(schema: &Value, rng: &mut Rng) -> Value {
    let lo_incl = bound(schema, "minimum");
    let lo_excl = bound(schema, "exclusiveMinimum");
    let hi_incl = bound(schema, "maximum");
    let hi_excl = bound(schema, "exclusiveMaximum");
    let lo = match (lo_incl, lo_excl) {
        (Some(a), Some(b)) => Some(a.max(next_up(b))),
        (Some(a), None) => Some(a),
        (None, Some(b)) => Some(next_up(b)),
        (None, None) => None,
    };
    let hi = match (hi_incl, hi_excl) {
        (Some(a), Some(b)) => Some(a.min(next_down(b))),
        (Some(a), None) => Some(a),
        (None, Some(b)) => Some(next_down(b)),
        (None, None) => None,
    };
    let allowed = |x: f64| lo.is_none_or(|lo| x >= lo) && hi.is_none_or(|hi| x <= hi);
    if let Some(m) = schema.get("multipleOf").and_then(Value::as_f64) {
        let k_lo = lo.map_or(-1000.0, |l| (l / m).ceil());
        let k_hi = hi.map_or(k_lo.max(0.0) + 1000.0, |h| (h / m).floor());
        let k = rng.int_between(k_lo as i128, (k_hi as i128).max(k_lo as i128)) as f64;
        return float_json(k * m, rng);
    }
    for _ in 0..50 {
        let candidate = match rng.weighted(&[3, 3, 6, 4, 3, 2]) {
            0 => lo.or(hi).unwrap_or(0.0),
            1 => hi.or(lo).unwrap_or(1.0),
            2 => match (lo, hi) {
                (Some(lo), Some(hi)) => lo + (hi - lo) * rng.unit(),
                (Some(lo), None) => lo + 1000.0 * rng.unit(),
                (None, Some(hi)) => hi - 1000.0 * rng.unit(),
                (None, None) => (rng.unit() - 0.5) * 2000.0,
            },
            // A short decimal, as a model writes numbers.
            3 => {
                let base = lo.or(hi).unwrap_or(0.0).clamp(-1e15, 1e15);
                ((base + (rng.unit() - 0.5) * 200.0) * 100.0).round() / 100.0
            }
            4 => *rng.pick(SPECIAL),
            _ => rng.int_between(-1000, 1000) as f64,
        };
        if candidate.is_finite() && allowed(candidate) {
            return float_json(candidate, rng);
        }
    }
    float_json(lo.or(hi).unwrap_or(0.0), rng)
}

/// A float as JSON: an integral one sometimes as an integer literal (`3` is a number too).
fn float_json(x: f64, rng: &mut Rng) -> Value {
    if x.fract() == 0.0 && x.abs() < 9e15 && x.to_bits() != (-0.0f64).to_bits() && rng.chance(0.5) {
        return Value::from(x as i64);
    }
    Value::Number(Number::from_f64(x).expect("finite"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integer_bounds_are_exact() {
        assert_eq!(
            integer_range(&json!({"minimum": 0, "maximum": 18446744073709551615u64})),
            (Some(0), Some(i128::from(u64::MAX)))
        );
        assert_eq!(
            integer_range(&json!({"exclusiveMinimum": 0, "exclusiveMaximum": 10.5})),
            (Some(1), Some(10))
        );
        let mut rng = Rng::new(9);
        for _ in 0..2000 {
            let v = integer(&json!({"minimum": -10, "maximum": 10}), &mut rng, 0.3);
            let n = super::super::node::as_integer(v.as_number().unwrap()).unwrap();
            assert!((-10..=10).contains(&n), "{v}");
            let v = number(&json!({"exclusiveMinimum": 0, "maximum": 1}), &mut rng);
            let x = v.as_f64().unwrap();
            assert!(x > 0.0 && x <= 1.0, "{v}");
        }
    }
}
