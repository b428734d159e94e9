//! `#[tool(example(…))]` on a free function and on methods of a `#[tools]` block: each value a
//! Rust expression of its parameter's type, a string literal for a `String` (inside an `Option`
//! too), a plain value for an `Option`, renamed and defaulted parameters, enums, `Self` in a
//! method's example, and `defer_loading`.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooldef::{Portable, State, Tool, tool, tools};

#[derive(Clone, Copy, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

const WEEK: u32 = 7;

/// The weather in a city.
#[tool(
    example(city = "Paris", days = 3),
    example(city = "Lisbon", unit = Unit::Fahrenheit, page_size = Some(2)),
    defer_loading
)]
#[tool(example(city = String::from("Oslo"), days = WEEK, country = "NO", unit = None))]
fn forecast(
    city: String,
    #[arg(default = 1)]
    #[schemars(range(min = 1, max = 14))]
    days: u32,
    country: Option<String>,
    unit: Option<Unit>,
    #[arg(rename = "pageSize")] page_size: Option<u8>,
) -> String {
    let _ = (days, country, unit, page_size);
    city
}

struct Library {
    shelves: u32,
}

#[tools]
impl Library {
    const FIRST: u32 = 1;

    /// Find books.
    #[tool(example(query = "dune"), example(query = "rust", shelf = Self::FIRST, r#type = "paper"))]
    fn search(&self, _state: State<u8>, query: String, shelf: Option<u32>, r#type: Option<String>) -> u32 {
        let _ = (query, r#type);
        shelf.unwrap_or(self.shelves)
    }
}

fn main() {
    assert_eq!(Forecast.definition().examples().len(), 3);
    assert!(Forecast.definition().defer_loading());
    let _ = Arc::new(Library { shelves: 3 }).toolset();
    assert_eq!(LibrarySearch(Arc::new(Library { shelves: 3 })).definition().examples().len(), 2);
}
