//! Struct shapes: `#[serde(flatten)]`, `rename_all = "camelCase"`, a struct nested four levels
//! deep, defaults at depth, renamed parameters, optional structs of several fields (an object
//! with two bad fields must be told of both, not "expected `null`"), and a tool without
//! parameters.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooldef::{Args, Portable, tool};

use super::enums::Priority;

/// Paging, flattened into the query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Paging {
    /// The page, from 1.
    #[serde(default = "first_page")]
    #[schemars(range(min = 1))]
    pub page: u32,
    /// Results per page.
    pub per_page: Option<u8>,
}

fn first_page() -> u32 {
    1
}

/// A search with its paging fields at the same level (`#[serde(flatten)]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct FlatQuery {
    /// What to look for.
    pub text: String,
    /// Paging.
    #[serde(flatten)]
    pub paging: Paging,
}

/// Search with paging (a flattened struct).
#[tool]
pub fn search_paged(Args(query): Args<FlatQuery>) -> Value {
    json!(query)
}

/// A postal address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PostalAddress {
    /// Street and number.
    pub street_line: String,
    /// The postal code.
    pub postal_code: Option<String>,
    /// Whether this is the main address.
    #[serde(default)]
    pub is_primary: bool,
}

/// A user's profile, in camelCase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Profile {
    /// The name shown to others.
    pub display_name: String,
    /// Year of birth.
    pub birth_year: Option<u16>,
    /// Where they live.
    pub home_address: PostalAddress,
    /// Other addresses.
    #[serde(default)]
    pub other_addresses: Vec<PostalAddress>,
}

/// Update a profile (`rename_all = "camelCase"`).
#[tool]
pub fn update_profile(Args(profile): Args<Profile>) -> Value {
    json!(profile)
}

/// Level 4: a member of a team.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Member {
    /// Their name.
    pub name: String,
    /// Years in the company.
    #[schemars(range(max = 60))]
    pub years: u8,
}

/// Level 3: a team.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Team {
    /// The team's name.
    pub name: String,
    /// Its lead.
    pub lead: Member,
    /// The others.
    #[schemars(length(max = 3))]
    pub members: Vec<Member>,
}

/// Level 2: a department.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Department {
    /// The department's code.
    #[schemars(length(min = 2, max = 4))]
    pub code: String,
    /// Its teams.
    #[schemars(length(max = 3))]
    pub teams: Vec<Team>,
    /// Its budget, if set.
    pub budget: Option<f64>,
}

/// Level 1: a company.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Company {
    /// Its name.
    pub name: String,
    /// The main department.
    pub main: Department,
    /// Others.
    pub others: Option<Vec<Department>>,
}

/// Register a company (a struct nested four levels deep).
#[tool]
pub fn register_company(
    /// The company.
    company: Company,
) -> Value {
    json!({"company": company})
}

/// Retry settings, each field with its own default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Retry {
    /// Attempts before giving up.
    #[serde(default = "three")]
    #[schemars(range(min = 1, max = 10))]
    pub attempts: u8,
    /// Wait between attempts.
    #[serde(default = "backoff")]
    pub backoff_ms: u32,
    /// Give up early on these codes.
    #[serde(default)]
    pub stop_on: Vec<u16>,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            attempts: three(),
            backoff_ms: backoff(),
            stop_on: Vec::new(),
        }
    }
}

fn three() -> u8 {
    3
}

fn backoff() -> u32 {
    250
}

/// Connection settings with defaults at two depths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Connection {
    /// The host.
    pub host: String,
    /// The port.
    #[serde(default = "port")]
    pub port: u16,
    /// How to retry.
    #[serde(default)]
    pub retry: Retry,
}

fn port() -> u16 {
    443
}

/// Connect somewhere (defaults at depth, and `#[arg(default = …)]`).
#[tool]
pub fn connect(
    /// Where.
    target: Connection,
    /// How much of the bandwidth to use.
    #[arg(default = 0.75)]
    #[schemars(range(min = 0.0, max = 1.0))]
    share: f64,
    /// A scale factor.
    #[arg(default = 0.1)]
    scale: f32,
    /// The language of messages.
    #[arg(default = "en".to_owned())]
    language: String,
    /// How urgent.
    #[arg(default = Priority::Low)]
    priority: Priority,
    /// Tags.
    #[arg(default = vec!["a".to_owned(), "b".to_owned()])]
    tags: Vec<String>,
) -> Value {
    json!({
        "target": target,
        "share": share,
        "scale": scale,
        "language": language,
        "priority": priority,
        "tags": tags,
    })
}

/// List files (parameters renamed on the wire with `#[arg(rename = …)]`).
#[tool]
pub fn list_files(
    /// The most results.
    #[arg(rename = "maxResults")]
    #[schemars(range(min = 1, max = 1000))]
    max_results: u32,
    /// The kind of file.
    #[arg(rename = "type")]
    kind: String,
    /// Only pretend.
    #[arg(rename = "dry-run", default)]
    dry_run: bool,
    /// Start after this name.
    #[arg(rename = "startAfter")]
    start_after: Option<String>,
) -> Value {
    json!({"maxResults": max_results, "type": kind, "dry-run": dry_run, "startAfter": start_after})
}

/// Check that the server answers (no parameters).
#[tool]
pub fn ping() -> Value {
    json!({})
}

/// An office: a building, a floor, and a wing if the building has several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
pub struct Office {
    /// The building's name.
    pub building: String,
    /// The floor, negative below ground.
    pub floor: i8,
    /// The wing, if the building has several.
    pub wing: Option<String>,
}

/// Assign a desk: an office, another for the days away (boxed), and whom to tell, all optional.
#[tool]
pub fn assign_desk(
    /// Who gets the desk.
    person: String,
    /// Where; left out for storage.
    office: Option<Office>,
    /// Where on the days away.
    other_office: Option<Box<Office>>,
    /// Whom to tell.
    #[schemars(email)]
    notify: Option<String>,
) -> Value {
    json!({"person": person, "office": office, "other_office": other_office, "notify": notify})
}
