use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::{Portable, tool};

struct Opaque;

#[derive(Deserialize, JsonSchema, Portable)]
struct Upload {
    /// Sent as a string; parsed by hand.
    #[schemars(with = "String")]
    #[serde(deserialize_with = "parse")]
    when: std::time::SystemTime,
    #[serde(skip)]
    #[schemars(skip)]
    #[allow(dead_code)]
    opaque: Option<Box<Opaque>>,
}

fn parse<'de, D: serde::Deserializer<'de>>(d: D) -> Result<std::time::SystemTime, D::Error> {
    let _ = String::deserialize(d)?;
    Ok(std::time::SystemTime::UNIX_EPOCH)
}

/// Upload.
#[tool(type_name = "UploadTool")]
fn upload(upload: Upload) {
    let _ = upload.when;
}

fn main() {
    use tooldef::Tool;
    assert_eq!(UploadTool.definition().name(), "upload");
    let _: Option<UploadToolArgs> = None;
}
