//! `uuid::Uuid` and `url::Url`.

use serde_json::{Value, json};
use tooldef::tool;
use url::Url;
use uuid::Uuid;

/// Link resources (UUIDs and URLs).
#[tool]
pub fn link_resources(
    /// The resource.
    id: Uuid,
    /// Where it lives.
    site: Url,
    /// Related resources.
    #[schemars(length(max = 3))]
    related: Vec<Uuid>,
    /// A mirror.
    mirror: Option<Url>,
) -> Value {
    json!({"id": id, "site": site, "related": related, "mirror": mirror})
}
