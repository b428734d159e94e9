//! The request the upstream gets, written straight from the client's request, the rounds'
//! additions and the catalog's tools serialised once per catalog: nothing is copied per request
//! (with 100 injected tools, copying them as JSON values was most of a request's cost).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};

use crate::gateway::Injection;

/// One upstream request.
pub struct Outgoing<'a> {
    /// The client's request (for a round: without its conversation).
    pub request: &'a Map<String, Value>,
    /// The conversation of a round: its key (`messages` or `input`), the client's items and the
    /// rounds' additions.
    pub conversation: Option<(&'static str, &'a [Value], &'a [Value])>,
    /// A `tool_choice` replacing the client's (`"auto"` after a forced first round, `"none"` in
    /// the last).
    pub tool_choice: Option<&'static str>,
    /// The injected tools, after the client's own.
    pub injection: &'a Injection,
}

impl Serialize for Outgoing<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.request {
            match key.as_str() {
                "tools" => map.serialize_entry(
                    key,
                    &Tools {
                        client: value.as_array().map_or(&[][..], Vec::as_slice),
                        injection: self.injection,
                    },
                )?,
                "tool_choice" if self.tool_choice.is_some() => {
                    map.serialize_entry(key, &self.tool_choice)?;
                }
                _ => map.serialize_entry(key, value)?,
            }
        }
        if !self.request.contains_key("tools") && self.injection.active {
            map.serialize_entry(
                "tools",
                &Tools {
                    client: &[],
                    injection: self.injection,
                },
            )?;
        }
        if let (Some(choice), false) = (self.tool_choice, self.request.contains_key("tool_choice"))
        {
            map.serialize_entry("tool_choice", choice)?;
        }
        if let Some((key, client, added)) = self.conversation {
            map.serialize_entry(key, &Chain(client, added))?;
        }
        map.end()
    }
}

/// The client's tools, then the injected ones its own did not displace.
struct Tools<'a> {
    client: &'a [Value],
    injection: &'a Injection,
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for tool in self.client {
            seq.serialize_element(tool)?;
        }
        if self.injection.active {
            if let Some(discovery) = &self.injection.discovery {
                seq.serialize_element(&discovery.definition)?;
            }
            let injected = self.injection.injected();
            let adhoc = self.injection.adhoc.iter().map(|adhoc| &adhoc.injected);
            for injected in std::iter::once(injected).chain(adhoc) {
                for (name, raw) in injected.names.iter().zip(&injected.raw) {
                    if self.injection.sends(name) {
                        seq.serialize_element(raw)?;
                    }
                }
            }
        }
        seq.end()
    }
}

/// Two lists written as one.
struct Chain<'a>(&'a [Value], &'a [Value]);

impl Serialize for Chain<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().chain(self.1))
    }
}
