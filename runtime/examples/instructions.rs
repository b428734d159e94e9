//! Instruction counts of one call, for `valgrind --tool=callgrind`: deterministic where wall-clock
//! time on a shared machine is not. Run one scenario per process:
//! `valgrind --tool=callgrind target/release/examples/instructions <scenario> 100000`.
use futures_util::FutureExt;
use serde::Deserialize;
use tooldef::{ToolSet, tool};

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Forecast.
#[tool]
fn forecast(
    /// The city.
    #[schemars(length(min = 1, max = 100))]
    city: String,
    /// Days.
    #[arg(default = 3)]
    #[schemars(range(min = 1, max = 14))]
    days: u32,
) -> u32 {
    let _ = city;
    days
}

#[derive(Deserialize)]
struct AddFloor {
    a: i64,
    b: i64,
}

#[derive(Deserialize)]
struct ForecastFloor {
    city: String,
    days: u32,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let validating = ToolSet::builder().tool(Add).tool(Forecast).build().unwrap();
    let plain = ToolSet::builder()
        .tool(Add)
        .tool(Forecast)
        .validation(false)
        .build()
        .unwrap();
    let add_args = r#"{"a": 2, "b": 40}"#;
    let forecast_args = r#"{"city": "Lisbon", "days": 5}"#;
    let mut sink = 0u64;
    for _ in 0..n {
        sink += match args.get(1).map(String::as_str) {
            Some("add-floor") => {
                let a: AddFloor = serde_json::from_str(std::hint::black_box(add_args)).unwrap();
                add(a.a, a.b) as u64
            }
            Some("add-on") => validating
                .call("add", add_args)
                .now_or_never()
                .unwrap()
                .unwrap()
                .content
                .len() as u64,
            Some("add-off") => plain
                .call("add", add_args)
                .now_or_never()
                .unwrap()
                .unwrap()
                .content
                .len() as u64,
            Some("forecast-floor") => {
                let a: ForecastFloor =
                    serde_json::from_str(std::hint::black_box(forecast_args)).unwrap();
                u64::from(forecast(a.city, a.days))
            }
            Some("forecast-on") => validating
                .call("forecast", forecast_args)
                .now_or_never()
                .unwrap()
                .unwrap()
                .content
                .len() as u64,
            Some("forecast-off") => plain
                .call("forecast", forecast_args)
                .now_or_never()
                .unwrap()
                .unwrap()
                .content
                .len() as u64,
            _ => 0,
        };
    }
    println!("{sink}");
}
