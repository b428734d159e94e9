//! Replies of a Responses upstream read without the `tools` it echoes: the upstream echoes the
//! request's, injected ones included (115 KB for 100 tools), and the client is shown its own
//! instead, so reading them into values would be work thrown away.

use serde_json::{Map, Value};

/// A response (or an event carrying one in `response`) read without its `tools`: the upstream
/// echoes the request's, injected ones included (115 KB for 100 tools), and the client is
/// shown its own instead, so reading them into values would be work thrown away.
pub struct WithoutTools(pub Value);

impl<'de> serde::Deserialize<'de> for WithoutTools {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = WithoutTools;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<WithoutTools, A::Error> {
                let mut object = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "tools" => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                        "response" => {
                            let response = map.next_value::<WithoutTools>()?;
                            object.insert(key, response.0);
                        }
                        _ => {
                            let value = map.next_value::<Value>()?;
                            object.insert(key, value);
                        }
                    }
                }
                Ok(WithoutTools(Value::Object(object)))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn responses_are_read_without_their_tools() {
        let event = r#"{"type": "response.created", "sequence_number": 0, "response": {"id": "r", "tools": [{"type": "function", "name": "x"}], "output": []}}"#;
        let read = serde_json::from_str::<WithoutTools>(event).unwrap().0;
        assert_eq!(
            read,
            json!({"type": "response.created", "sequence_number": 0, "response": {"id": "r", "output": []}})
        );
        assert!(serde_json::from_str::<WithoutTools>("[1]").is_err());
    }
}
