//! The showcase: a small travel assistant whose tools cover the surface of `#[tool]`: no
//! parameters; strings, numbers and bools; `Option`; defaults of several types; a documented unit
//! enum; a data-carrying enum; a nested struct; a `Vec` of structs; constrained fields (range,
//! length, pattern, format); the whole-struct form; annotations.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooldef::{Args, Portable, Tool, ToolDefinition, ToolSet, ToolSetBuilder, tool, toolset};

/// Every showcase tool in one [`ToolSet`], in the order of [`definitions`].
pub fn toolset() -> ToolSet {
    toolset_builder()
        .build()
        // `toolset!` checked at compile time that the names are distinct.
        .unwrap_or_else(|err| unreachable!("{err}"))
}

/// A builder holding every showcase tool, to add more tools or state to.
pub fn toolset_builder() -> ToolSetBuilder {
    toolset![
        GetServerTime,
        GetWeather,
        ConvertCurrency,
        SearchFlights,
        BookHotel,
        PlanItinerary,
        SetReminder,
        SendMessage,
        CancelBooking,
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn toolset_has_every_tool() {
        let names: Vec<&str> = super::toolset().definitions().map(|d| d.name()).collect();
        let expected: Vec<&str> = super::definitions().iter().map(|d| d.name()).collect();
        assert_eq!(names, expected);
    }
}

/// Every showcase tool's definition, in a fixed order.
pub fn definitions() -> Vec<&'static ToolDefinition> {
    vec![
        GetServerTime.definition(),
        GetWeather.definition(),
        ConvertCurrency.definition(),
        SearchFlights.definition(),
        BookHotel.definition(),
        PlanItinerary.definition(),
        SetReminder.definition(),
        SendMessage.definition(),
        CancelBooking.definition(),
    ]
}

/// Get the current date and time on the server, in UTC.
#[tool(title = "Server time", read_only, idempotent, open_world = false)]
pub fn get_server_time() -> String {
    // A fixed instant keeps the showcase's output reproducible.
    "2026-11-22T09:30:00Z".to_owned()
}

/// Temperature units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "snake_case")]
pub enum Units {
    /// Degrees Celsius, kilometres per hour.
    Metric,
    /// Degrees Fahrenheit, miles per hour.
    Imperial,
}

/// A weather forecast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Forecast {
    /// The city the forecast is for.
    pub city: String,
    /// The units of every figure.
    pub units: Units,
    /// One entry per day, starting today.
    pub days: Vec<DayForecast>,
}

/// The weather of one day.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DayForecast {
    /// The highest temperature.
    pub high: f64,
    /// The lowest temperature.
    pub low: f64,
    /// Chance of rain, from 0 to 1.
    pub rain_chance: f64,
}

/// Get the weather forecast for a city.
///
/// Returns one entry per day, starting today.
///
/// # Arguments
///
/// * `city` - The city, e.g. "Lisbon" or "Paris, FR".
/// * `days` - How many days to forecast.
/// * `units` - The units of the figures.
/// * `include_hourly` - Whether to add hourly detail.
#[tool(
    read_only,
    example(city = "Lisbon"),
    example(city = "Paris, FR", days = 7, units = Units::Imperial)
)]
pub fn get_weather(
    city: String,
    #[arg(default = 3)]
    #[schemars(range(min = 1, max = 14))]
    days: u32,
    #[arg(default = Units::Metric)] units: Units,
    #[arg(default)] include_hourly: bool,
) -> Forecast {
    let _ = include_hourly;
    let days = (0..days)
        .map(|day| DayForecast {
            high: 20.0 + f64::from(day % 5),
            low: 12.0 + f64::from(day % 3),
            rain_chance: f64::from(day % 4) / 4.0,
        })
        .collect();
    Forecast { city, units, days }
}

/// The error of [`convert_currency`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCurrency(pub String);

impl std::fmt::Display for UnknownCurrency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no exchange rate for `{}`; try EUR, USD, GBP or JPY",
            self.0
        )
    }
}

impl std::error::Error for UnknownCurrency {}

/// Convert an amount of money between currencies at today's rate.
#[tool(read_only, idempotent)]
pub async fn convert_currency(
    /// The amount to convert.
    #[schemars(range(min = 0))]
    amount: f64,
    /// The ISO 4217 code of the amount's currency, e.g. "EUR".
    #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
    from: String,
    /// The ISO 4217 code to convert to.
    #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
    to: String,
    /// Decimal places to round the result to; unrounded when absent.
    #[schemars(range(max = 6))]
    round_to: Option<u8>,
) -> Result<f64, UnknownCurrency> {
    fn per_euro(code: &str) -> Result<f64, UnknownCurrency> {
        match code {
            "EUR" => Ok(1.0),
            "USD" => Ok(1.08),
            "GBP" => Ok(0.85),
            "JPY" => Ok(162.0),
            other => Err(UnknownCurrency(other.to_owned())),
        }
    }
    let converted = amount / per_euro(&from)? * per_euro(&to)?;
    Ok(match round_to {
        Some(places) => {
            let factor = 10f64.powi(i32::from(places));
            (converted * factor).round() / factor
        }
        None => converted,
    })
}

/// Cabin classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "snake_case")]
pub enum Cabin {
    /// The cheapest seats.
    Economy,
    /// More legroom, same service.
    PremiumEconomy,
    /// Lie-flat seats.
    Business,
}

/// What to search flights for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FlightSearch {
    /// IATA code of the departure airport, e.g. "LIS".
    #[schemars(length(equal = 3))]
    pub origin: String,
    /// IATA code of the arrival airport.
    #[schemars(length(equal = 3))]
    pub destination: String,
    /// Day of departure.
    #[schemars(extend("format" = "date"))]
    pub departure_date: String,
    /// Day of return; one way when absent.
    #[schemars(extend("format" = "date"))]
    pub return_date: Option<String>,
    /// How many travellers.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 9))]
    pub passengers: u8,
    /// The cabin class.
    #[serde(default = "economy")]
    pub cabin: Cabin,
    /// Only direct flights.
    #[serde(default)]
    pub nonstop_only: bool,
}

fn one() -> u8 {
    1
}

fn economy() -> Cabin {
    Cabin::Economy
}

/// A flight offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FlightOffer {
    /// The flight number, e.g. "TP1234".
    pub flight: String,
    /// Total price in euros for every passenger.
    pub price_eur: f64,
    /// Number of stops.
    pub stops: u8,
}

/// The offers found by a flight search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FlightOffers {
    /// Offers, cheapest first.
    pub offers: Vec<FlightOffer>,
}

/// Search flights between two airports.
#[tool(title = "Flight search", read_only)]
pub async fn search_flights(Args(search): Args<FlightSearch>) -> FlightOffers {
    let base = match search.cabin {
        Cabin::Economy => 90.0,
        Cabin::PremiumEconomy => 160.0,
        Cabin::Business => 420.0,
    };
    let per_trip = if search.return_date.is_some() {
        2.0
    } else {
        1.0
    };
    let mut offers = vec![FlightOffer {
        // The first two characters, not bytes: an origin may hold any characters.
        flight: format!("{}71", search.origin.chars().take(2).collect::<String>()),
        price_eur: base * per_trip * f64::from(search.passengers),
        stops: 0,
    }];
    if !search.nonstop_only {
        offers.insert(
            0,
            FlightOffer {
                flight: "XX42".to_owned(),
                price_eur: base * 0.7 * per_trip * f64::from(search.passengers),
                stops: 1,
            },
        );
    }
    FlightOffers { offers }
}

/// The guest a room is booked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Guest {
    /// Full name as on the guest's ID.
    #[schemars(length(min = 1, max = 100))]
    pub name: String,
    /// Where the confirmation is sent.
    #[schemars(email)]
    pub email: String,
    /// Phone number in international format, e.g. "+351912345678".
    #[schemars(regex(pattern = r"^\+[1-9][0-9]{6,14}$"))]
    pub phone: Option<String>,
}

/// A booking confirmation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Booking {
    /// The booking reference.
    pub reference: String,
    /// Total price in euros.
    pub total_eur: f64,
}

/// Book a hotel room for a guest.
#[tool(destructive = false, idempotent = false)]
pub fn book_hotel(
    /// The hotel's identifier, as returned by a search.
    hotel_id: String,
    /// Who stays.
    guest: Guest,
    /// Arrival day.
    #[schemars(extend("format" = "date"))]
    check_in: String,
    /// Number of nights.
    #[schemars(range(min = 1, max = 30))]
    nights: u16,
    /// Extra requests passed to the hotel, e.g. "late arrival".
    #[arg(default = Vec::new())]
    requests: Vec<String>,
) -> Booking {
    let _ = (&guest, &check_in, &requests);
    Booking {
        reference: format!("BK-{hotel_id}-{nights}"),
        total_eur: 95.0 * f64::from(nights),
    }
}

/// One stop of a trip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Stop {
    /// The city.
    pub city: String,
    /// Nights spent there.
    #[schemars(range(min = 1))]
    pub nights: u32,
    /// Things to do there.
    #[serde(default)]
    pub activities: Vec<String>,
}

/// The planned itinerary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Itinerary {
    /// Total nights away.
    pub total_nights: u64,
    /// A readable day-by-day plan.
    pub summary: String,
}

/// Plan a multi-city trip and summarise it day by day.
#[tool(read_only)]
pub fn plan_itinerary(
    /// The stops, in travel order.
    #[schemars(length(min = 1, max = 10))]
    stops: Vec<Stop>,
    /// The traveller's pace.
    #[arg(default = "relaxed".to_owned())]
    pace: String,
) -> Itinerary {
    // Widened: ten stops of up to u32::MAX nights each do not fit in a u32.
    let total_nights = stops.iter().map(|s| u64::from(s.nights)).sum();
    let summary = stops
        .iter()
        .map(|s| format!("{} ({} nights)", s.city, s.nights))
        .collect::<Vec<_>>()
        .join(" → ");
    Itinerary {
        total_nights,
        summary: format!("{summary}, at a {pace} pace"),
    }
}

/// When a reminder fires.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Schedule {
    /// Once, at a given instant.
    Once {
        /// When, e.g. "2026-12-01T08:00:00Z".
        #[schemars(extend("format" = "date-time"))]
        at: String,
    },
    /// Every day at the same time (UTC).
    Daily {
        /// Hour of the day.
        #[schemars(range(max = 23))]
        hour: u8,
        /// Minute of the hour.
        #[schemars(range(max = 59))]
        minute: u8,
    },
    /// Before a departure.
    BeforeDeparture {
        /// How many hours before.
        #[schemars(range(min = 1, max = 72))]
        hours: u8,
    },
}

/// Set a reminder for the traveller.
#[tool(idempotent = false, open_world = false)]
pub fn set_reminder(
    /// What to remind the traveller of.
    #[schemars(length(min = 1, max = 200))]
    text: String,
    /// When it fires.
    schedule: Schedule,
    /// How loud the reminder is, from 0.0 (silent) to 1.0.
    #[arg(default = 0.5)]
    #[schemars(range(min = 0.0, max = 1.0))]
    volume: f64,
) -> String {
    let _ = volume;
    match schedule {
        Schedule::Once { at } => format!("Reminder \"{text}\" set for {at}"),
        Schedule::Daily { hour, minute } => {
            format!("Reminder \"{text}\" set daily at {hour:02}:{minute:02} UTC")
        }
        Schedule::BeforeDeparture { hours } => {
            format!("Reminder \"{text}\" set {hours} h before departure")
        }
    }
}

/// Send a message to the traveller's travel agent by email.
#[tool(name = "send_agent_message", open_world)]
pub fn send_message(
    /// The agent's email address.
    #[schemars(email)]
    to: String,
    /// The subject line.
    #[schemars(length(min = 1, max = 78))]
    subject: String,
    /// The message body, in plain text.
    body: String,
    /// Ask for a read receipt.
    #[arg(rename = "readReceipt", default = true)]
    read_receipt: bool,
) -> String {
    let receipt = if read_receipt {
        " with read receipt"
    } else {
        ""
    };
    format!(
        "Sent \"{subject}\" to {to}{receipt} ({} characters)",
        body.len()
    )
}

/// Cancel a booking. This cannot be undone.
#[tool(destructive, idempotent)]
pub fn cancel_booking(
    /// The booking reference, e.g. "BK-h123-3".
    #[schemars(regex(pattern = r"^BK-[A-Za-z0-9-]+$"))]
    reference: String,
    /// Why the booking is cancelled; shown to the hotel.
    reason: Option<String>,
) -> String {
    match reason {
        Some(reason) => format!("Cancelled {reference}: {reason}"),
        None => format!("Cancelled {reference}"),
    }
}
