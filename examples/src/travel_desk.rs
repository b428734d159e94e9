//! What the example server offers beside its tools: prompts a user picks in the client, the
//! travel guides as resources (one per city, through a URI template), and completion of the
//! city as the user types it. `guide_note` shows a tool telling subscribed clients that a
//! resource changed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use tooldef::mcp::McpServer;
use tooldef::{
    CompletionRequest, PromptMessage, ResourceContents, State, ToolSetBuilder, prompt, resource,
    tool,
};

/// The cities the guides cover.
pub const CITIES: [&str; 5] = ["Lisbon", "London", "Lyon", "Paris", "Porto"];

/// A 1×1 PNG, the map every city gets.
const MAP_PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xff, 0x9f, 0xa1,
    0x1e, 0x00, 0x07, 0x82, 0x02, 0x7f, 0x3d, 0xc8, 0x48, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Notes added to the guides while the server runs, by city.
#[derive(Clone, Default)]
pub struct GuideNotes(Arc<Mutex<BTreeMap<String, Vec<String>>>>);

/// The prompts, resources and the note-taking tool, with the notes they share.
pub fn add_to(builder: ToolSetBuilder) -> ToolSetBuilder {
    builder
        .prompt(PlanTrip)
        .prompt(CancellationHelp)
        .resource(Airports)
        .resource(CityGuide)
        .resource(CityMap)
        .tool(GuideNote)
        .state(GuideNotes::default())
}

/// The cities whose name starts with what the user typed, ignoring case.
pub fn suggest_city(request: &CompletionRequest) -> Vec<&'static str> {
    let typed = request.value.to_lowercase();
    CITIES
        .into_iter()
        .filter(|city| city.to_lowercase().starts_with(&typed))
        .collect()
}

fn known(city: &str) -> Result<&'static str, String> {
    CITIES
        .into_iter()
        .find(|known| known.eq_ignore_ascii_case(city))
        .ok_or_else(|| {
            format!(
                "there is no guide for {city}; the guides are of {}",
                CITIES.join(", ")
            )
        })
}

/// Plan a trip to a city, with the weather and the flights in mind.
#[prompt(title = "Plan a trip")]
pub fn plan_trip(
    /// The city to visit.
    #[arg(complete = suggest_city)]
    city: String,
    /// How many days the trip lasts.
    #[arg(default = 3)]
    days: u32,
) -> Result<Vec<PromptMessage>, String> {
    if days == 0 {
        return Err("`days` is at least 1".to_owned());
    }
    Ok(vec![
        PromptMessage::user(format!(
            "Plan a {days}-day trip to {city}. Check the forecast with `get_weather` and look \
             for flights with `search_flights` before you suggest anything."
        )),
        PromptMessage::assistant(format!(
            "I'll check the weather in {city} for the next {days} days first."
        )),
    ])
}

/// What to do when a flight is cancelled, with the airline rules attached.
#[prompt]
pub fn cancellation_help() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user("My flight was cancelled. What are my options?"),
        PromptMessage::user(
            ResourceContents::text(
                "travel://rules/cancellations",
                "Airlines rebook you on the next flight or refund the ticket; in the EU, a \
                 cancellation less than 14 days ahead may also be owed compensation.",
            )
            .with_mime_type("text/plain"),
        ),
    ]
}

/// The airports the flight search knows, as JSON.
#[resource(uri = "travel://airports", mime_type = "application/json")]
pub fn airports() -> &'static str {
    r#"[{"code": "LIS", "city": "Lisbon"}, {"code": "LHR", "city": "London"}, {"code": "CDG", "city": "Paris"}]"#
}

/// A city's travel guide, with the notes added to it.
#[resource(
    uri = "travel://guides/{city}",
    name = "city_guide",
    mime_type = "text/markdown"
)]
pub fn city_guide(
    #[arg(complete = suggest_city)] city: String,
    State(notes): State<GuideNotes>,
) -> Result<String, String> {
    let city = known(&city)?;
    let mut guide = format!("# {city}\n\nWalk the old town; eat where the locals queue.\n");
    let notes = notes.0.lock().unwrap_or_else(PoisonError::into_inner);
    for note in notes.get(city).into_iter().flatten() {
        guide.push_str(&format!("\n- {note}"));
    }
    Ok(guide)
}

/// A city's map, as a PNG.
#[resource(
    uri = "travel://maps/{city}.png",
    name = "city_map",
    mime_type = "image/png"
)]
pub fn city_map(#[arg(complete = suggest_city)] city: String) -> Result<Vec<u8>, String> {
    known(&city)?;
    Ok(MAP_PNG.to_vec())
}

/// Add a note to a city's guide; clients subscribed to the guide hear that it changed.
#[tool]
pub async fn guide_note(
    /// The city.
    city: String,
    /// The note.
    note: String,
    State(notes): State<GuideNotes>,
    State(server): State<McpServer>,
) -> Result<String, String> {
    let city = known(&city)?;
    notes
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(city.to_owned())
        .or_default()
        .push(note);
    let uri = format!("travel://guides/{city}");
    server.resource_updated(&uri).await;
    Ok(format!("noted in {uri}"))
}
