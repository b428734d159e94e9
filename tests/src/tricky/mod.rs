//! Tools of tricky argument shapes whose functions hand back what they received, for the
//! schema-instance property tests (`tests/tests/schema_properties.rs`): each returns its
//! arguments as JSON under their wire names, so that a test can compare what reached the
//! function with what the model sent.

pub mod collections;
pub mod enums;
pub mod ids;
pub mod numbers;
pub mod options;
pub mod recursive;
pub mod showcase;
pub mod strings;
pub mod structs;
pub mod time;

use tooldef::{ToolSet, toolset};

/// The names of the showcase's tools, echoed by [`echoes`].
pub const SHOWCASE: [&str; 9] = [
    "get_server_time",
    "get_weather",
    "convert_currency",
    "search_flights",
    "book_hotel",
    "plan_itinerary",
    "set_reminder",
    "send_agent_message",
    "cancel_booking",
];

/// Every tricky tool and every showcase tool (as an [`showcase::Echo`]) in one set.
pub fn echoes() -> ToolSet {
    let tricky = toolset![
        enums::DrawShape,
        enums::CommandRobot,
        enums::ApplyEdit,
        enums::OrderItems,
        enums::FileTicket,
        enums::DrawShapes,
        structs::SearchPaged,
        structs::UpdateProfile,
        structs::RegisterCompany,
        structs::Connect,
        structs::ListFiles,
        structs::Ping,
        structs::AssignDesk,
        options::Annotate,
        collections::TagItems,
        collections::SetAddress,
        collections::StoreLabels,
        numbers::RecordCounters,
        numbers::SetLevels,
        numbers::Measure,
        numbers::Tune,
        strings::CreateAccount,
        strings::Route,
        time::BookSlot,
        ids::LinkResources,
        recursive::StoreTree,
    ];
    // The showcase's names differ from the tricky ones; `build` would say otherwise.
    showcase::add_echoes(tricky)
        .build()
        .unwrap_or_else(|err| panic!("{err}"))
}
